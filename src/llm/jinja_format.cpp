// str() and repr() of template values (see jinja_format.h).
#include "src/llm/jinja_format.h"

#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// Appends `text`, within the byte limit.
Status append_checked(std::string& out, std::string_view text, RenderState& state) {
  if (out.size() + text.size() > state.limits().max_output_bytes) {
    return template_error("the text exceeds the limit of ", state.limits().max_output_bytes,
                          " bytes");
  }
  CPPNN_RETURN_IF_ERROR(state.charge(1 + text.size() / 16));
  out.append(text);
  return Ok{};
}

// Appends str(value) (repr = false) or repr(value) (repr = true).
Status append_value(std::string& out, const Value& value, bool repr, RenderState& state) {
  switch (value.kind()) {
    case ValueKind::kUndefined:
      return append_checked(out, repr ? "Undefined" : "", state);
    case ValueKind::kNone:
      return append_checked(out, "None", state);
    case ValueKind::kBool:
      return append_checked(out, value.as_bool() ? "True" : "False", state);
    case ValueKind::kInt:
      return append_checked(out, std::to_string(value.as_int()), state);
    case ValueKind::kFloat:
      return append_checked(out, python_float_repr(value.as_double()), state);
    case ValueKind::kString:
      return append_checked(out, repr ? python_repr(value.as_string()) : value.as_string(), state);
    case ValueKind::kList:
    case ValueKind::kTuple: {
      const bool tuple = value.kind() == ValueKind::kTuple;
      CPPNN_RETURN_IF_ERROR(append_checked(out, tuple ? "(" : "[", state));
      const auto& items = value.items();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) CPPNN_RETURN_IF_ERROR(append_checked(out, ", ", state));
        CPPNN_RETURN_IF_ERROR(append_value(out, items[i], true, state));
      }
      if (tuple && items.size() == 1) CPPNN_RETURN_IF_ERROR(append_checked(out, ",", state));
      return append_checked(out, tuple ? ")" : "]", state);
    }
    case ValueKind::kDict:
    case ValueKind::kNamespace: {
      const bool ns = value.kind() == ValueKind::kNamespace;
      const Dict& dict = ns ? value.as_namespace()->attributes : value.as_dict();
      CPPNN_RETURN_IF_ERROR(append_checked(out, ns ? "<Namespace {" : "{", state));
      bool first = true;
      for (const auto& [key, item] : dict.entries()) {
        if (!first) CPPNN_RETURN_IF_ERROR(append_checked(out, ", ", state));
        first = false;
        CPPNN_RETURN_IF_ERROR(append_value(out, key, true, state));
        CPPNN_RETURN_IF_ERROR(append_checked(out, ": ", state));
        CPPNN_RETURN_IF_ERROR(append_value(out, item, true, state));
      }
      return append_checked(out, ns ? "}>" : "}", state);
    }
    case ValueKind::kLoop: {
      const LoopInfo& loop = value.as_loop();
      return append_checked(
          out, str_cat("<LoopContext ", loop.index0 + 1, "/", loop.items->size(), ">"), state);
    }
    case ValueKind::kCallable: {
      const Callable& callable = value.as_callable();
      switch (callable.kind) {
        case CallableKind::kGlobal:
          return append_checked(out, str_cat("<function ", callable.name, ">"), state);
        case CallableKind::kMethod:
          return append_checked(out,
                                str_cat("<built-in method ", callable.name, " of ",
                                        type_name(callable.self), " object>"),
                                state);
        case CallableKind::kMacro:
          return append_checked(out, str_cat("<Macro ", python_repr(callable.name), ">"), state);
      }
      break;
    }
  }
  return Ok{};
}

}  // namespace

Status append_str(std::string& out, const Value& value, RenderState& state) {
  return append_value(out, value, false, state);
}

Status append_repr(std::string& out, const Value& value, RenderState& state) {
  return append_value(out, value, true, state);
}

Result<std::string> to_str(const Value& value, RenderState& state) {
  std::string out;
  CPPNN_RETURN_IF_ERROR(append_str(out, value, state));
  return out;
}

}  // namespace cppnn::llm::jinja
