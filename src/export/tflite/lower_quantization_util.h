// Blockwise parameters of the TFLite quantization lowerings (lower_quantization.cpp; webnn-spec.md
// §2 rows 44-45, §6 erratum 17 and the emulation note): scale and zeroPoint share a shape of rank
// <= the input's, left-padded with 1s, and along each axis one parameter covers
// input.dim / param.dim consecutive input elements. expand_blockwise() makes such a parameter
// broadcast against the input with each element paired with its block's parameter: a constant is
// expanded at conversion, another tensor by RESHAPE/TILE/RESHAPE per blockwise axis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "src/export/tflite/emitter.h"
#include "src/export/tflite/lower_compute_util.h"

namespace cppnn::tflite_export::quant {

// `shape` left-padded with 1s to `rank`.
inline std::vector<int32_t> left_padded(const std::vector<int32_t>& shape, size_t rank) {
  std::vector<int32_t> out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

// The bytes of a row-major array of `shape` (elements of `size` bytes) repeated along each axis
// d by repeat[d], each element repeat[d] times in a row (the blockwise expansion).
inline std::vector<std::byte> repeat_elements(std::span<const std::byte> bytes, size_t size,
                                              const std::vector<int32_t>& shape,
                                              const std::vector<int32_t>& repeat) {
  const size_t rank = shape.size();
  std::vector<int64_t> out_shape(rank), src_strides(rank, 1);
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    out_shape[d] = int64_t{shape[d]} * repeat[d];
    count *= out_shape[d];
  }
  for (size_t d = rank; d-- > 1;) src_strides[d - 1] = src_strides[d] * shape[d];
  std::vector<std::byte> out(static_cast<size_t>(count) * size);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += index[d] / repeat[d] * src_strides[d];
    std::memcpy(out.data() + i * static_cast<int64_t>(size),
                bytes.data() + src * static_cast<int64_t>(size), size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Parameter `p` (rank <= the input's) expanded blockwise to broadcast against an input of
// `input` shape: itself where no axis is blockwise (1 < p.dim < input.dim), else a constant
// expanded at conversion or, per blockwise axis d, RESHAPE to [..., p.dim, 1, ...], TILE by the
// block size and RESHAPE to [..., input.dim, ...].
inline TensorIndex expand_blockwise(Emitter& e, TensorIndex p, const std::vector<int32_t>& input) {
  std::vector<int32_t> shape = left_padded(e.shape_of(p), input.size());
  std::vector<int32_t> repeat(input.size(), 1);
  bool blockwise = false;
  for (size_t d = 0; d < input.size(); ++d) {
    if (shape[d] == 1 || shape[d] == input[d]) continue;
    repeat[d] = input[d] / shape[d];
    blockwise = true;
  }
  if (!blockwise) return p;
  std::vector<int32_t> expanded(input.size());
  for (size_t d = 0; d < input.size(); ++d) expanded[d] = shape[d] * repeat[d];
  if (e.is_constant(p))
    return e.constant(
        e.type_of(p), expanded,
        repeat_elements(e.constant_bytes(p), element_size(e.type_of(p)), shape, repeat));
  TensorIndex t = p;
  for (size_t d = 0; d < input.size(); ++d) {
    if (repeat[d] == 1) continue;
    std::vector<int32_t> split = shape, multiples(shape.size() + 1, 1);
    split.insert(split.begin() + static_cast<long>(d) + 1, 1);
    multiples[d + 1] = repeat[d];
    t = reshaped(e, t, split);
    split[d + 1] = repeat[d];
    t = e.op1(tfl::BuiltinOperator::TILE, {t, e.const_i32(multiples)}, e.type_of(t), split,
              tfl::BuiltinOptions::TileOptions, tfl::CreateTileOptions(e.fbb()).Union());
    shape[d] *= repeat[d];
    t = reshaped(e, t, shape);
  }
  return t;
}

}  // namespace cppnn::tflite_export::quant
