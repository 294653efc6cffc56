// Element-wise map kernels shared by the unary and activation families: out[i] = fn(in[i]) over
// operands of the same shape (the output copies the input shape), in row-major order.
#pragma once

#include <cstddef>

#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {

// A kernel computing out[i] = fn(in[i]) with element types In and Out over op.inputs[0] and
// op.outputs[0].
template <class In, class Out, class Fn>
Kernel map_kernel(const KernelContext& kc, const Operation& op, Fn fn) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const size_t n = element_count_of(kc.desc(out).shape);
  return [=](std::span<std::byte* const> slots) {
    const In* x = data_of<In>(slots, in);
    Out* y = data_of<Out>(slots, out);
    for (size_t i = 0; i < n; ++i) y[i] = fn(x[i]);
  };
}

// A float32/float16 map computed in double: fn(double) -> double is rounded once to the element
// type. `make_fn(tag)` builds fn for the element type (for options cast to that type).
template <class MakeFn>
Kernel float_map_kernel(const KernelContext& kc, const Operation& op, MakeFn make_fn) {
  const MLOperandDataType type = kc.desc(op.inputs[0]).dataType;
  if (type == MLOperandDataType::kFloat32) {
    auto fn = make_fn(Tag<float>{});
    return map_kernel<float, float>(kc, op,
                                    [fn](float x) { return from_double<float>(fn(to_double(x))); });
  }
  if (type == MLOperandDataType::kFloat16) {
    auto fn = make_fn(Tag<Half>{});
    return map_kernel<Half, Half>(kc, op,
                                  [fn](Half x) { return from_double<Half>(fn(to_double(x))); });
  }
  throw OperationError("reference backend: expected a float32 or float16 operand");
}

}  // namespace cppnn::ref
