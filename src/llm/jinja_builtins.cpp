// Argument binding for the builtins (see jinja_builtins.h).
#include "src/llm/jinja_builtins.h"

#include "src/llm/jinja_state.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

Result<std::vector<std::optional<Value>>> bind_args(
    std::string_view function, const CallArgs& args,
    std::initializer_list<std::string_view> params) {
  std::vector<std::optional<Value>> bound(params.size());
  if (args.positional.size() > params.size()) {
    return template_error(function, "() takes at most ", params.size(), " argument(s) (",
                          args.positional.size(), " given)");
  }
  for (size_t i = 0; i < args.positional.size(); ++i) bound[i] = args.positional[i];
  for (const auto& [name, value] : args.keywords) {
    size_t index = 0;
    for (std::string_view param : params) {
      if (param == name) break;
      ++index;
    }
    if (index == params.size()) {
      return template_error(function, "() got an unexpected keyword argument '", name, "'");
    }
    if (bound[index]) {
      return template_error(function, "() got multiple values for argument '", name, "'");
    }
    bound[index] = value;
  }
  return bound;
}

Result<int64_t> int_arg(const std::optional<Value>& arg, std::string_view name, int64_t fallback) {
  if (!arg) return fallback;
  if (!arg->is_integer()) {
    return template_error("argument '", name, "' must be an integer, not ", type_name(*arg));
  }
  return arg->as_int();
}

Result<std::optional<std::string>> string_arg(const std::optional<Value>& arg,
                                              std::string_view name,
                                              std::optional<std::string> fallback, bool none_ok) {
  if (!arg) return fallback;
  if (none_ok && arg->is_none()) return std::optional<std::string>();
  if (!arg->is_string()) {
    return template_error("argument '", name, "' must be a string, not ", type_name(*arg));
  }
  return std::optional<std::string>(arg->as_string());
}

Result<std::vector<Value>> python_iterate(const Value& value, RenderState& state) {
  std::vector<Value> items;
  switch (value.kind()) {
    case ValueKind::kUndefined:
      return items;
    case ValueKind::kList:
    case ValueKind::kTuple:
      return value.items();
    case ValueKind::kDict:
      CPPNN_RETURN_IF_ERROR(state.charge_container(value.as_dict().size()));
      for (const auto& [key, item] : value.as_dict().entries()) items.push_back(key);
      return items;
    case ValueKind::kString: {
      const std::string& text = value.as_string();
      CPPNN_RETURN_IF_ERROR(state.charge_container(text.size()));
      for (size_t pos = 0; pos < text.size();) {
        std::string ch;
        utf8_append(ch, utf8_next(text, pos));
        items.push_back(Value::string(std::move(ch)));
      }
      return items;
    }
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kNamespace:
    case ValueKind::kLoop:
    case ValueKind::kCallable:
      break;
  }
  return template_error("'", type_name(value), "' object is not iterable");
}

bool bool_arg(const std::optional<Value>& arg, bool fallback) {
  return arg ? truthy(*arg) : fallback;
}

}  // namespace cppnn::llm::jinja
