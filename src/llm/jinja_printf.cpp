// printf-style string formatting (see jinja_printf.h), after CPython's PyUnicode_Format.
#include "src/llm/jinja_printf.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "src/llm/jinja_access.h"
#include "src/llm/jinja_format.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// One conversion specification.
struct Spec {
  bool left = false;   // '-'
  bool plus = false;   // '+'
  bool space = false;  // ' '
  bool alt = false;    // '#'
  bool zero = false;   // '0'
  int64_t width = -1;
  int64_t precision = -1;
  char conversion = 's';
};

// `sign` + `prefix` + `digits`, padded to the width as the flags ask.
std::string pad_number(const Spec& spec, const std::string& sign, const std::string& prefix,
                       std::string digits) {
  const auto length = static_cast<int64_t>(sign.size() + prefix.size() + digits.size());
  if (spec.width > length && spec.zero && !spec.left) {
    digits.insert(0, static_cast<size_t>(spec.width - length), '0');
  }
  std::string out = sign + prefix + digits;
  const auto size = static_cast<int64_t>(out.size());
  if (spec.width > size) {
    const std::string fill(static_cast<size_t>(spec.width - size), ' ');
    out = spec.left ? out + fill : fill + out;
  }
  return out;
}

std::string sign_of(bool negative, const Spec& spec) {
  if (negative) return "-";
  if (spec.plus) return "+";
  if (spec.space) return " ";
  return "";
}

// %d %i %u %x %X %o of an integer.
std::string format_integer(int64_t value, const Spec& spec) {
  const bool negative = value < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int base = 10;
  std::string prefix;
  if (spec.conversion == 'x' || spec.conversion == 'X') {
    base = 16;
    if (spec.alt) prefix = spec.conversion == 'x' ? "0x" : "0X";
  } else if (spec.conversion == 'o') {
    base = 8;
    if (spec.alt) prefix = "0o";
  }
  char buf[80];
  const auto r = std::to_chars(buf, buf + sizeof buf, magnitude, base);
  std::string digits(buf, r.ptr);
  if (spec.conversion == 'X') {
    for (char& c : digits) c = static_cast<char>(c >= 'a' && c <= 'f' ? c - 32 : c);
  }
  if (spec.precision > static_cast<int64_t>(digits.size())) {
    digits.insert(0, static_cast<size_t>(spec.precision) - digits.size(), '0');
  }
  return pad_number(spec, sign_of(negative, spec), prefix, std::move(digits));
}

// %f %F %e %E %g %G of a float.
std::string format_float(double value, const Spec& spec) {
  const bool upper = spec.conversion == 'F' || spec.conversion == 'E' || spec.conversion == 'G';
  const bool negative = std::signbit(value) && !std::isnan(value);
  std::string digits;
  if (std::isinf(value) || std::isnan(value)) {
    digits = std::isnan(value) ? "nan" : "inf";
  } else {
    const int precision =
        static_cast<int>(spec.precision < 0 ? 6 : std::min<int64_t>(spec.precision, 300));
    const char lower = static_cast<char>(spec.conversion | 0x20);
    const std::chars_format format = lower == 'f'   ? std::chars_format::fixed
                                     : lower == 'e' ? std::chars_format::scientific
                                                    : std::chars_format::general;
    char buf[512];
    const auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(value), format, precision);
    digits.assign(buf, r.ptr);
  }
  if (upper) {
    for (char& c : digits) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  }
  Spec numeric = spec;
  if (std::isinf(value) || std::isnan(value)) numeric.zero = false;
  return pad_number(numeric, sign_of(negative, spec), "", std::move(digits));
}

// %s %r %c text, cut to the precision and padded to the width (both in characters).
std::string pad_text(std::string text, const Spec& spec) {
  if (spec.precision >= 0) {
    const std::u32string cps = utf8_decode(text);
    if (static_cast<int64_t>(cps.size()) > spec.precision) {
      text = utf8_encode(std::u32string_view(cps).substr(0, static_cast<size_t>(spec.precision)));
    }
  }
  const auto length = static_cast<int64_t>(code_point_count(text));
  if (spec.width > length) {
    const std::string fill(static_cast<size_t>(spec.width - length), ' ');
    text = spec.left ? text + fill : fill + text;
  }
  return text;
}

// The text of one conversion of `arg`.
Result<std::string> convert(const Value& arg, const Spec& spec, RenderState& state) {
  switch (spec.conversion) {
    case 's':
    case 'r': {
      std::string text;
      CPPNN_RETURN_IF_ERROR(spec.conversion == 's' ? append_str(text, arg, state)
                                                   : append_repr(text, arg, state));
      return pad_text(std::move(text), spec);
    }
    case 'c': {
      if (arg.is_string() && code_point_count(arg.as_string()) == 1) {
        return pad_text(arg.as_string(), spec);
      }
      if (!arg.is_integer()) {
        return template_error("%c requires an int or a unicode character, not ", type_name(arg));
      }
      const int64_t cp = arg.as_int();
      if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return template_error("%c arg not in range(0x110000)");
      }
      std::string text;
      utf8_append(text, static_cast<char32_t>(cp));
      return pad_text(std::move(text), spec);
    }
    case 'd':
    case 'i':
    case 'u':
      if (arg.kind() == ValueKind::kFloat) {
        const double d = arg.as_double();
        if (std::isnan(d)) return template_error("cannot convert float NaN to integer");
        if (std::isinf(d)) return template_error("cannot convert float infinity to integer");
        const double t = std::trunc(d);
        if (t < -9.2233720368547758e18 || t >= 9.2233720368547758e18) {
          return template_error("%d: the number is too large (template integers are 64-bit)");
        }
        return format_integer(static_cast<int64_t>(t), spec);
      }
      if (!arg.is_integer()) {
        return template_error("%", std::string(1, spec.conversion),
                              " format: a real number is required, not ", type_name(arg));
      }
      return format_integer(arg.as_int(), spec);
    case 'x':
    case 'X':
    case 'o':
      if (!arg.is_integer()) {
        return template_error("%", std::string(1, spec.conversion),
                              " format: an integer is required, not ", type_name(arg));
      }
      return format_integer(arg.as_int(), spec);
    default:
      if (!arg.is_number()) return template_error("must be real number, not ", type_name(arg));
      return format_float(arg.as_double(), spec);
  }
}

}  // namespace

Result<Value> printf_format(const std::string& format, const Value& args, RenderState& state) {
  const bool tuple = args.kind() == ValueKind::kTuple;
  // Python treats any argument with __getitem__ (but a tuple or str) as the mapping of %(key)s.
  const bool mapping =
      args.is_dict() || args.kind() == ValueKind::kList || args.kind() == ValueKind::kUndefined;
  const int64_t arg_count = tuple ? static_cast<int64_t>(args.items().size()) : -1;
  int64_t arg_index = tuple ? 0 : -2;
  const auto next_arg = [&]() -> Result<Value> {
    if (arg_index < arg_count) {
      ++arg_index;
      return arg_count < 0 ? args : args.items()[static_cast<size_t>(arg_index - 1)];
    }
    return template_error("not enough arguments for format string");
  };
  const auto number_arg = [&](int64_t& out) -> Status {
    auto value = next_arg();
    if (!value.ok()) return value.error();
    if (!value->is_integer()) return template_error("* wants int");
    out = value->as_int();
    return Ok{};
  };
  const uint64_t limit = state.limits().max_output_bytes;
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (++i >= format.size()) return template_error("incomplete format");
    std::optional<Value> keyed;
    if (format[i] == '(') {
      if (!mapping) return template_error("format requires a mapping");
      int depth = 1;
      const size_t key_start = ++i;
      while (i < format.size() && depth > 0) {
        if (format[i] == '(') ++depth;
        if (format[i] == ')') --depth;
        ++i;
      }
      if (depth > 0) return template_error("incomplete format key");
      auto item = get_item(args, Value::string(format.substr(key_start, i - 1 - key_start)), state);
      if (!item.ok()) return item.error();
      keyed = std::move(*item);
      if (i >= format.size()) return template_error("incomplete format");
    }
    Spec spec;
    for (; i < format.size(); ++i) {
      const char f = format[i];
      if (f == '-') {
        spec.left = true;
      } else if (f == '+') {
        spec.plus = true;
      } else if (f == ' ') {
        spec.space = true;
      } else if (f == '#') {
        spec.alt = true;
      } else if (f == '0') {
        spec.zero = true;
      } else {
        break;
      }
    }
    const auto read_number = [&](int64_t& value) -> Status {
      if (i < format.size() && format[i] == '*') {
        ++i;
        return number_arg(value);
      }
      value = 0;
      bool any = false;
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
        value = value * 10 + (format[i++] - '0');
        any = true;
        if (value > static_cast<int64_t>(limit)) return template_error("width too big");
      }
      if (!any) value = -1;
      return Ok{};
    };
    CPPNN_RETURN_IF_ERROR(read_number(spec.width));
    if (spec.width < -1) {  // a negative '*' width left-justifies
      spec.left = true;
      spec.width = -spec.width;
    }
    if (i < format.size() && format[i] == '.') {
      ++i;
      CPPNN_RETURN_IF_ERROR(read_number(spec.precision));
      if (spec.precision < 0) spec.precision = 0;
    }
    if (spec.width > static_cast<int64_t>(limit) || spec.precision > static_cast<int64_t>(limit)) {
      return template_error("width or precision too big");
    }
    while (i < format.size() && (format[i] == 'h' || format[i] == 'l' || format[i] == 'L')) ++i;
    if (i >= format.size()) return template_error("incomplete format");
    spec.conversion = format[i];
    if (spec.conversion == '%') {
      out += '%';
      continue;
    }
    static constexpr std::string_view kConversions = "srcdiuxXofFeEgG";
    if (kConversions.find(spec.conversion) == std::string_view::npos) {
      size_t at = i;
      const char32_t cp = utf8_next(format, at);
      std::string shown;
      utf8_append(shown, cp);
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned>(cp));
      return template_error("unsupported format character '", shown, "' (", hex, ") at index ",
                            code_point_count(std::string_view(format).substr(0, i)));
    }
    Value arg;
    if (keyed) {
      arg = *keyed;
    } else {
      auto value = next_arg();
      if (!value.ok()) return value.error();
      arg = std::move(*value);
    }
    auto text = convert(arg, spec, state);
    if (!text.ok()) return text.error();
    out += *text;
    if (out.size() > limit) return template_error("the formatted string is too large");
  }
  if (arg_index < arg_count && !mapping) {
    return template_error("not all arguments converted during string formatting");
  }
  CPPNN_RETURN_IF_ERROR(state.charge_string(out.size()));
  return Value::string(std::move(out));
}

}  // namespace cppnn::llm::jinja
