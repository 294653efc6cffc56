// Attribute, item and slice access (see jinja_access.h).
#include "src/llm/jinja_access.h"

#include <memory>

#include "src/llm/jinja_methods.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// How jinja2.utils.object_type_repr names a value's type in undefined messages.
std::string object_description(const Value& value) {
  if (value.is_none()) return "None";
  return str_cat(type_name(value), " object");
}

Value missing_attribute(const Value& obj, std::string_view name) {
  return Value::undefined(str_cat("'", object_description(obj), "' has no attribute '", name, "'"));
}

// repr() of a scalar key for messages; false for other values.
bool append_repr_simple(std::string& out, const Value& key) {
  switch (key.kind()) {
    case ValueKind::kNone:
      out += "None";
      return true;
    case ValueKind::kBool:
      out += key.as_bool() ? "True" : "False";
      return true;
    case ValueKind::kInt:
      out += std::to_string(key.as_int());
      return true;
    case ValueKind::kFloat:
      out += python_float_repr(key.as_double());
      return true;
    case ValueKind::kString:
      out += python_repr(key.as_string());
      return true;
    default:
      return false;
  }
}

Value missing_element(const Value& obj, const Value& key) {
  std::string shown;
  if (!append_repr_simple(shown, key)) shown = "?";
  return Value::undefined(str_cat("'", object_description(obj), "' has no element ", shown));
}

Value bound_method(const Value& self, std::string_view name) {
  auto callable = std::make_shared<Callable>();
  callable->kind = CallableKind::kMethod;
  callable->name = std::string(name);
  callable->self = self;
  return Value::callable(std::move(callable));
}

// The attributes of the `loop` variable (jinja2.runtime.LoopContext).
Value loop_attribute(const Value& loop_value, std::string_view name) {
  const LoopInfo& loop = loop_value.as_loop();
  const auto length = static_cast<int64_t>(loop.items->size());
  const auto index0 = static_cast<int64_t>(loop.index0);
  if (name == "index") return Value::integer(index0 + 1);
  if (name == "index0") return Value::integer(index0);
  if (name == "revindex") return Value::integer(length - index0);
  if (name == "revindex0") return Value::integer(length - index0 - 1);
  if (name == "first") return Value::boolean(index0 == 0);
  if (name == "last") return Value::boolean(index0 + 1 == length);
  if (name == "length") return Value::integer(length);
  if (name == "depth") return Value::integer(loop.depth0 + 1);
  if (name == "depth0") return Value::integer(loop.depth0);
  if (name == "previtem") {
    if (index0 == 0) return Value::undefined("there is no previous item");
    return (*loop.items)[loop.index0 - 1];
  }
  if (name == "nextitem") {
    if (index0 + 1 >= length) return Value::undefined("there is no next item");
    return (*loop.items)[loop.index0 + 1];
  }
  return missing_attribute(loop_value, name);
}

// A Python index into a sequence of `size` items: negative counts from the end; nullopt when out
// of range.
std::optional<size_t> normalize_index(int64_t index, size_t size) {
  const auto n = static_cast<int64_t>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return static_cast<size_t>(index);
}

}  // namespace

Result<Value> get_attr(const Value& obj, std::string_view name, RenderState& state) {
  if (obj.is_undefined()) return template_error(obj.undefined_message());
  CPPNN_RETURN_IF_ERROR(state.charge(1));
  if (!name.empty() && name.front() == '_') return missing_attribute(obj, name);
  if (has_method(obj, name)) return bound_method(obj, name);
  switch (obj.kind()) {
    case ValueKind::kDict:
      if (const Value* value = obj.as_dict().find(name)) return *value;
      break;
    case ValueKind::kNamespace:
      if (const Value* value = obj.as_namespace()->attributes.find(name)) return *value;
      break;
    case ValueKind::kLoop:
      return loop_attribute(obj, name);
    default:
      break;
  }
  return missing_attribute(obj, name);
}

Result<Value> get_item(const Value& obj, const Value& key, RenderState& state) {
  if (obj.is_undefined()) return template_error(obj.undefined_message());
  CPPNN_RETURN_IF_ERROR(state.charge(1));
  switch (obj.kind()) {
    case ValueKind::kDict:
      if (const Value* value = obj.as_dict().find(key)) return *value;
      break;
    case ValueKind::kList:
    case ValueKind::kTuple:
      if (key.is_integer()) {
        const auto index = normalize_index(key.as_int(), obj.items().size());
        if (!index) return missing_element(obj, key);
        return obj.items()[*index];
      }
      break;
    case ValueKind::kString:
      if (key.is_integer()) {
        const std::u32string cps = utf8_decode(obj.as_string());
        const auto index = normalize_index(key.as_int(), cps.size());
        if (!index) return missing_element(obj, key);
        std::string ch;
        utf8_append(ch, cps[*index]);
        return Value::string(std::move(ch));
      }
      break;
    default:
      break;
  }
  // Jinja falls back to the attribute for a string key.
  if (key.is_string()) return get_attr(obj, key.as_string(), state);
  return missing_element(obj, key);
}

Result<Value> get_slice(const Value& obj, std::optional<int64_t> start, std::optional<int64_t> stop,
                        std::optional<int64_t> step, RenderState& state) {
  if (obj.is_undefined()) return template_error(obj.undefined_message());
  const int64_t s = step.value_or(1);
  if (s == 0) return template_error("slice step cannot be zero");
  const bool is_text = obj.is_string();
  if (!is_text && !obj.is_sequence()) {
    return Value::undefined(str_cat("'", object_description(obj), "' has no element slice"));
  }
  const std::u32string cps = is_text ? utf8_decode(obj.as_string()) : std::u32string();
  const auto length = static_cast<int64_t>(is_text ? cps.size() : obj.items().size());
  // PySlice_AdjustIndices.
  const auto adjust = [&](std::optional<int64_t> index, int64_t fallback) {
    if (!index) return fallback;
    int64_t i = *index;
    if (i < 0) {
      i += length;
      if (i < 0) i = s < 0 ? -1 : 0;
    } else if (i >= length) {
      i = s < 0 ? length - 1 : length;
    }
    return i;
  };
  const int64_t first = adjust(start, s < 0 ? length - 1 : 0);
  const int64_t last = adjust(stop, s < 0 ? -1 : length);
  std::vector<size_t> picked;
  for (int64_t i = first; s > 0 ? i < last : i > last;) {
    picked.push_back(static_cast<size_t>(i));
    if (__builtin_add_overflow(i, s, &i)) break;
  }
  CPPNN_RETURN_IF_ERROR(state.charge_container(picked.size()));
  if (is_text) {
    std::u32string out;
    for (size_t i : picked) out += cps[i];
    return Value::string(utf8_encode(out));
  }
  std::vector<Value> items;
  items.reserve(picked.size());
  for (size_t i : picked) items.push_back(obj.items()[i]);
  return obj.kind() == ValueKind::kTuple ? Value::tuple(std::move(items))
                                         : Value::list(std::move(items));
}

Result<Value> get_attr_path(const Value& obj, std::string_view path, RenderState& state) {
  Value current = obj;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string_view part =
        path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    const bool digits =
        !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
    Value key;
    if (digits && part.size() < 18) {
      key = Value::integer(std::stoll(std::string(part)));
    } else {
      key = Value::string(std::string(part));
    }
    auto next = get_item(current, key, state);
    if (!next.ok()) return next.error();
    current = std::move(*next);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return current;
}

}  // namespace cppnn::llm::jinja
