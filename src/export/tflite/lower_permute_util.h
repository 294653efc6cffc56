// Transposes for the TFLite lowerings that put weights and data in the layouts TFLite's kernels
// take (convolution filters OHWI / [1, H, W, O], FULLY_CONNECTED weights [N, K], NHWC data for
// the spatial ops): a transpose of a constant is done here, at export, as a permuted constant
// (so that XNNPACK sees static weights and the model runs no TRANSPOSE for it); anything else is
// a TRANSPOSE operator. Shared by the convolution, pooling, matrix and resample lowerings (in
// namespace `spatial`, apart from other families' helpers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "src/export/tflite/emitter.h"

namespace cppnn::tflite_export::spatial {

// NHWC <-> NCHW permutations (out[i] = in[perm[i]]).
inline const std::vector<int32_t>& nchw_to_nhwc() {
  static const std::vector<int32_t> p{0, 2, 3, 1};
  return p;
}
inline const std::vector<int32_t>& nhwc_to_nchw() {
  static const std::vector<int32_t> p{0, 3, 1, 2};
  return p;
}

// Whether `perm` leaves every axis in place.
inline bool is_identity_perm(const std::vector<int32_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int32_t>(i)) return false;
  return true;
}

// The inverse permutation of `perm`.
inline std::vector<int32_t> inverse_perm(const std::vector<int32_t>& perm) {
  std::vector<int32_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inv[static_cast<size_t>(perm[i])] = static_cast<int32_t>(i);
  return inv;
}

// `shape` permuted by `perm` (out[i] = shape[perm[i]]).
inline std::vector<int32_t> permute_shape(const std::vector<int32_t>& shape,
                                          const std::vector<int32_t>& perm) {
  std::vector<int32_t> out;
  out.reserve(perm.size());
  for (int32_t p : perm) out.push_back(shape.at(static_cast<size_t>(p)));
  return out;
}

// The dense row-major bytes of a tensor of `shape` (elements of `size` bytes) transposed by
// `perm`.
inline std::vector<std::byte> permute_bytes(std::span<const std::byte> bytes,
                                            const std::vector<int32_t>& shape,
                                            const std::vector<int32_t>& perm, size_t size) {
  const size_t rank = shape.size();
  std::vector<size_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * static_cast<size_t>(shape[d]);
  const std::vector<int32_t> out_shape = permute_shape(shape, perm);
  size_t count = 1;
  for (int32_t d : shape) count *= static_cast<size_t>(d);
  std::vector<std::byte> out(count * size);
  std::vector<size_t> index(rank, 0);  // the output index, in output axes
  for (size_t i = 0; i < count; ++i) {
    size_t source = 0;
    for (size_t d = 0; d < rank; ++d) source += index[d] * in_strides[static_cast<size_t>(perm[d])];
    std::memcpy(out.data() + i * size, bytes.data() + source * size, size);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < static_cast<size_t>(out_shape[d])) break;
      index[d] = 0;
    }
  }
  return out;
}

// `t` transposed by `perm`: `t` itself for the identity, a permuted constant for a constant,
// else a TRANSPOSE operator.
inline TensorIndex permuted(Emitter& e, TensorIndex t, const std::vector<int32_t>& perm) {
  if (is_identity_perm(perm)) return t;
  if (!e.is_constant(t)) return e.transpose(t, perm);
  const std::vector<int32_t>& shape = e.shape_of(t);
  return e.constant(e.type_of(t), permute_shape(shape, perm),
                    permute_bytes(e.constant_bytes(t), shape, perm, element_size(e.type_of(t))));
}

}  // namespace cppnn::tflite_export::spatial
