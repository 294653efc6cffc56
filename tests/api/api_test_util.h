// Helpers for the execution API tests (MLTensor, dispatch, context loss, threads): byte
// conversions, tensor descriptors and a few small graphs built from the binary ops.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {

// The bytes of a vector of elements.
template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// The elements of T held by `b`.
template <class T>
std::vector<T> elements_of(const std::vector<std::byte>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// A tensor descriptor with the given usage.
inline MLTensorDescriptor tensor_desc(MLOperandDataType t, Dims shape, bool readable,
                                      bool writable) {
  return {t, std::move(shape), readable, writable};
}
// A writable tensor holding `values` (a graph input).
template <class T>
MLTensor input_tensor(MLContext& context, MLOperandDataType t, Dims shape,
                      const std::vector<T>& values) {
  MLTensor tensor = context.createTensor(tensor_desc(t, std::move(shape), false, true));
  context.writeTensor(tensor, bytes_of(values));
  return tensor;
}
// A readable tensor (a graph output).
inline MLTensor output_tensor(MLContext& context, MLOperandDataType t, Dims shape) {
  return context.createTensor(tensor_desc(t, std::move(shape), true, false));
}
// A readable and writable tensor (an output fed back as the next input).
inline MLTensor io_tensor(MLContext& context, MLOperandDataType t, Dims shape) {
  return context.createTensor(tensor_desc(t, std::move(shape), true, true));
}

// c = a + b over `shape` and type `t` ("a", "b" -> "c").
inline MLGraph build_add(MLContext& context, MLOperandDataType t, const Dims& shape) {
  MLGraphBuilder b(context);
  MLOperand x = b.input("a", {t, shape});
  MLOperand y = b.input("b", {t, shape});
  return b.build({{"c", b.add(x, y)}});
}

// y = x * 2 + 1 over int32 `shape` ("x" -> "y"), with the constants recorded by the builder.
inline MLGraph build_affine_i32(MLContext& context, const Dims& shape) {
  MLGraphBuilder b(context);
  MLOperand x = b.input("x", {I32, shape});
  MLOperand two = b.constant(I32, MLNumber(2));
  MLOperand one = b.constant(I32, MLNumber(1));
  return b.build({{"y", b.add(b.mul(x, two), one)}});
}

}  // namespace cppnn::testing
