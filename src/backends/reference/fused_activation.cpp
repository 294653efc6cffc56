// The kernel of an activation the fusion pass recorded on an operation (kernel.h).
#include <cstring>
#include <memory>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/reference/kernel.h"

namespace cppnn::ref {

Kernel compile_fused_activation(const KernelContext& kc, const Operation& op,
                                const FusedActivation& a) {
  Operation act;
  act.type = a.type;
  act.inputs = {op.outputs.at(0)};
  act.outputs = {op.outputs.at(0)};
  act.attrs = a.attrs;
  Kernel kernel = compile_kernel(kc, act);
  if (!a.times_input) return kernel;
  const OperandId y = op.outputs.at(0);
  if (kc.desc(y).dataType != MLOperandDataType::kFloat32)
    throw OperationError("a fused activation times its input runs on float32 only");
  // x·f(x): x kept aside, f applied in place, then the product rounded once, as mul rounds it.
  const size_t n = static_cast<size_t>(element_count(kc.desc(y).shape));
  auto saved = std::make_shared<std::vector<float>>(n);
  return [kernel = std::move(kernel), saved, y, n](std::span<std::byte* const> slots) {
    float* v = data_of<float>(slots, y);
    std::memcpy(saved->data(), v, n * sizeof(float));
    kernel(slots);
    for (size_t i = 0; i < n; ++i) v[i] = (*saved)[i] * v[i];
  };
}

}  // namespace cppnn::ref
