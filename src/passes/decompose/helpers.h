// Small building blocks the decompositions of every family share (src/passes/decompose/*.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "cppnn/graph_builder.h"

namespace cppnn::passes {

// A scalar constant of `type` holding `v` (MLNumber casting rules, webnn-spec.md §3.6).
MLOperand scalar(MLGraphBuilder& b, MLOperandDataType type, MLNumber v);
// A scalar constant of x's data type.
MLOperand scalar_like(MLGraphBuilder& b, const MLOperand& x, MLNumber v);
// A constant of `desc` with every element `v`.
MLOperand filled(MLGraphBuilder& b, const MLOperandDescriptor& desc, MLNumber v);
// A constant of `type` and `shape` holding `values` (one per element, cast to the type).
MLOperand constant_of(MLGraphBuilder& b, MLOperandDataType type, std::vector<uint32_t> shape,
                      const std::vector<MLNumber>& values);
// An int32 (or `type`) constant [0, 1, ..., n-1].
MLOperand iota(MLGraphBuilder& b, uint32_t n, MLOperandDataType type = MLOperandDataType::kInt32);

// Float16 is computed in float32 by decompositions whose chain of rounded ops would otherwise
// lose accuracy: `widen` casts a float16 operand to float32 (others pass through), `narrow` casts
// the result back to `type`.
MLOperand widen(MLGraphBuilder& b, const MLOperand& x);
MLOperand narrow(MLGraphBuilder& b, const MLOperand& x, MLOperandDataType type);

// The number of elements of a shape.
uint64_t element_count(const std::vector<uint32_t>& shape);
bool is_float(MLOperandDataType t);
bool is_unsigned(MLOperandDataType t);

}  // namespace cppnn::passes
