// The element-wise comparison of `cppnn compare`: tensors of any ONNX element type as doubles
// and NumPy's allclose rule |got - want| <= atol + rtol * |want| per element, with the maximum
// absolute and relative errors of a whole tensor (one row of the per-node report).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cppnn/data_type.h"

namespace cppnn::tool::compare {

// The ONNX element type (onnx.TensorProto.DataType, also ORT's ONNXTensorElementDataType) of a
// WebNN data type; 0 for int4/uint4, which are never graph outputs.
int onnx_type_of(MLOperandDataType t);
// The ONNX name of an element type ("float", "int64", ...).
std::string onnx_type_name(int onnx_type);
// Whether `onnx_type` is a floating-point type (float, float16, bfloat16, double).
bool is_float_type(int onnx_type);

// `count` little-endian elements of `onnx_type` as doubles (int64 beyond 2^53 rounded); nullopt
// for a type without numbers (string, complex) or `bytes` shorter than `count` elements.
std::optional<std::vector<double>> to_doubles(int onnx_type, std::span<const std::byte> bytes,
                                              uint64_t count);

// The tolerance of one value.
struct Tolerance {
  double atol = 0, rtol = 0;
};
// --atol / --rtol, else the defaults of `cppnn compare-onnx` for the type: float32 (and double)
// atol 1e-4 rtol 1e-3, float16/bfloat16 atol 1e-3 rtol 1e-2, integer and boolean types exact.
Tolerance tolerance_for(int onnx_type, std::optional<double> atol, std::optional<double> rtol);

// How `got` compares with `want` (same length): the largest |got - want|, the largest
// |got - want| / |want| over the elements where want != 0, the elements outside the tolerance
// (NaN matches only NaN, an infinity only the same infinity: a mismatch there makes max_abs and
// max_rel NaN) and the worst element (the largest |d| / (atol + rtol * |want|)).
struct Errors {
  double max_abs = 0, max_rel = 0;
  uint64_t outside = 0;
  uint64_t worst = 0;
};
Errors compare_values(std::span<const double> got, std::span<const double> want,
                      const Tolerance& tol);

// "[1, 3, 224, 224]".
std::string shape_string(std::span<const int64_t> shape);

}  // namespace cppnn::tool::compare
