// Tables derived from ops.def: op names, per-op limits and the inference dispatch.
#include <array>

#include "cppnn/op_type.h"
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"

namespace cppnn {
namespace {

constexpr std::array<std::string_view, kOpCount> kOpNames = {
#define CPPNN_OP(E, m, S, O, F) #m,
#include "cppnn/ops.def"
#undef CPPNN_OP
};

const std::array<const OpLimits*, kOpCount> kOpLimits = {
#define CPPNN_OP(E, m, S, O, F) &limits_##m,
#include "cppnn/ops.def"
#undef CPPNN_OP
};

}  // namespace

std::string_view op_name(OpType t) noexcept {
  return kOpNames[static_cast<size_t>(t)];
}

bool op_from_name(std::string_view name, OpType& out) noexcept {
  for (size_t i = 0; i < kOpCount; ++i) {
    if (kOpNames[i] == name) {
      out = static_cast<OpType>(i);
      return true;
    }
  }
  return false;
}

const OpLimits& op_limits(OpType t) {
  return *kOpLimits[static_cast<size_t>(t)];
}

Result<OutputDescs> infer_op(OpType t, const InferInput& in, const OpAttributes& attrs) {
  switch (t) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return infer_##m(in, attrs_of<OpType::k##E>(attrs));
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  return type_error("unknown operation");
}

const std::string& label_of(const OpAttributes& a) {
  static const std::string kEmpty;
  return std::visit(
      [](const auto& x) -> const std::string& {
        if constexpr (requires { x.options.label; })
          return x.options.label;
        else
          return kEmpty;
      },
      a);
}

}  // namespace cppnn
