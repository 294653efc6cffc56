// Positional parameter and operand-option names per op, derived from ops.def and reflection.
#include "src/formats/op_params.h"

#include <algorithm>
#include <optional>
#include <type_traits>

#include "cppnn/reflect.h"

namespace cppnn::formats {
namespace {

template <class Sig>
std::vector<std::string_view> params_of(OpType t) {
  if constexpr (std::is_same_v<Sig, sig::Axis> || std::is_same_v<Sig, sig::Concat>) {
    return {"axis"};
  } else if constexpr (std::is_same_v<Sig, sig::Cast>) {
    return {"dataType"};
  } else if constexpr (std::is_same_v<Sig, sig::Shape>) {
    return {t == OpType::kTile ? "repetitions" : "newShape"};
  } else if constexpr (std::is_same_v<Sig, sig::TwoLists>) {
    if (t == OpType::kPad) return {"beginningPadding", "endingPadding"};
    return {"starts", "sizes"};
  } else if constexpr (std::is_same_v<Sig, sig::Split>) {
    return {"splits"};
  } else if constexpr (std::is_same_v<Sig, sig::Recurrent>) {
    return {"steps", "hiddenSize"};
  } else if constexpr (std::is_same_v<Sig, sig::GruCell> || std::is_same_v<Sig, sig::LstmCell>) {
    return {"hiddenSize"};
  } else {
    return {};
  }
}

template <class Options>
std::vector<std::string_view> operand_options_of() {
  std::vector<std::string_view> out;
  reflect::for_each_field<Options>([&](auto field) {
    if constexpr (std::is_same_v<typename decltype(field)::type, std::optional<MLOperand>>)
      out.push_back(field.name);
  });
  return out;
}

}  // namespace

std::vector<std::string_view> positional_param_names(OpType t) {
  switch (t) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return params_of<sig::S>(t);
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return {};
}

int positional_operand_count(OpType t) {
  switch (t) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return SignatureTraits<sig::S>::kOperands;
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return 0;
}

std::vector<std::string_view> operand_option_names(OpType t) {
  switch (t) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return operand_options_of<O>();
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return {};
}

std::vector<std::string_view> known_option_keys(OpType t) {
  std::vector<std::string_view> keys = positional_param_names(t);
  auto add_members = [&]<class Options>() {
    reflect::for_each_field<Options>([&](auto field) { keys.push_back(field.name); });
  };
  switch (t) {
#define CPPNN_OP(E, m, S, O, F)           \
  case OpType::k##E:                      \
    add_members.template operator()<O>(); \
    break;
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return keys;
}

std::optional<std::string> unknown_option_message(OpType t, const DocValue::Object& options) {
  const std::vector<std::string_view> known = known_option_keys(t);
  for (const auto& [key, value] : options) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return "unknown option '" + key + "' for " + std::string(op_name(t)) +
           " (known: " + (list.empty() ? "none" : list) + ")";
  }
  return std::nullopt;
}

}  // namespace cppnn::formats
