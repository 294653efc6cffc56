// Global functions (see jinja_globals.h).
#include "src/llm/jinja_globals.h"

#include <ctime>

#include "src/llm/jinja_format.h"

namespace cppnn::llm::jinja {

namespace {

constexpr std::string_view kGlobals[] = {"range", "namespace", "dict", "raise_exception",
                                         "strftime_now"};

// range(stop) or range(start, stop[, step]) as a list, within the sandbox's MAX_RANGE.
Result<Value> range(const CallArgs& args, RenderState& state) {
  if (!args.keywords.empty()) return template_error("range() takes no keyword arguments");
  const size_t n = args.positional.size();
  if (n < 1 || n > 3) return template_error("range expected 1 to 3 arguments, got ", n);
  for (const Value& v : args.positional) {
    if (!v.is_integer()) {
      if (v.is_undefined()) return template_error(v.undefined_message());
      return template_error("'", type_name(v), "' object cannot be interpreted as an integer");
    }
  }
  const int64_t start = n == 1 ? 0 : args.positional[0].as_int();
  const int64_t stop = n == 1 ? args.positional[0].as_int() : args.positional[1].as_int();
  const int64_t step = n == 3 ? args.positional[2].as_int() : 1;
  if (step == 0) return template_error("range() arg 3 must not be zero");
  // The length, in unsigned arithmetic so that no bound can overflow.
  uint64_t count = 0;
  if (step > 0 && start < stop) {
    const uint64_t span = static_cast<uint64_t>(stop) - static_cast<uint64_t>(start);
    count = (span - 1) / static_cast<uint64_t>(step) + 1;
  } else if (step < 0 && start > stop) {
    const uint64_t span = static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
    const uint64_t magnitude = static_cast<uint64_t>(-(step + 1)) + 1;
    count = (span - 1) / magnitude + 1;
  }
  if (count > kMaxRange) {
    return template_error("Range too big. The sandbox blocks ranges larger than MAX_RANGE (",
                          kMaxRange, ").");
  }
  CPPNN_RETURN_IF_ERROR(state.charge_container(count));
  std::vector<Value> items;
  items.reserve(count);
  int64_t value = start;
  for (uint64_t i = 0; i < count; ++i) {
    items.push_back(Value::integer(value));
    if (i + 1 < count) value += step;  // stays between start and stop
  }
  return Value::list(std::move(items));
}

// dict(*args, **kwargs): a mapping or an iterable of pairs, then keyword entries.
Result<Dict> make_dict(std::string_view function, const CallArgs& args, RenderState& state) {
  if (args.positional.size() > 1) {
    return template_error(function, " expected at most 1 argument, got ", args.positional.size());
  }
  Dict dict;
  if (!args.positional.empty()) {
    const Value& source = args.positional.front();
    if (source.is_dict()) {
      dict = source.as_dict();
    } else if (source.is_sequence()) {
      for (const Value& pair : source.items()) {
        if (!pair.is_sequence() || pair.items().size() != 2) {
          return template_error(function,
                                ": every element of the sequence must be a pair (key, value)");
        }
        if (!Dict::hashable(pair.items()[0])) {
          return template_error("unhashable type: '", type_name(pair.items()[0]), "'");
        }
        dict.set(pair.items()[0], pair.items()[1]);
      }
    } else if (!source.is_undefined()) {
      return template_error("'", type_name(source), "' object is not iterable");
    }
  }
  for (const auto& [name, value] : args.keywords) dict.set(Value::string(name), value);
  CPPNN_RETURN_IF_ERROR(state.charge_container(dict.size()));
  return dict;
}

Result<Value> make_namespace(const CallArgs& args, RenderState& state) {
  auto dict = make_dict("namespace", args, state);
  if (!dict.ok()) return dict.error();
  Namespace* ns = state.new_namespace();
  for (const auto& [key, value] : dict->entries()) {
    if (!key.is_string()) return template_error("namespace(): attribute names must be strings");
    if (holds_reference(value) || value.depth() > state.limits().max_value_depth) {
      return template_error(
          "namespace(): a namespace, loop, macro or too deeply nested value cannot be stored in "
          "a namespace");
    }
    ns->attributes.set(key, value);
  }
  return Value::namespace_ref(ns);
}

constexpr const char* kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "Saturday"};
constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};

// strftime for the directives chat templates use: %a %A %b %B %d %e %H %I %j %m %M %p %S %y %Y
// %%, and glibc's `-` flag (no padding, "%-d").
Result<std::string> format_time(const std::string& format, const std::tm& tm) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (++i >= format.size()) return template_error("strftime_now(): the format ends with '%'");
    bool pad = true;
    if (format[i] == '-') {
      pad = false;
      if (++i >= format.size()) return template_error("strftime_now(): the format ends with '%-'");
    }
    const auto number = [&](int value, int width) {
      std::string digits = std::to_string(value);
      if (pad && static_cast<int>(digits.size()) < width) {
        digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
      }
      out += digits;
    };
    switch (format[i]) {
      case 'a':
        out += std::string(kWeekdays[tm.tm_wday % 7]).substr(0, 3);
        break;
      case 'A':
        out += kWeekdays[tm.tm_wday % 7];
        break;
      case 'b':
      case 'h':
        out += std::string(kMonths[tm.tm_mon % 12]).substr(0, 3);
        break;
      case 'B':
        out += kMonths[tm.tm_mon % 12];
        break;
      case 'd':
        number(tm.tm_mday, 2);
        break;
      case 'e': {
        std::string digits = std::to_string(tm.tm_mday);
        if (pad && digits.size() < 2) digits.insert(0, " ");
        out += digits;
        break;
      }
      case 'H':
        number(tm.tm_hour, 2);
        break;
      case 'I':
        number(tm.tm_hour % 12 == 0 ? 12 : tm.tm_hour % 12, 2);
        break;
      case 'j':
        number(tm.tm_yday + 1, 3);
        break;
      case 'm':
        number(tm.tm_mon + 1, 2);
        break;
      case 'M':
        number(tm.tm_min, 2);
        break;
      case 'p':
        out += tm.tm_hour < 12 ? "AM" : "PM";
        break;
      case 'S':
        number(tm.tm_sec, 2);
        break;
      case 'y':
        number((tm.tm_year + 1900) % 100, 2);
        break;
      case 'Y':
        out += std::to_string(tm.tm_year + 1900);
        break;
      case '%':
        out += '%';
        break;
      default:
        return template_error("strftime_now(): the directive %", std::string(1, format[i]),
                              " is not supported");
    }
  }
  return out;
}

Result<Value> strftime_now(const CallArgs& args, RenderState& state) {
  auto bound = bind_args("strftime_now", args, {"format"});
  if (!bound.ok()) return bound.error();
  auto format = string_arg((*bound)[0], "format", std::nullopt);
  if (!format.ok()) return format.error();
  if (!*format) return template_error("strftime_now() missing 1 required argument: 'format'");
  const auto now = static_cast<std::time_t>(state.now_unix_seconds());
  std::tm tm{};
  if (!localtime_r(&now, &tm)) return template_error("strftime_now(): the time is out of range");
  auto text = format_time(**format, tm);
  if (!text.ok()) return text.error();
  CPPNN_RETURN_IF_ERROR(state.charge_string(text->size()));
  return Value::string(std::move(*text));
}

}  // namespace

bool is_global(std::string_view name) {
  for (std::string_view global : kGlobals) {
    if (global == name) return true;
  }
  return false;
}

Result<Value> call_global(std::string_view name, const CallArgs& args, RenderState& state) {
  if (name == "range") return range(args, state);
  if (name == "namespace") return make_namespace(args, state);
  if (name == "dict") {
    auto dict = make_dict("dict", args, state);
    if (!dict.ok()) return dict.error();
    return Value::dict(std::move(*dict));
  }
  if (name == "raise_exception") {
    auto bound = bind_args("raise_exception", args, {"message"});
    if (!bound.ok()) return bound.error();
    std::string message;
    if ((*bound)[0]) {
      auto text = to_str(*(*bound)[0], state);
      if (!text.ok()) return text.error();
      message = std::move(*text);
    }
    return template_error("the template raised an error: ", message);
  }
  if (name == "strftime_now") return strftime_now(args, state);
  return template_error("'", name, "' is undefined");
}

}  // namespace cppnn::llm::jinja
