// The filter table and the filters on single values (see jinja_filters.h); the collection
// filters are in jinja_filters_collection.cpp.
#include "src/llm/jinja_filters.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "src/llm/jinja_access.h"
#include "src/llm/jinja_filters_collection.h"
#include "src/llm/jinja_format.h"
#include "src/llm/jinja_json.h"
#include "src/llm/jinja_methods.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// str(value) of a filter's input (Jinja's soft_str: undefined prints as "").
Result<std::string> input_text(const Value& input, RenderState& state) {
  return to_str(input, state);
}

// A filter on the text of its input with no arguments.
template <std::string (*Transform)(std::string_view)>
Result<Value> text_filter(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("filter", args, {}));
  auto text = input_text(input, state);
  if (!text.ok()) return text.error();
  return Value::string(Transform(*text));
}

std::string title_text(std::string_view text) {
  return jinja_title(text);
}

Result<Value> filter_trim(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("trim", args, {"chars"});
  if (!bound.ok()) return bound.error();
  auto chars = string_arg((*bound)[0], "chars", std::nullopt, true);
  if (!chars.ok()) return chars.error();
  auto text = input_text(input, state);
  if (!text.ok()) return text.error();
  const std::optional<std::string_view> set =
      *chars ? std::optional<std::string_view>(**chars) : std::nullopt;
  return Value::string(python_strip(*text, true, true, set));
}

Result<Value> filter_default(const Value& input, const CallArgs& args, RenderState&) {
  auto bound = bind_args("default", args, {"default_value", "boolean"});
  if (!bound.ok()) return bound.error();
  if (input.is_undefined() || (bool_arg((*bound)[1], false) && !truthy(input))) {
    return (*bound)[0] ? *(*bound)[0] : Value::string("");
  }
  return input;
}

Result<Value> filter_string(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("string", args, {}));
  auto text = input_text(input, state);
  if (!text.ok()) return text.error();
  return Value::string(std::move(*text));
}

Result<Value> filter_replace(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("replace", args, {"old", "new", "count"});
  if (!bound.ok()) return bound.error();
  if (!(*bound)[0] || !(*bound)[1]) {
    return template_error("replace() missing required arguments 'old' and 'new'");
  }
  auto text = input_text(input, state);
  auto old_text = to_str(*(*bound)[0], state);
  auto new_text = to_str(*(*bound)[1], state);
  if (!text.ok()) return text.error();
  if (!old_text.ok()) return old_text.error();
  if (!new_text.ok()) return new_text.error();
  int64_t count = -1;
  if ((*bound)[2] && !(*bound)[2]->is_none()) {
    auto n = int_arg((*bound)[2], "count", -1);
    if (!n.ok()) return n.error();
    count = *n;
  }
  auto replaced =
      python_replace(*text, *old_text, *new_text, count, state.limits().max_output_bytes);
  if (!replaced) return template_error("replace(): the result is too large");
  CPPNN_RETURN_IF_ERROR(state.charge_string(replaced->size()));
  return Value::string(std::move(*replaced));
}

// Python's int(text, base): optional whitespace and sign, digits with single '_' separators, a
// 0x/0o/0b prefix matching the base. nullopt when Python raises ValueError; an overflow is an
// error (Python's integers do not overflow).
Result<std::optional<int64_t>> parse_python_int(std::string_view raw, int64_t base) {
  const std::string text = python_strip(raw, true, true);
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i + 1 < text.size() && text[i] == '0') {
    const char p = static_cast<char>(text[i + 1] | 0x20);
    if ((p == 'x' && base == 16) || (p == 'o' && base == 8) || (p == 'b' && base == 2)) {
      i += 2;
      if (i < text.size() && text[i] == '_') ++i;
    }
  }
  if (i >= text.size()) return std::optional<int64_t>();
  uint64_t value = 0;
  bool previous_digit = false;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_') {
      if (!previous_digit || i + 1 >= text.size()) return std::optional<int64_t>();
      previous_digit = false;
      continue;
    }
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
      digit = (c | 0x20) - 'a' + 10;
    } else {
      return std::optional<int64_t>();
    }
    if (digit >= base) return std::optional<int64_t>();
    if (value > (limit - static_cast<uint64_t>(digit)) / static_cast<uint64_t>(base)) {
      return template_error("int(): the number is too large (template integers are 64-bit)");
    }
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
    previous_digit = true;
  }
  if (negative) return std::optional<int64_t>(static_cast<int64_t>(0 - value));
  return std::optional<int64_t>(static_cast<int64_t>(value));
}

// Python's float(text): whitespace, sign, digits with '_' separators, a fraction and exponent, or
// inf/infinity/nan. nullopt when Python raises ValueError.
std::optional<double> parse_python_float(std::string_view raw) {
  std::string text = python_strip(raw, true, true);
  std::string lowered = python_lower(text);
  size_t sign = !lowered.empty() && (lowered[0] == '+' || lowered[0] == '-') ? 1 : 0;
  const std::string_view word = std::string_view(lowered).substr(sign);
  const bool negative = sign && lowered[0] == '-';
  if (word == "inf" || word == "infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (word == "nan") return std::nan("");
  std::string digits;
  bool previous_digit = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_') {
      if (!previous_digit || i + 1 >= text.size() || !(text[i + 1] >= '0' && text[i + 1] <= '9')) {
        return std::nullopt;
      }
      continue;
    }
    previous_digit = c >= '0' && c <= '9';
    digits += c;
  }
  if (digits.empty() || digits[0] == '+') {
    if (digits.empty()) return std::nullopt;
    digits.erase(0, 1);
  }
  double value = 0;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ptr != digits.data() + digits.size()) return std::nullopt;
  if (result.ec == std::errc::result_out_of_range) {
    const bool tiny = digits.find_first_of("eE") != std::string::npos &&
                      digits.find("-", digits.find_first_of("eE")) != std::string::npos;
    return tiny ? 0.0 : (digits[0] == '-' ? -HUGE_VAL : HUGE_VAL);
  }
  if (result.ec != std::errc()) return std::nullopt;
  return value;
}

// int(d) for a finite double, or an error as Python's OverflowError/ValueError.
Result<int64_t> truncate_to_int(double d) {
  if (std::isnan(d)) return template_error("cannot convert float NaN to integer");
  if (std::isinf(d)) return template_error("cannot convert float infinity to integer");
  const double t = std::trunc(d);
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) {
    return template_error("int(): the number is too large (template integers are 64-bit)");
  }
  return static_cast<int64_t>(t);
}

Result<Value> filter_int(const Value& input, const CallArgs& args, RenderState&) {
  auto bound = bind_args("int", args, {"default", "base"});
  if (!bound.ok()) return bound.error();
  const Value fallback = (*bound)[0] ? *(*bound)[0] : Value::integer(0);
  auto base = int_arg((*bound)[1], "base", 10);
  if (!base.ok()) return base.error();
  if (*base < 2 || *base > 36) return template_error("int() base must be >= 2 and <= 36");
  switch (input.kind()) {
    case ValueKind::kUndefined:
      return template_error(input.undefined_message());
    case ValueKind::kBool:
    case ValueKind::kInt:
      return Value::integer(input.as_int());
    case ValueKind::kFloat: {
      if (std::isnan(input.as_double())) return fallback;  // ValueError, then the default
      auto i = truncate_to_int(input.as_double());
      if (!i.ok()) return i.error();
      return Value::integer(*i);
    }
    case ValueKind::kString: {
      auto parsed = parse_python_int(input.as_string(), *base);
      if (!parsed.ok()) return parsed.error();
      if (*parsed) return Value::integer(**parsed);
      // Jinja's quirk: "42.23"|int is 42 through float().
      const std::optional<double> d = parse_python_float(input.as_string());
      if (!d || std::isnan(*d)) return fallback;
      auto i = truncate_to_int(*d);
      if (!i.ok()) return i.error();
      return Value::integer(*i);
    }
    default:
      return fallback;
  }
}

Result<Value> filter_float(const Value& input, const CallArgs& args, RenderState&) {
  auto bound = bind_args("float", args, {"default"});
  if (!bound.ok()) return bound.error();
  const Value fallback = (*bound)[0] ? *(*bound)[0] : Value::number(0.0);
  switch (input.kind()) {
    case ValueKind::kUndefined:
      return template_error(input.undefined_message());
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
      return Value::number(input.as_double());
    case ValueKind::kString: {
      const std::optional<double> d = parse_python_float(input.as_string());
      return d ? Value::number(*d) : fallback;
    }
    default:
      return fallback;
  }
}

Result<Value> filter_abs(const Value& input, const CallArgs& args, RenderState&) {
  CPPNN_RETURN_IF_ERROR(bind_args("abs", args, {}));
  if (input.is_integer()) {
    if (input.as_int() == INT64_MIN) return template_error("integer overflow");
    return Value::integer(input.as_int() < 0 ? -input.as_int() : input.as_int());
  }
  if (input.kind() == ValueKind::kFloat) return Value::number(std::fabs(input.as_double()));
  return template_error("bad operand type for abs(): '", type_name(input), "'");
}

// Python's round(d, ndigits) for a float: exact decimal rounding, ties to even.
double round_float(double d, int64_t ndigits) {
  if (!std::isfinite(d) || ndigits > 330) return d;
  if (ndigits >= 0) {
    char buf[512];
    const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed,
                                 static_cast<int>(ndigits));
    double out = d;
    std::from_chars(buf, r.ptr, out);
    return out;
  }
  if (ndigits < -330) return std::copysign(0.0, d);
  const double scale = std::pow(10.0, static_cast<double>(-ndigits));
  return std::nearbyint(d / scale) * scale;
}

Result<Value> filter_round(const Value& input, const CallArgs& args, RenderState&) {
  auto bound = bind_args("round", args, {"precision", "method"});
  if (!bound.ok()) return bound.error();
  auto precision = int_arg((*bound)[0], "precision", 0);
  if (!precision.ok()) return precision.error();
  auto method = string_arg((*bound)[1], "method", std::string("common"));
  if (!method.ok()) return method.error();
  if (**method != "common" && **method != "ceil" && **method != "floor") {
    return template_error("method must be common, ceil or floor");
  }
  if (input.is_undefined()) return template_error(input.undefined_message());
  if (!input.is_number()) {
    return template_error("type ", type_name(input), " doesn't define __round__ method");
  }
  if (**method == "common") {
    if (input.is_integer()) {
      if (*precision >= 0) return Value::integer(input.as_int());
      return Value::integer(static_cast<int64_t>(round_float(input.as_double(), *precision)));
    }
    return Value::number(round_float(input.as_double(), *precision));
  }
  const double scale = std::pow(10.0, static_cast<double>(*precision));
  const double scaled = input.as_double() * scale;
  const double rounded = **method == "ceil" ? std::ceil(scaled) : std::floor(scaled);
  return Value::number(rounded / scale);
}

Result<Value> filter_escape(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("escape", args, {}));
  auto text = input_text(input, state);
  if (!text.ok()) return text.error();
  std::string out;
  for (char c : *text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '"':
        out += "&#34;";
        break;
      default:
        out += c;
    }
  }
  CPPNN_RETURN_IF_ERROR(state.charge_string(out.size()));
  return Value::string(std::move(out));
}

Result<Value> filter_indent(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("indent", args, {"width", "first", "blank"});
  if (!bound.ok()) return bound.error();
  if (input.is_undefined()) return template_error(input.undefined_message());
  if (!input.is_string()) {
    return template_error("unsupported operand type(s) for +=: '", type_name(input), "' and 'str'");
  }
  std::string indention;
  if ((*bound)[0] && (*bound)[0]->is_string()) {
    indention = (*bound)[0]->as_string();
  } else {
    auto width = int_arg((*bound)[0], "width", 4);
    if (!width.ok()) return width.error();
    if (*width > 0) {
      CPPNN_RETURN_IF_ERROR(state.charge_string(static_cast<uint64_t>(*width)));
      indention.assign(static_cast<size_t>(*width), ' ');
    }
  }
  const std::vector<std::string> lines = python_splitlines(input.as_string() + "\n", false);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\n";
    const bool indent = bool_arg((*bound)[2], false) ? i > 0 : (i > 0 && !lines[i].empty());
    if (indent) out += indention;
    out += lines[i];
    CPPNN_RETURN_IF_ERROR(state.charge_string(out.size()));
  }
  if (bool_arg((*bound)[1], false)) out = indention + out;
  return Value::string(std::move(out));
}

Result<Value> filter_attr(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("attr", args, {"name"});
  if (!bound.ok()) return bound.error();
  if (!(*bound)[0]) return template_error("attr() missing 1 required argument: 'name'");
  auto name = to_str(*(*bound)[0], state);
  if (!name.ok()) return name.error();
  // getattr() only: a dict's items are not attributes.
  if (input.is_dict()) {
    if (has_method(input, *name)) return get_attr(input, *name, state);
    return Value::undefined(str_cat("'dict object' has no attribute '", *name, "'"));
  }
  return get_attr(input, *name, state);
}

Result<Value> filter_wordcount(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("wordcount", args, {}));
  auto text = input_text(input, state);
  if (!text.ok()) return text.error();
  // Runs of \w characters (re.findall(r"\w+", text)).
  int64_t words = 0;
  bool in_word = false;
  for (size_t pos = 0; pos < text->size();) {
    const bool word_char = is_word_char(utf8_next(*text, pos));
    if (word_char && !in_word) ++words;
    in_word = word_char;
  }
  return Value::integer(words);
}

Result<Value> filter_tojson(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("tojson", args, {"ensure_ascii", "indent", "separators", "sort_keys"});
  if (!bound.ok()) return bound.error();
  JsonOptions options;
  options.ensure_ascii = bool_arg((*bound)[0], false);
  options.sort_keys = bool_arg((*bound)[3], false);
  if ((*bound)[1] && !(*bound)[1]->is_none()) {
    const Value& indent = *(*bound)[1];
    if (indent.is_string()) {
      options.indent = indent.as_string();
    } else if (indent.is_integer()) {
      const int64_t n = std::min<int64_t>(std::max<int64_t>(indent.as_int(), 0), 1024);
      options.indent = std::string(static_cast<size_t>(n), ' ');
    } else {
      return template_error("tojson(): indent must be an integer or a string");
    }
  }
  if ((*bound)[2] && !(*bound)[2]->is_none()) {
    const Value& separators = *(*bound)[2];
    if (!separators.is_sequence() || separators.items().size() != 2 ||
        !separators.items()[0].is_string() || !separators.items()[1].is_string()) {
      return template_error("tojson(): separators must be a pair of strings");
    }
    options.item_separator = separators.items()[0].as_string();
    options.key_separator = separators.items()[1].as_string();
  }
  auto json = to_json(input, options, state);
  if (!json.ok()) return json.error();
  return Value::string(std::move(*json));
}

// The filter table, sorted by name.
struct FilterEntry {
  std::string_view name;
  FilterFn fn;
};

constexpr FilterEntry kFilters[] = {
    {"abs", filter_abs},
    {"attr", filter_attr},
    {"batch", filter_batch},
    {"capitalize", text_filter<python_capitalize>},
    {"count", filter_length},
    {"d", filter_default},
    {"default", filter_default},
    {"dictsort", filter_dictsort},
    {"e", filter_escape},
    {"escape", filter_escape},
    {"first", filter_first},
    {"float", filter_float},
    {"forceescape", filter_escape},
    {"indent", filter_indent},
    {"int", filter_int},
    {"items", filter_items},
    {"join", filter_join},
    {"last", filter_last},
    {"length", filter_length},
    {"list", filter_list},
    {"lower", text_filter<python_lower>},
    {"map", filter_map},
    {"max", filter_max},
    {"min", filter_min},
    {"reject", filter_reject},
    {"rejectattr", filter_rejectattr},
    {"replace", filter_replace},
    {"reverse", filter_reverse},
    {"round", filter_round},
    {"safe", filter_string},
    {"select", filter_select},
    {"selectattr", filter_selectattr},
    {"sort", filter_sort},
    {"string", filter_string},
    {"sum", filter_sum},
    {"title", text_filter<title_text>},
    {"tojson", filter_tojson},
    {"trim", filter_trim},
    {"unique", filter_unique},
    {"upper", text_filter<python_upper>},
    {"wordcount", filter_wordcount},
};

const FilterEntry* find_filter(std::string_view name) {
  for (const FilterEntry& entry : kFilters) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

}  // namespace

bool is_filter(std::string_view name) {
  return find_filter(name) != nullptr;
}

Result<Value> apply_filter(std::string_view name, const Value& input, const CallArgs& args,
                           RenderState& state) {
  const FilterEntry* entry = find_filter(name);
  if (!entry) return template_error("no filter named '", name, "'");
  CPPNN_RETURN_IF_ERROR(state.charge(1));
  return entry->fn(input, args, state);
}

}  // namespace cppnn::llm::jinja
