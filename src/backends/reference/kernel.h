// Reference kernels: for each op, compile_<method>() runs once at build() and returns a Kernel
// that dispatch only executes. A kernel captures everything it needs (operand ids, shapes,
// strides, option values) and reads and writes operand data through the slot table: slots[id] is
// the data of operand `id` (a graph input, a constant, an output tensor or an arena buffer), dense
// and row-major. Declared from ops.def; defined in the family files of this folder.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "cppnn/graph_model.h"
#include "cppnn/op_type.h"

namespace cppnn::ref {

// Executes one compiled operation.
using Kernel = std::function<void(std::span<std::byte* const> slots)>;

// What a kernel compiler may look at: the graph (descriptors of every operand).
struct KernelContext {
  const Graph& graph;
  const MLOperandDescriptor& desc(OperandId id) const { return graph.descriptor(id); }
};

// Typed access to an operand's data in the slot table.
template <class T>
T* data_of(std::span<std::byte* const> slots, OperandId id) {
  return reinterpret_cast<T*>(slots[id.value]);
}

#define CPPNN_OP(E, m, S, O, F)                                    \
  Kernel compile_##m(const KernelContext& kc, const Operation& op, \
                     const AttrsOf<OpType::k##E>& attrs);
#include "cppnn/ops.def"
#undef CPPNN_OP

// Dispatches to compile_<method> by op type.
Kernel compile_kernel(const KernelContext& kc, const Operation& op);

// Activation `a` of op.activations (the fusion pass's, graph_model.h) on op's first output in
// place: its reference kernel, and for times_input the product with the value it replaced.
Kernel compile_fused_activation(const KernelContext& kc, const Operation& op,
                                const FusedActivation& a);

}  // namespace cppnn::ref
