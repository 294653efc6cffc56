// The positional parameter names of the builder operations (op_signatures.h): defaults per
// signature kind of ops.def, with the spec's names where an op differs. tests/python/test_ops.py
// checks them against the operand roles of opSupportLimits().
#include "op_signatures.h"

#include <cctype>
#include <initializer_list>
#include <map>

#include "cppnn/options.h"
#include "cppnn/reflect.h"

namespace cppnn::bindings {
namespace {

// Operand names of the ops whose names differ from their signature kind's defaults.
const std::map<std::string_view, std::vector<std::string>>& operand_overrides() {
  static const std::map<std::string_view, std::vector<std::string>> m = {
      {"logicalNot", {"a"}},
      {"isNaN", {"a"}},
      {"isInfinite", {"a"}},
      {"batchNormalization", {"input", "mean", "variance"}},
      {"conv2d", {"input", "filter"}},
      {"convTranspose2d", {"input", "filter"}},
      {"dequantizeLinear", {"input", "scale", "zeroPoint"}},
      {"quantizeLinear", {"input", "scale", "zeroPoint"}},
      {"gather", {"input", "indices"}},
      {"gatherElements", {"input", "indices"}},
      {"gatherND", {"input", "indices"}},
      {"prelu", {"input", "slope"}},
      {"scatterElements", {"input", "indices", "updates"}},
      {"scatterND", {"input", "indices", "updates"}},
      {"where", {"condition", "trueValue", "falseValue"}},
  };
  return m;
}

// Names of the list parameters of the Shape and TwoLists kinds.
std::vector<std::string> list_names(std::string_view op) {
  if (op == "tile") return {"repetitions"};
  if (op == "pad") return {"beginningPadding", "endingPadding"};
  if (op == "slice") return {"starts", "sizes"};
  return {"newShape"};  // expand, reshape
}

Param operand(std::string name) {
  return {std::move(name), ParamKind::kOperand};
}
Param ulong(std::string name) {
  return {std::move(name), ParamKind::kUnsignedLong};
}

// The positional parameters of signature kind S for op `name`.
template <class S>
std::vector<Param> params_of(std::string_view name) {
  std::vector<Param> p;
  auto operands = [&](std::initializer_list<const char*> defaults) {
    auto it = operand_overrides().find(name);
    if (it != operand_overrides().end()) {
      for (const std::string& n : it->second) p.push_back(operand(n));
    } else {
      for (const char* n : defaults) p.push_back(operand(n));
    }
  };
  if constexpr (std::is_same_v<S, sig::Unary>) operands({"input"});
  if constexpr (std::is_same_v<S, sig::Binary>) operands({"a", "b"});
  if constexpr (std::is_same_v<S, sig::Ternary>) operands({"a", "b", "c"});
  if constexpr (std::is_same_v<S, sig::Axis>) {
    operands({"input"});
    p.push_back(ulong("axis"));
  }
  if constexpr (std::is_same_v<S, sig::Cast>) {
    operands({"input"});
    p.push_back({"dataType", ParamKind::kDataType});  // renamed from `type` in #888
  }
  if constexpr (std::is_same_v<S, sig::Concat>) {
    p.push_back({"inputs", ParamKind::kOperandList});
    p.push_back(ulong("axis"));
  }
  if constexpr (std::is_same_v<S, sig::Shape> || std::is_same_v<S, sig::TwoLists>) {
    operands({"input"});
    for (std::string& n : list_names(name)) p.push_back({n, ParamKind::kUnsignedLongList});
  }
  if constexpr (std::is_same_v<S, sig::Split>) {
    operands({"input"});
    p.push_back({"splits", ParamKind::kSplits});
  }
  if constexpr (std::is_same_v<S, sig::Recurrent>) {
    operands({"input", "weight", "recurrentWeight"});
    p.push_back(ulong("steps"));
    p.push_back(ulong("hiddenSize"));
  }
  if constexpr (std::is_same_v<S, sig::GruCell>) {
    operands({"input", "weight", "recurrentWeight", "hiddenState"});
    p.push_back(ulong("hiddenSize"));
  }
  if constexpr (std::is_same_v<S, sig::LstmCell>) {
    operands({"input", "weight", "recurrentWeight", "hiddenState", "cellState"});
    p.push_back(ulong("hiddenSize"));
  }
  return p;
}

// The reflected field names of options struct O.
template <class O>
std::vector<std::string> option_names() {
  std::vector<std::string> names;
  reflect::for_each_field<O>([&](auto field) { names.emplace_back(field.name); });
  return names;
}

}  // namespace

std::string camel_to_snake(std::string_view name) {
  if (name == "isNaN") return "is_nan";
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const auto prev = i > 0 ? static_cast<unsigned char>(name[i - 1]) : 0;
    if (i > 0 && std::isupper(c) && (std::islower(prev) || std::isdigit(prev))) out += '_';
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

const std::vector<OpSignature>& op_signatures() {
  static const std::vector<OpSignature> ops = [] {
    std::vector<OpSignature> v;
#define CPPNN_OP(E, m, S, O, F)                                                                \
  v.push_back({OpType::k##E, #m, camel_to_snake(#m), params_of<sig::S>(#m), option_names<O>(), \
               SignatureTraits<sig::S>::kReturnsSequence});
#include "cppnn/ops.def"
#undef CPPNN_OP
    return v;
  }();
  return ops;
}

}  // namespace cppnn::bindings
