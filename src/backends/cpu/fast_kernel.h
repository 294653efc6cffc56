// The cpu backend's kernels: for an operation, a compile_fast_*() function returns a kernel when
// this backend has a fast form for its data types, layouts and options, or nullopt, in which case
// the plan runs the reference kernel (src/backends/reference/). Kernels read and write operand
// data through the slot table, as the reference kernels do (reference/kernel.h).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "cppnn/graph_model.h"
#include "src/backends/cpu/packed_weights.h"
#include "src/backends/cpu/thread_pool.h"
#include "src/backends/reference/reference_backend.h"

namespace cppnn::cpu {

// What a fast kernel compiler may look at.
struct CompileContext {
  const Graph& graph;
  std::shared_ptr<ThreadPool> pool;  // kernels capture it (it outlives every plan using it)
  // The backend's packed weights, shared by its plans (a dynamic graph's sizes); null: each
  // kernel packs its own.
  std::shared_ptr<PackedWeights> packed_weights = nullptr;
  const MLOperandDescriptor& desc(OperandId id) const { return graph.descriptor(id); }
  // The bytes of a constant operand, or nullptr when `id` is not a constant.
  const std::byte* constant(OperandId id) const {
    const OperandInfo& info = graph.operands.at(id.value);
    return info.kind == OperandKind::kConstant ? graph.constants[info.producer].data() : nullptr;
  }
  // Says a kernel keeps its own packed copy of constant `id` and will not read its bytes: a
  // mapped weight's pages leave resident memory (ConstantData::release_pages), so a weight is
  // resident once, packed, not twice.
  void release_constant(OperandId id) const {
    const OperandInfo& info = graph.operands.at(id.value);
    if (info.kind == OperandKind::kConstant) graph.constants[info.producer].release_pages();
  }
};

// A compiled fast kernel (run, and whether it also applies op.activations; otherwise the plan runs
// them after it on the reference kernels).
using FastKernel = SubstituteKernel;

// The cpu backend's kernel for `op`, or nullopt (fast_kernels.cpp: by op type, to the family
// compilers below).
std::optional<FastKernel> compile_fast_kernel(const CompileContext& cc, const Operation& op);

// Family compilers (each nullopt where the case has no fast form):
// conv2d (im2col/1x1 GEMM, grouped; depthwise ones go to compile_fast_depthwise_conv2d),
// convolution.cpp
std::optional<FastKernel> compile_fast_conv2d(const CompileContext& cc, const Operation& op);
// convTranspose2d (GEMM + col2im), conv_transpose.cpp
std::optional<FastKernel> compile_fast_conv_transpose2d(const CompileContext& cc,
                                                        const Operation& op);
// conv2d with groups == input channels (depthwise, channel multiplier 1 or more), depthwise.cpp
std::optional<FastKernel> compile_fast_depthwise_conv2d(const CompileContext& cc,
                                                        const Operation& op);
// averagePool2d, maxPool2d, pooling.cpp
std::optional<FastKernel> compile_fast_pool2d(const CompileContext& cc, const Operation& op);
// matmul and gemm, matrix.cpp
std::optional<FastKernel> compile_fast_matrix(const CompileContext& cc, const Operation& op);
// gemm with a block-quantized B operand read in place (quantized_weights.h),
// quantized_gemm.cpp; every such gemm compiles (an OperationError otherwise)
std::optional<FastKernel> compile_fast_quantized_gemm(const CompileContext& cc,
                                                      const Operation& op);
// resample2d in nearest-neighbor mode (source indices resolved at build), resample.cpp
std::optional<FastKernel> compile_fast_resample2d(const CompileContext& cc, const Operation& op);
// gather with constant or runtime indices, gather.cpp
std::optional<FastKernel> compile_fast_gather(const CompileContext& cc, const Operation& op);
// softmax (float32 vector code along the last axis, the reference's double computation along
// another), softmax.cpp
std::optional<FastKernel> compile_fast_softmax(const CompileContext& cc, const Operation& op);
// add, sub, mul, div, max, min (broadcasting), elementwise_binary.cpp
std::optional<FastKernel> compile_fast_binary(const CompileContext& cc, const Operation& op);
// exact float32 unary maps (relu, clamp, hardSwish, ...), elementwise_unary.cpp
std::optional<FastKernel> compile_fast_unary(const CompileContext& cc, const Operation& op);

// exp, log, sigmoid, tanh, erf, gelu (float32 vector math), abs, neg, floor, ceil, reciprocal,
// sqrt, pow by a constant 2, 0.5 or 1, elementwise_math.cpp
std::optional<FastKernel> compile_fast_math(const CompileContext& cc, const Operation& op);
// batchNormalization over any axis, normalization.cpp
std::optional<FastKernel> compile_fast_batch_normalization(const CompileContext& cc,
                                                           const Operation& op);
// layerNormalization over trailing axes, normalization.cpp
std::optional<FastKernel> compile_fast_layer_normalization(const CompileContext& cc,
                                                           const Operation& op);
// reduceL1, reduceL2, reduceMean, reduceSum, reduceSumSquare over adjacent axes, reduceMax and
// reduceMin over trailing ones, reduction.cpp
std::optional<FastKernel> compile_fast_reduction(const CompileContext& cc, const Operation& op);
// lstm, lstmCell, gru, gruCell (the reference's double algorithm, weights converted once),
// recurrent.cpp
std::optional<FastKernel> compile_fast_recurrent(const CompileContext& cc, const Operation& op);
// concat, expand, reshape, reverse, slice, split, tile, transpose, pad in constant mode (strided
// copies over the pool), data_movement.cpp
std::optional<FastKernel> compile_fast_copy(const CompileContext& cc, const Operation& op);

}  // namespace cppnn::cpu
