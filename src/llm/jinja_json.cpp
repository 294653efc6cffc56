// transformers' tojson (see jinja_json.h).
#include "src/llm/jinja_json.h"

#include <cmath>
#include <cstdio>

#include "src/llm/jinja_operators.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

class JsonWriter {
 public:
  JsonWriter(const JsonOptions& options, RenderState& state)
      : options_(options),
        state_(state),
        item_separator_(options.item_separator.value_or(options.indent ? "," : ", ")) {}

  Status write(const Value& value, uint32_t level) {
    CPPNN_RETURN_IF_ERROR(state_.charge(1));
    switch (value.kind()) {
      case ValueKind::kNone:
        return put("null");
      case ValueKind::kBool:
        return put(value.as_bool() ? "true" : "false");
      case ValueKind::kInt:
        return put(std::to_string(value.as_int()));
      case ValueKind::kFloat:
        return put(float_text(value.as_double()));
      case ValueKind::kString:
        return put_string(value.as_string());
      case ValueKind::kList:
      case ValueKind::kTuple:
        return write_list(value, level);
      case ValueKind::kDict:
        return write_dict(value.as_dict(), level);
      case ValueKind::kUndefined:
      case ValueKind::kNamespace:
      case ValueKind::kLoop:
      case ValueKind::kCallable:
        break;
    }
    return template_error("Object of type ", type_name(value), " is not JSON serializable");
  }

  std::string take() { return std::move(out_); }

 private:
  static std::string float_text(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
    return python_float_repr(d);
  }

  Status put(std::string_view text) {
    if (out_.size() + text.size() > state_.limits().max_output_bytes) {
      return template_error("tojson: the text exceeds the limit of ",
                            state_.limits().max_output_bytes, " bytes");
    }
    out_.append(text);
    return state_.charge(text.size() / 16);
  }

  // A newline and the indent of `level` (nothing without an indent).
  Status newline(uint32_t level) {
    if (!options_.indent) return Ok{};
    CPPNN_RETURN_IF_ERROR(put("\n"));
    for (uint32_t i = 0; i < level; ++i) CPPNN_RETURN_IF_ERROR(put(*options_.indent));
    return Ok{};
  }

  Status put_string(std::string_view text) {
    std::string quoted = "\"";
    for (size_t pos = 0; pos < text.size();) {
      const char32_t cp = utf8_next(text, pos);
      char buf[16];
      switch (cp) {
        case '"':
          quoted += "\\\"";
          continue;
        case '\\':
          quoted += "\\\\";
          continue;
        case '\n':
          quoted += "\\n";
          continue;
        case '\r':
          quoted += "\\r";
          continue;
        case '\t':
          quoted += "\\t";
          continue;
        case '\b':
          quoted += "\\b";
          continue;
        case '\f':
          quoted += "\\f";
          continue;
        default:
          break;
      }
      if (cp < 0x20 || (options_.ensure_ascii && cp > 0x7E)) {
        if (cp >= 0x10000) {
          const char32_t v = cp - 0x10000;
          std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x",
                        static_cast<unsigned>(0xD800 + (v >> 10)),
                        static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
        } else {
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
        }
        quoted += buf;
      } else {
        utf8_append(quoted, cp);
      }
    }
    quoted += '"';
    return put(quoted);
  }

  Status write_list(const Value& value, uint32_t level) {
    const auto& items = value.items();
    if (items.empty()) return put("[]");
    CPPNN_RETURN_IF_ERROR(put("["));
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) CPPNN_RETURN_IF_ERROR(put(item_separator_));
      CPPNN_RETURN_IF_ERROR(newline(level + 1));
      CPPNN_RETURN_IF_ERROR(write(items[i], level + 1));
    }
    CPPNN_RETURN_IF_ERROR(newline(level));
    return put("]");
  }

  // A dict key as json.dumps converts it.
  Result<std::string> key_text(const Value& key) {
    switch (key.kind()) {
      case ValueKind::kString:
        return key.as_string();
      case ValueKind::kNone:
        return std::string("null");
      case ValueKind::kBool:
        return std::string(key.as_bool() ? "true" : "false");
      case ValueKind::kInt:
        return std::to_string(key.as_int());
      case ValueKind::kFloat:
        return float_text(key.as_double());
      default:
        break;
    }
    return template_error("keys must be str, int, float, bool or None, not ", type_name(key));
  }

  Status write_dict(const Dict& dict, uint32_t level) {
    if (dict.size() == 0) return put("{}");
    std::vector<const std::pair<Value, Value>*> entries;
    for (const auto& entry : dict.entries()) entries.push_back(&entry);
    if (options_.sort_keys) {
      // sorted(dct.items()): keys compared as Python does; mixed key types are a TypeError.
      std::vector<Value> keys;
      for (const auto* entry : entries) keys.push_back(entry->first);
      auto order = sorted_order(keys, state_);
      if (!order.ok()) return order.error();
      std::vector<const std::pair<Value, Value>*> sorted;
      for (size_t i : *order) sorted.push_back(entries[i]);
      entries = std::move(sorted);
    }
    CPPNN_RETURN_IF_ERROR(put("{"));
    bool first = true;
    for (const auto* entry : entries) {
      if (!first) CPPNN_RETURN_IF_ERROR(put(item_separator_));
      first = false;
      CPPNN_RETURN_IF_ERROR(newline(level + 1));
      auto key = key_text(entry->first);
      if (!key.ok()) return key.error();
      CPPNN_RETURN_IF_ERROR(put_string(*key));
      CPPNN_RETURN_IF_ERROR(put(options_.key_separator));
      CPPNN_RETURN_IF_ERROR(write(entry->second, level + 1));
    }
    CPPNN_RETURN_IF_ERROR(newline(level));
    return put("}");
  }

  const JsonOptions& options_;
  RenderState& state_;
  std::string item_separator_;
  std::string out_;
};

}  // namespace

Result<std::string> to_json(const Value& value, const JsonOptions& options, RenderState& state) {
  JsonWriter writer(options, state);
  CPPNN_RETURN_IF_ERROR(writer.write(value, 0));
  return writer.take();
}

}  // namespace cppnn::llm::jinja
