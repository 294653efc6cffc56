// cppnn-stubgen TEMPLATE OUTPUT: writes the type stub of cppnn._cppnn, the hand-written TEMPLATE
// with its `# @OPS@` line replaced by one method per builder operation (spec name and snake_case
// alias), each with its positional parameters (bindings/op_signatures.h) and its keyword options,
// typed and defaulted from the options struct's reflection (options.h).
#include <charconv>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cppnn/enums.h"
#include "cppnn/op_type.h"
#include "cppnn/options.h"
#include "cppnn/reflect.h"
#include "generated_file.h"
#include "op_signatures.h"

namespace cppnn::py {

using bindings::camel_to_snake;
using bindings::op_signatures;
using bindings::OpSignature;
using bindings::Param;
using bindings::ParamKind;
namespace {

// One keyword option: name, Python type and default, as stub text.
struct StubOption {
  std::string name, type, default_value;
};

template <class T>
struct IsOptionalList : std::false_type {};
template <class T>
struct IsOptionalList<OptionalList<T>> : std::true_type {
  using Element = T;
};
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {
  using Element = T;
};
template <class T>
concept SpecEnum = requires {
  EnumStrings<T>::values;
};

// Python's repr of a float ("1e-05", "0.5", "1.0").
std::string float_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// The Python type of an option field of C++ type T.
template <class T>
std::string py_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_same_v<T, MLOperandDataType>) {
    return "DataType";
  } else if constexpr (SpecEnum<T>) {
    std::string s = "Literal[";
    bool first = true;
    for (const auto& [value, name] : EnumStrings<T>::values) {
      s += (first ? "\"" : ", \"") + std::string(name) + "\"";
      first = false;
    }
    return s + "]";
  } else if constexpr (std::is_integral_v<T>) {
    return "int";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "float";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "str";
  } else if constexpr (std::is_same_v<T, MLNumber>) {
    return "float | int";
  } else if constexpr (std::is_same_v<T, MLOperand>) {
    return "MLOperand";
  } else if constexpr (IsOptional<T>::value) {
    return py_type<typename IsOptional<T>::Element>() + " | None";
  } else if constexpr (IsOptionalList<T>::value) {
    return "Sequence[" + py_type<typename IsOptionalList<T>::Element>() + "] | None";
  } else {
    static_assert(!sizeof(T), "stubgen: no Python type for this option field type");
  }
}

// The stub default of an option field holding `v` (the spec default).
template <class T>
std::string py_default(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_same_v<T, MLOperandDataType> || SpecEnum<T>) {
    return "\"" + std::string(enum_to_string(v)) + "\"";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return float_text(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "\"" + v + "\"";
  } else if constexpr (std::is_same_v<T, MLNumber>) {
    return v.kind() == MLNumber::Kind::kDouble ? float_text(v.as_double())
                                               : std::to_string(v.raw_int64());
  } else {
    return "None";  // optional values and lists: absent
  }
}

// The keyword options of options struct O.
template <class O>
std::vector<StubOption> stub_options() {
  std::vector<StubOption> out;
  const O defaults{};
  reflect::for_each_field<O>([&](auto field) {
    using M = typename decltype(field)::type;
    out.push_back({std::string(field.name), py_type<M>(), py_default(defaults.*(field.member))});
  });
  return out;
}

// The stub text of a positional parameter kind.
std::string param_type(ParamKind kind) {
  switch (kind) {
    case ParamKind::kOperand:
      return "MLOperand";
    case ParamKind::kOperandList:
      return "Sequence[MLOperand]";
    case ParamKind::kUnsignedLong:
      return "int";
    case ParamKind::kDataType:
      return "DataType";
    case ParamKind::kUnsignedLongList:
      return "Sequence[int]";
    case ParamKind::kSplits:
      return "int | Sequence[int]";
  }
  return "object";
}

std::string snake(const std::string& name, bool use_snake) {
  return use_snake ? camel_to_snake(name) : name;
}

// One method of the stub (spec names or snake_case names).
void write_method(std::ostream& out, const OpSignature& op, const std::vector<StubOption>& options,
                  bool use_snake) {
  out << "    def " << (use_snake ? op.snake_name : op.name) << "(\n        self,\n";
  for (const Param& p : op.params)
    out << "        " << snake(p.name, use_snake) << ": " << param_type(p.kind) << ",\n";
  out << "        options: Mapping[str, Any] | None = None,\n        *,\n";
  for (const StubOption& o : options)
    out << "        " << snake(o.name, use_snake) << ": " << o.type << " = " << o.default_value
        << ",\n";
  out << "    ) -> " << (op.returns_list ? "list[MLOperand]" : "MLOperand") << ":\n";
  out << "        \"\"\"MLGraphBuilder." << op.name << "() of the WebNN spec.\"\"\"\n";
  out << "        ...\n";
}

// Every op method, in ops.def order.
std::string op_methods() {
  std::vector<std::vector<StubOption>> options;
#define CPPNN_OP(E, m, S, O, F) options.push_back(stub_options<O>());
#include "cppnn/ops.def"
#undef CPPNN_OP
  std::ostringstream out;
  const std::vector<OpSignature>& ops = op_signatures();
  for (size_t i = 0; i < ops.size(); ++i) {
    write_method(out, ops[i], options[i], false);
    if (ops[i].snake_name != ops[i].name) write_method(out, ops[i], options[i], true);
  }
  return out.str();
}

int run(const char* template_path, const char* output_path) {
  std::ifstream in(template_path);
  if (!in) {
    std::cerr << "cppnn-stubgen: cannot read " << template_path << "\n";
    return 1;
  }
  std::ostringstream stub;
  std::string line;
  bool replaced = false;
  while (std::getline(in, line)) {
    if (line.find("# @OPS@") != std::string::npos) {
      stub << op_methods();
      replaced = true;
    } else {
      stub << line << "\n";
    }
  }
  if (!replaced) {
    std::cerr << "cppnn-stubgen: no `# @OPS@` line in " << template_path << "\n";
    return 1;
  }
  return bindings::write_generated_file(output_path, stub.str(), "cppnn-stubgen");
}

}  // namespace
}  // namespace cppnn::py

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: cppnn-stubgen TEMPLATE OUTPUT\n";
    return 2;
  }
  return cppnn::py::run(argv[1], argv[2]);
}
