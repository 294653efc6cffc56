// cppnn-js-typegen TEMPLATE OUTPUT: writes the TypeScript declarations of the Node.js package
// (js/index.d.ts), the hand-written TEMPLATE with its marker lines replaced from the op table:
//   // @ENUMS@       one string-union type per spec enum (enums.h, with MLOperandDataType)
//   // @OPTIONS@     one interface per options dictionary (options.h's reflection), typed
//   // @OPS@         one MLGraphBuilder method per operation (ops.def, bindings/op_signatures.h)
//   // @OP_LIMITS@   one MLOpSupportLimits member per operation, with its known operand roles
// OUTPUT is rewritten only when its content changes (so its time stamp tells when it did).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cppnn/enums.h"
#include "cppnn/op_type.h"
#include "cppnn/options.h"
#include "cppnn/reflect.h"
#include "generated_file.h"
#include "op_signatures.h"

namespace cppnn::js {

using bindings::op_signatures;
using bindings::OpSignature;
using bindings::Param;
using bindings::ParamKind;
namespace {

// Every spec enum with EnumStrings, by its IDL name (the C++ name is the IDL name).
// clang-format off
#define CPPNN_TS_ENUMS(X)                                                                          \
  X(MLOperandDataType) X(MLPowerPreference) X(MLInputOperandLayout)                                \
  X(MLConv2dFilterOperandLayout) X(MLConvTranspose2dFilterOperandLayout) X(MLRoundingType)         \
  X(MLPaddingMode) X(MLInterpolationMode) X(MLRecurrentNetworkDirection)                           \
  X(MLRecurrentNetworkActivation) X(MLGruWeightLayout) X(MLLstmWeightLayout)
// clang-format on

// EnumName<E>::value: the TypeScript (IDL) name of enum E.
template <class E>
struct EnumName;
#define CPPNN_TS_ENUM_NAME(E)                     \
  template <>                                     \
  struct EnumName<E> {                            \
    static constexpr std::string_view value = #E; \
  };
CPPNN_TS_ENUMS(CPPNN_TS_ENUM_NAME)
#undef CPPNN_TS_ENUM_NAME

template <class T>
concept NamedEnum = requires {
  EnumName<T>::value;
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

// One member of an options interface: name, TypeScript type and its doc comment.
struct TsMember {
  std::string name, type, doc;
};

// A JavaScript string literal of an identifier-like text (no quotes or backslashes in it).
std::string quoted(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// `head`, the items and `tail` as one line at `indent` when it fits in 100 columns, else one
// item a line, 2 deeper: a list ("a, b") ends each item with ",", a union ("a | b") starts each
// with "| " and ends the last with `tail` (a type alias's ";"), else `tail` has its own line.
std::string fit(const std::string& indent, const std::string& head,
                const std::vector<std::string>& items, bool is_union, const std::string& tail) {
  std::string line = indent + head;
  for (size_t i = 0; i < items.size(); ++i) line += (i ? (is_union ? " | " : ", ") : "") + items[i];
  line += tail;
  if (line.size() <= 100 || items.empty()) return line + "\n";
  std::string out = indent + head.substr(0, head.find_last_not_of(' ') + 1) + "\n";
  for (const std::string& item : items)
    out += indent + "  " + (is_union ? "| " + item : item + ",") + "\n";
  if (is_union && tail == ";") return out.insert(out.size() - 1, tail);
  return out + indent + tail + "\n";
}

// A JavaScript literal of a double ("1e-5", "0.5", "1").
std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  const size_t e = s.find('e');
  if (e != std::string::npos) {  // "1e-05" -> "1e-5"
    size_t digits = e + 1;
    if (digits < s.size() && (s[digits] == '-' || s[digits] == '+')) ++digits;
    const size_t zeros_end = s.find_first_not_of('0', digits);
    s.erase(digits, (zeros_end == std::string::npos ? s.size() - 1 : zeros_end) - digits);
    if (s[e + 1] == '+') s.erase(e + 1, 1);
  }
  return s;
}

// The TypeScript type of an option field of C++ type T.
template <class T>
std::string ts_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (NamedEnum<T>) {
    return std::string(EnumName<T>::value);
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(!sizeof(T), "typegen: add this enum to CPPNN_TS_ENUMS");
  } else if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>) {
    return "number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string";
  } else if constexpr (std::is_same_v<T, MLNumber>) {
    return "MLNumber";
  } else if constexpr (std::is_same_v<T, MLOperand>) {
    return "MLOperand";
  } else if constexpr (IsOptional<T>::value) {
    return ts_type<typename IsOptional<T>::Element>();  // the member is optional anyway
  } else if constexpr (IsOptionalList<T>::value) {
    return "readonly " + ts_type<typename IsOptionalList<T>::Element>() + "[]";
  } else {
    static_assert(!sizeof(T), "typegen: no TypeScript type for this option field type");
  }
}

// The WebIDL type of an option field of C++ type T, for its doc comment.
template <class T>
std::string idl_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (NamedEnum<T>) {
    return std::string(EnumName<T>::value);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return "[EnforceRange] unsigned long";
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return "[EnforceRange] long";
  } else if constexpr (std::is_same_v<T, double>) {
    return "double";
  } else if constexpr (std::is_same_v<T, float>) {
    return "float";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "USVString";
  } else if constexpr (std::is_same_v<T, MLNumber>) {
    return "MLNumber";
  } else if constexpr (std::is_same_v<T, MLOperand>) {
    return "MLOperand";
  } else if constexpr (IsOptional<T>::value) {
    return idl_type<typename IsOptional<T>::Element>();
  } else if constexpr (IsOptionalList<T>::value) {
    return "sequence<" + idl_type<typename IsOptionalList<T>::Element>() + ">";
  } else {
    static_assert(!sizeof(T), "typegen: no WebIDL type for this option field type");
  }
}

// The spec default of an option field holding `v`, as JavaScript; nullopt when it has none
// (optional values and lists: absent).
template <class T>
std::optional<std::string> js_default(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (NamedEnum<T>) {
    return quoted(enum_to_string(v));
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return number_text(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return quoted(v);
  } else if constexpr (std::is_same_v<T, MLNumber>) {
    return v.kind() == MLNumber::Kind::kDouble ? number_text(v.as_double())
                                               : std::to_string(v.raw_int64());
  } else {
    return std::nullopt;
  }
}

// The members of options struct O, in declaration order.
template <class O>
std::vector<TsMember> ts_members() {
  std::vector<TsMember> out;
  const O defaults{};
  reflect::for_each_field<O>([&](auto field) {
    using M = typename decltype(field)::type;
    std::string doc = idl_type<M>();
    if (const auto d = js_default(defaults.*(field.member))) doc += "; default " + *d;
    out.push_back({std::string(field.name), ts_type<M>(), doc + "."});
  });
  return out;
}

// The options dictionary of one operation: the op's method name, the dictionary's IDL name and
// its members.
struct TsOptions {
  std::string op, name;
  std::vector<TsMember> members;
};

// The options dictionary of each operation, in ops.def order (parallel to op_signatures()).
std::vector<TsOptions> op_options() {
  std::vector<TsOptions> out;
#define CPPNN_OP(E, m, S, O, F) out.push_back({#m, #O, ts_members<O>()});
#include "cppnn/ops.def"
#undef CPPNN_OP
  return out;
}

// The string-union type of every enum.
std::string enum_types() {
  std::ostringstream out;
  auto write = [&]<class E>(E) {
    std::vector<std::string> names;
    for (const auto& [value, name] : EnumStrings<E>::values) names.push_back(quoted(name));
    out << (out.tellp() > 0 ? "\n" : "") << "/** The WebNN enum " << EnumName<E>::value << ". */\n"
        << fit("", "export type " + std::string(EnumName<E>::value) + " = ", names, true, ";");
  };
#define CPPNN_TS_ENUM_WRITE(E) write(E{});
  CPPNN_TS_ENUMS(CPPNN_TS_ENUM_WRITE)
#undef CPPNN_TS_ENUM_WRITE
  return out.str();
}

void write_members(std::ostream& out, const std::vector<TsMember>& members, bool skip_label) {
  for (const TsMember& m : members) {
    if (skip_label && m.name == "label") continue;
    out << "  /** " << m.doc << " */\n  " << m.name << "?: " << m.type << ";\n";
  }
}

// MLOperatorOptions, then every other options dictionary once (first use order), each
// extending MLOperatorOptions (whose `label` every one of them has).
std::optional<std::string> options_interfaces(const std::vector<TsOptions>& options) {
  std::ostringstream out;
  out << "/** MLOperatorOptions: the base of every operation's options dictionary. */\n"
      << "export interface MLOperatorOptions {\n";
  write_members(out, ts_members<MLOperatorOptions>(), false);
  out << "}\n";
  std::set<std::string> done = {"MLOperatorOptions"};
  for (const TsOptions& o : options) {
    if (!done.insert(o.name).second) continue;
    bool has_label = false;
    for (const TsMember& m : o.members) has_label |= m.name == "label" && m.type == "string";
    if (!has_label) {
      std::cerr << "cppnn-js-typegen: " << o.name << " has no string `label`\n";
      return std::nullopt;
    }
    out << "\n/** " << o.name << " (WebNN). */\nexport interface " << o.name
        << " extends MLOperatorOptions {\n";
    write_members(out, o.members, true);
    out << "}\n";
  }
  return out.str();
}

// The TypeScript type of a positional parameter kind.
std::string param_type(ParamKind kind) {
  switch (kind) {
    case ParamKind::kOperand:
      return "MLOperand";
    case ParamKind::kOperandList:
      return "readonly MLOperand[]";
    case ParamKind::kUnsignedLong:
      return "number";
    case ParamKind::kDataType:
      return "MLOperandDataType";
    case ParamKind::kUnsignedLongList:
      return "readonly number[]";
    case ParamKind::kSplits:
      return "number | readonly number[]";
  }
  return "unknown";
}

// Every MLGraphBuilder operation method, in ops.def order.
std::string op_methods(const std::vector<OpSignature>& ops, const std::vector<TsOptions>& options) {
  std::ostringstream out;
  for (size_t i = 0; i < ops.size(); ++i) {
    const OpSignature& op = ops[i];
    std::vector<std::string> params;
    for (const Param& p : op.params) params.push_back(p.name + ": " + param_type(p.kind));
    params.push_back("options?: " + options[i].name);
    out << "  /** MLGraphBuilder." << op.name << "() (WebNN). */\n"
        << fit("  ", op.name + "(", params, false,
               op.returns_list ? "): MLOperand[];" : "): MLOperand;");
  }
  return out.str();
}

// Every per-operation member of MLOpSupportLimits: its operand roles known from the signature
// (operand parameters, operand options and, for one output, "output"); the others (the outputs
// of split, gru, lstm and lstmCell) through the index signature of MLOpLimits.
std::string op_limits(const std::vector<OpSignature>& ops, const std::vector<TsOptions>& options) {
  std::ostringstream out;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::vector<std::string> roles;
    for (const Param& p : ops[i].params)
      if (p.kind == ParamKind::kOperand || p.kind == ParamKind::kOperandList)
        roles.push_back(quoted(p.name));
    for (const TsMember& m : options[i].members)
      if (m.type == "MLOperand") roles.push_back(quoted(m.name));
    if (!ops[i].returns_list) roles.push_back(quoted("output"));
    out << fit("  ", "readonly " + ops[i].name + ": MLOpLimits<", roles, true, ">;");
  }
  return out.str();
}

// The whole file text from the template, or nullopt (reported) on a template error.
std::optional<std::string> generate(std::istream& in, const char* template_path) {
  const std::vector<OpSignature>& ops = op_signatures();
  const std::vector<TsOptions> options = op_options();
  for (size_t i = 0; i < std::max(ops.size(), options.size()); ++i) {
    if (i >= ops.size() || i >= options.size() || ops[i].name != options[i].op) {
      std::cerr << "cppnn-js-typegen: the op table and the signatures differ at " << i << "\n";
      return std::nullopt;
    }
  }
  const std::optional<std::string> interfaces = options_interfaces(options);
  if (!interfaces) return std::nullopt;
  std::map<std::string, std::string> sections = {{"// @ENUMS@", enum_types()},
                                                 {"// @OPTIONS@", *interfaces},
                                                 {"// @OPS@", op_methods(ops, options)},
                                                 {"// @OP_LIMITS@", op_limits(ops, options)}};
  std::map<std::string, int> seen;
  std::ostringstream text;
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(' ');
    const std::string marker = first == std::string::npos ? "" : line.substr(first);
    if (auto it = sections.find(marker); it != sections.end()) {
      text << it->second;
      ++seen[marker];
    } else {
      text << line << "\n";
    }
  }
  for (const auto& [marker, section] : sections) {
    if (seen[marker] != 1) {
      std::cerr << "cppnn-js-typegen: " << template_path << " must have one `" << marker
                << "` line\n";
      return std::nullopt;
    }
  }
  return text.str();
}

int run(const char* template_path, const char* output_path) {
  std::ifstream in(template_path);
  if (!in) {
    std::cerr << "cppnn-js-typegen: cannot read " << template_path << "\n";
    return 1;
  }
  const std::optional<std::string> text = generate(in, template_path);
  if (!text) return 1;
  return bindings::write_generated_file(output_path, *text, "cppnn-js-typegen");
}

}  // namespace
}  // namespace cppnn::js

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: cppnn-js-typegen TEMPLATE OUTPUT\n";
    return 2;
  }
  return cppnn::js::run(argv[1], argv[2]);
}
