// Methods of template values (see jinja_methods.h).
#include "src/llm/jinja_methods.h"

#include <algorithm>
#include <array>

#include "src/llm/jinja_format.h"
#include "src/llm/jinja_operators.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

constexpr std::array<std::string_view, 31> kStringMethods = {
    "strip",        "lstrip",       "rstrip",  "split",   "rsplit",     "splitlines", "startswith",
    "endswith",     "upper",        "lower",   "title",   "capitalize", "casefold",   "swapcase",
    "replace",      "find",         "rfind",   "index",   "rindex",     "count",      "join",
    "isdigit",      "isalpha",      "isalnum", "isspace", "isupper",    "islower",    "format",
    "removeprefix", "removesuffix", "zfill"};
constexpr std::array<std::string_view, 4> kDictMethods = {"items", "keys", "values", "get"};
constexpr std::array<std::string_view, 2> kSequenceMethods = {"index", "count"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The code point range [begin, end) that optional Python start/end arguments select in a text
// of `length` code points (slice rules, step 1).
std::pair<size_t, size_t> text_range(const std::optional<Value>& start,
                                     const std::optional<Value>& end, size_t length) {
  const auto n = static_cast<int64_t>(length);
  const auto adjust = [n](const std::optional<Value>& v, int64_t fallback) {
    if (!v || !v->is_integer()) return fallback;
    int64_t i = v->as_int();
    if (i < 0) i = std::max<int64_t>(i + n, 0);
    return std::min(i, n);
  };
  const int64_t b = adjust(start, 0);
  const int64_t e = adjust(end, n);
  return {static_cast<size_t>(b), static_cast<size_t>(std::max(b, e))};
}

// Checks that optional start/end arguments are integers or None.
Status check_range_args(std::string_view method, const std::optional<Value>& start,
                        const std::optional<Value>& end) {
  for (const auto* v : {&start, &end}) {
    if (*v && !(*v)->is_integer() && !(*v)->is_none()) {
      return template_error(method, "(): slice indices must be integers or None");
    }
  }
  return Ok{};
}

// The strings a startswith/endswith argument offers: a str or a tuple of str.
Result<std::vector<std::u32string>> affixes(std::string_view method, const Value& arg) {
  std::vector<std::u32string> out;
  if (arg.is_string()) {
    out.push_back(utf8_decode(arg.as_string()));
    return out;
  }
  if (arg.kind() == ValueKind::kTuple) {
    for (const Value& item : arg.items()) {
      if (!item.is_string()) {
        return template_error("tuple for ", method, " must only contain str, not ",
                              type_name(item));
      }
      out.push_back(utf8_decode(item.as_string()));
    }
    return out;
  }
  return template_error(method, " first arg must be str or a tuple of str, not ", type_name(arg));
}

Value string_list(std::vector<std::string> parts) {
  std::vector<Value> items;
  items.reserve(parts.size());
  for (std::string& part : parts) items.push_back(Value::string(std::move(part)));
  return Value::list(std::move(items));
}

// True when every character satisfies `pred` and there is at least one.
template <class Pred>
Value all_chars(const std::string& text, Pred pred) {
  const std::u32string cps = utf8_decode(text);
  return Value::boolean(!cps.empty() && std::all_of(cps.begin(), cps.end(), pred));
}

bool is_ascii_digit(char32_t cp) {
  return cp >= '0' && cp <= '9';
}
bool is_letter(char32_t cp) {
  // Letters by the case tables, plus the scripts without case that chat text commonly uses
  // (CJK, kana, Hangul, Arabic, Hebrew, Devanagari, Thai).
  return is_cased(cp) || cp == 0x00AA || cp == 0x00BA || (cp >= 0x0590 && cp <= 0x06FF) ||
         (cp >= 0x0900 && cp <= 0x0E7F) || (cp >= 0x3040 && cp <= 0x30FF) ||
         (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3);
}

// str.format with automatic ({}), numbered ({0}) and named ({name}) fields, !s/!r conversions,
// and {{ }} escapes. Format specifications and field attribute access are not supported.
Result<Value> format_string(const std::string& text, const CallArgs& args, RenderState& state) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      return template_error("format(): single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    const size_t close = text.find('}', i);
    if (close == std::string::npos) {
      return template_error("format(): single '{' encountered in format string");
    }
    std::string field = text.substr(i + 1, close - i - 1);
    i = close;
    bool repr = false;
    if (const size_t bang = field.find('!'); bang != std::string::npos) {
      const std::string conversion = field.substr(bang + 1);
      if (conversion != "r" && conversion != "s") {
        return template_error("format(): unknown conversion '", conversion, "'");
      }
      repr = conversion == "r";
      field.resize(bang);
    }
    if (field.find_first_of(":.[") != std::string::npos) {
      return template_error("format(): format specifications and field access are not supported");
    }
    const Value* value = nullptr;
    if (field.empty()) {
      if (auto_index >= args.positional.size()) {
        return template_error("format(): replacement index ", auto_index,
                              " out of range for positional args tuple");
      }
      value = &args.positional[auto_index++];
    } else if (field.find_first_not_of("0123456789") == std::string::npos && field.size() < 9) {
      const size_t index = std::stoul(field);
      if (index >= args.positional.size()) {
        return template_error("format(): replacement index ", index,
                              " out of range for positional args tuple");
      }
      value = &args.positional[index];
    } else {
      for (const auto& [name, v] : args.keywords) {
        if (name == field) value = &v;
      }
      if (!value) return template_error("format(): missing keyword argument '", field, "'");
    }
    CPPNN_RETURN_IF_ERROR(repr ? append_repr(out, *value, state) : append_str(out, *value, state));
  }
  CPPNN_RETURN_IF_ERROR(state.charge_string(out.size()));
  return Value::string(std::move(out));
}

Result<Value> call_string_method(const std::string& text, std::string_view name,
                                 const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(state.charge_string(text.size()));
  const std::string method = str_cat("str.", name);
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    auto bound = bind_args(method, args, {"chars"});
    if (!bound.ok()) return bound.error();
    auto chars = string_arg((*bound)[0], "chars", std::nullopt, true);
    if (!chars.ok()) return chars.error();
    const std::optional<std::string_view> set =
        *chars ? std::optional<std::string_view>(**chars) : std::nullopt;
    return Value::string(python_strip(text, name != "rstrip", name != "lstrip", set));
  }
  if (name == "split" || name == "rsplit") {
    auto bound = bind_args(method, args, {"sep", "maxsplit"});
    if (!bound.ok()) return bound.error();
    auto sep = string_arg((*bound)[0], "sep", std::nullopt, true);
    if (!sep.ok()) return sep.error();
    auto maxsplit = int_arg((*bound)[1], "maxsplit", -1);
    if (!maxsplit.ok()) return maxsplit.error();
    if (*sep && (*sep)->empty()) return template_error("empty separator");
    const std::optional<std::string_view> s =
        *sep ? std::optional<std::string_view>(**sep) : std::nullopt;
    auto parts =
        name == "split" ? python_split(text, s, *maxsplit) : python_rsplit(text, s, *maxsplit);
    CPPNN_RETURN_IF_ERROR(state.charge_container(parts.size()));
    return string_list(std::move(parts));
  }
  if (name == "splitlines") {
    auto bound = bind_args(method, args, {"keepends"});
    if (!bound.ok()) return bound.error();
    auto lines = python_splitlines(text, bool_arg((*bound)[0], false));
    CPPNN_RETURN_IF_ERROR(state.charge_container(lines.size()));
    return string_list(std::move(lines));
  }
  if (name == "startswith" || name == "endswith") {
    auto bound = bind_args(method, args, {"prefix", "start", "end"});
    if (!bound.ok()) return bound.error();
    if (!(*bound)[0]) return template_error(method, "() takes at least 1 argument (0 given)");
    CPPNN_RETURN_IF_ERROR(check_range_args(method, (*bound)[1], (*bound)[2]));
    auto options = affixes(name, *(*bound)[0]);
    if (!options.ok()) return options.error();
    const std::u32string cps = utf8_decode(text);
    const auto [b, e] = text_range((*bound)[1], (*bound)[2], cps.size());
    const std::u32string_view range = std::u32string_view(cps).substr(b, e - b);
    for (const std::u32string& affix : *options) {
      if (affix.size() > range.size()) continue;
      const bool match = name == "startswith" ? range.substr(0, affix.size()) == affix
                                              : range.substr(range.size() - affix.size()) == affix;
      if (match) return Value::boolean(true);
    }
    return Value::boolean(false);
  }
  if (name == "upper") return Value::string(python_upper(text));
  if (name == "lower" || name == "casefold") return Value::string(python_lower(text));
  if (name == "title") return Value::string(python_title(text));
  if (name == "capitalize") return Value::string(python_capitalize(text));
  if (name == "swapcase") {
    std::string out;
    for (size_t p = 0; p < text.size();) {
      const char32_t cp = utf8_next(text, p);
      std::string one;
      utf8_append(one, cp);
      out += is_upper(cp) ? python_lower(one) : (is_lower(cp) ? python_upper(one) : one);
    }
    return Value::string(std::move(out));
  }
  if (name == "replace") {
    auto bound = bind_args(method, args, {"old", "new", "count"});
    if (!bound.ok()) return bound.error();
    auto old_text = string_arg((*bound)[0], "old", std::nullopt);
    auto new_text = string_arg((*bound)[1], "new", std::nullopt);
    auto count = int_arg((*bound)[2], "count", -1);
    if (!old_text.ok()) return old_text.error();
    if (!new_text.ok()) return new_text.error();
    if (!count.ok()) return count.error();
    if (!*old_text || !*new_text) return template_error("replace() takes at least 2 arguments");
    auto replaced =
        python_replace(text, **old_text, **new_text, *count, state.limits().max_output_bytes);
    if (!replaced) return template_error("replace(): the result is too large");
    CPPNN_RETURN_IF_ERROR(state.charge_string(replaced->size()));
    return Value::string(std::move(*replaced));
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
    auto bound = bind_args(method, args, {"sub", "start", "end"});
    if (!bound.ok()) return bound.error();
    auto sub = string_arg((*bound)[0], "sub", std::nullopt);
    if (!sub.ok()) return sub.error();
    if (!*sub) return template_error(method, "() takes at least 1 argument (0 given)");
    CPPNN_RETURN_IF_ERROR(check_range_args(method, (*bound)[1], (*bound)[2]));
    const std::u32string cps = utf8_decode(text);
    const std::u32string needle = utf8_decode(**sub);
    const auto [b, e] = text_range((*bound)[1], (*bound)[2], cps.size());
    const std::u32string_view range = std::u32string_view(cps).substr(b, e - b);
    CPPNN_RETURN_IF_ERROR(state.charge(range.size() * (needle.size() + 1) / 16));
    if (name == "count") {
      if (needle.empty()) return Value::integer(static_cast<int64_t>(range.size() + 1));
      int64_t n = 0;
      for (size_t at = range.find(needle); at != std::u32string_view::npos;
           at = range.find(needle, at + needle.size())) {
        ++n;
      }
      return Value::integer(n);
    }
    const size_t at =
        (name == "find" || name == "index") ? range.find(needle) : range.rfind(needle);
    if (at == std::u32string_view::npos) {
      if (name == "index" || name == "rindex") return template_error("substring not found");
      return Value::integer(-1);
    }
    return Value::integer(static_cast<int64_t>(b + at));
  }
  if (name == "join") {
    auto bound = bind_args(method, args, {"iterable"});
    if (!bound.ok()) return bound.error();
    if (!(*bound)[0]) return template_error("join() takes exactly one argument (0 given)");
    const Value& iterable = *(*bound)[0];
    std::vector<Value> items;
    if (iterable.is_sequence()) {
      items = iterable.items();
    } else if (iterable.is_dict()) {
      for (const auto& [key, value] : iterable.as_dict().entries()) items.push_back(key);
    } else if (iterable.is_string()) {
      for (size_t p = 0; p < iterable.as_string().size();) {
        std::string ch;
        utf8_append(ch, utf8_next(iterable.as_string(), p));
        items.push_back(Value::string(std::move(ch)));
      }
    } else if (!iterable.is_undefined()) {
      return template_error("can only join an iterable");
    }
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) {
        return template_error("sequence item ", i, ": expected str instance, ", type_name(items[i]),
                              " found");
      }
      if (i > 0) out += text;
      out += items[i].as_string();
      CPPNN_RETURN_IF_ERROR(state.charge_string(out.size()));
    }
    return Value::string(std::move(out));
  }
  if (name == "isdigit") return all_chars(text, is_ascii_digit);
  if (name == "isalpha") return all_chars(text, is_letter);
  if (name == "isalnum") {
    return all_chars(text, [](char32_t cp) { return is_letter(cp) || is_ascii_digit(cp); });
  }
  if (name == "isspace") return all_chars(text, is_python_space);
  if (name == "isupper" || name == "islower") {
    const std::u32string cps = utf8_decode(text);
    bool any_cased = false;
    for (char32_t cp : cps) {
      if (!is_cased(cp)) continue;
      any_cased = true;
      if (name == "isupper" ? is_lower(cp) : is_upper(cp)) return Value::boolean(false);
    }
    return Value::boolean(any_cased);
  }
  if (name == "format") return format_string(text, args, state);
  if (name == "removeprefix" || name == "removesuffix") {
    auto bound = bind_args(method, args, {"affix"});
    if (!bound.ok()) return bound.error();
    auto affix = string_arg((*bound)[0], "affix", std::nullopt);
    if (!affix.ok()) return affix.error();
    if (!*affix) return template_error(method, "() takes exactly one argument (0 given)");
    const std::string& a = **affix;
    if (name == "removeprefix" && text.compare(0, a.size(), a) == 0) {
      return Value::string(text.substr(a.size()));
    }
    if (name == "removesuffix" && !a.empty() && text.size() >= a.size() &&
        text.compare(text.size() - a.size(), a.size(), a) == 0) {
      return Value::string(text.substr(0, text.size() - a.size()));
    }
    return Value::string(text);
  }
  if (name == "zfill") {
    auto bound = bind_args(method, args, {"width"});
    if (!bound.ok()) return bound.error();
    auto width = int_arg((*bound)[0], "width", 0);
    if (!width.ok()) return width.error();
    const std::u32string cps = utf8_decode(text);
    const int64_t fill =
        std::min<int64_t>(*width, static_cast<int64_t>(state.limits().max_output_bytes)) -
        static_cast<int64_t>(cps.size());
    if (fill <= 0) return Value::string(text);
    CPPNN_RETURN_IF_ERROR(state.charge_string(text.size() + static_cast<uint64_t>(fill)));
    const size_t sign = !cps.empty() && (cps[0] == '+' || cps[0] == '-') ? 1 : 0;
    return Value::string(text.substr(0, sign) + std::string(static_cast<size_t>(fill), '0') +
                         text.substr(sign));
  }
  return template_error("'str' object has no attribute '", name, "'");
}

Result<Value> call_dict_method(const Dict& dict, std::string_view name, const CallArgs& args,
                               RenderState& state) {
  const std::string method = str_cat("dict.", name);
  if (name == "get") {
    auto bound = bind_args(method, args, {"key", "default"});
    if (!bound.ok()) return bound.error();
    if (!(*bound)[0]) return template_error("get expected at least 1 argument, got 0");
    if (!Dict::hashable(*(*bound)[0])) {
      return template_error("unhashable type: '", type_name(*(*bound)[0]), "'");
    }
    if (const Value* value = dict.find(*(*bound)[0])) return *value;
    return (*bound)[1] ? *(*bound)[1] : Value::none();
  }
  auto bound = bind_args(method, args, {});
  if (!bound.ok()) return bound.error();
  CPPNN_RETURN_IF_ERROR(state.charge_container(dict.size()));
  std::vector<Value> items;
  items.reserve(dict.size());
  for (const auto& [key, value] : dict.entries()) {
    if (name == "items") {
      items.push_back(Value::tuple({key, value}));
    } else {
      items.push_back(name == "keys" ? key : value);
    }
  }
  return Value::list(std::move(items));
}

Result<Value> call_sequence_method(const Value& self, std::string_view name, const CallArgs& args,
                                   RenderState& state) {
  auto bound = bind_args(str_cat(type_name(self), ".", name), args, {"value"});
  if (!bound.ok()) return bound.error();
  if (!(*bound)[0]) return template_error(name, "() takes exactly one argument (0 given)");
  int64_t count = 0;
  for (size_t i = 0; i < self.items().size(); ++i) {
    auto equal = python_equal(self.items()[i], *(*bound)[0], state);
    if (!equal.ok()) return equal.error();
    if (!*equal) continue;
    if (name == "index") return Value::integer(static_cast<int64_t>(i));
    ++count;
  }
  if (name == "index") return template_error("the value is not in the ", type_name(self));
  return Value::integer(count);
}

}  // namespace

bool has_method(const Value& self, std::string_view name) {
  switch (self.kind()) {
    case ValueKind::kString:
      return contains(kStringMethods, name);
    case ValueKind::kDict:
      return contains(kDictMethods, name);
    case ValueKind::kList:
    case ValueKind::kTuple:
      return contains(kSequenceMethods, name);
    case ValueKind::kLoop:
      return name == "cycle";
    default:
      return false;
  }
}

Result<Value> call_method(const Value& self, std::string_view name, const CallArgs& args,
                          RenderState& state) {
  switch (self.kind()) {
    case ValueKind::kString:
      return call_string_method(self.as_string(), name, args, state);
    case ValueKind::kDict:
      return call_dict_method(self.as_dict(), name, args, state);
    case ValueKind::kList:
    case ValueKind::kTuple:
      return call_sequence_method(self, name, args, state);
    case ValueKind::kLoop: {
      if (args.positional.empty()) return template_error("no items for cycling given");
      const size_t index = self.as_loop().index0 % args.positional.size();
      return args.positional[index];
    }
    default:
      break;
  }
  return template_error("'", type_name(self), "' object has no attribute '", name, "'");
}

}  // namespace cppnn::llm::jinja
