// ONNX DFT (ops_signal.def, opsets 17 and 20) as one matmul with a constant cos/sin basis: the
// axis is moved next to the last (real/imaginary) axis, the tensor flattened to
// [M, samples * channels], multiplied by the basis and reshaped back. Also the basis itself
// (ops_signal_dft.h), which STFT shares.
#include "src/import/onnx/ops_signal_dft.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <tuple>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// The largest basis (elements) a DFT may need: 2^25 float32 values are 128 MiB.
constexpr uint64_t kMaxBasisElements = uint64_t{1} << 25;

using Basis = std::vector<float>;

// cos and sin of 2 pi m / L for 0 <= m < L; exact (0, +-1) at quarter turns, so that bins whose
// true value is 0 (the imaginary part at k = 0 and k = L/2 of a real signal) come out as 0.
std::pair<double, double> unit_root(uint64_t m, uint64_t length) {
  if ((4 * m) % length == 0) {
    switch ((4 * m) / length) {
      case 0:
        return {1.0, 0.0};
      case 1:
        return {0.0, 1.0};
      case 2:
        return {-1.0, 0.0};
      default:
        return {0.0, -1.0};
    }
  }
  const double angle = 2 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(length);
  return {std::cos(angle), std::sin(angle)};
}

// The basis of `s`, [rows * channels, bins * out_channels] row-major: row (n, c) holds what input
// sample n's channel c (real or imaginary part) adds to each output bin k's real and imaginary
// part. Forward: X_k = sum_n x_n e^{-2 pi i k n / L}; inverse: x_n = (1/L) sum_k X_k
// e^{+2 pi i k n / L}; irfft: the real part of the inverse of the Hermitian-extended one-sided
// spectrum, where bins 0 < k < L/2 count twice.
Basis compute_basis(const DftSpec& s, const std::vector<double>* window) {
  const uint64_t rows = s.rows, bins = s.bins(), pc = s.out_channels(), L = s.length;
  const uint64_t cols = bins * pc;
  Basis w(rows * s.channels * cols);
  const double sign = s.inverse ? 1.0 : -1.0;
  const double scale = s.inverse ? 1.0 / static_cast<double>(L) : 1.0;
  for (uint64_t n = 0; n < rows; ++n) {
    const double wn = window ? (*window)[n] : 1.0;
    float* re_row = &w[(n * s.channels) * cols];
    float* im_row = s.channels == 2 ? &w[(n * s.channels + 1) * cols] : nullptr;
    for (uint64_t k = 0; k < bins; ++k) {
      const auto [cs, sn] = unit_root((n * k) % L, L);
      if (pc == 1) {
        // irfft: input n is the spectrum bin, output k the sample.
        const bool single = n == 0 || (L % 2 == 0 && 2 * n == L);
        const double f = (single ? 1.0 : 2.0) * scale * wn;
        re_row[k] = static_cast<float>(f * cs);
        if (im_row) im_row[k] = static_cast<float>(-f * sn);
        continue;
      }
      // (xr + i xi)(cos + i sign sin) = xr cos - sign xi sin + i (sign xr sin + xi cos)
      re_row[2 * k] = static_cast<float>(scale * wn * cs);
      re_row[2 * k + 1] = static_cast<float>(scale * wn * sign * sn);
      if (im_row) {
        im_row[2 * k] = static_cast<float>(-scale * wn * sign * sn);
        im_row[2 * k + 1] = static_cast<float>(scale * wn * cs);
      }
    }
  }
  return w;
}

// The basis of `s` without a window, computed once per (channels, rows, length, inverse,
// onesided) while any graph still holds it.
std::shared_ptr<const Basis> cached_basis(const DftSpec& s) {
  using Key = std::tuple<uint32_t, uint32_t, uint32_t, bool, bool>;
  static std::mutex mutex;
  static std::map<Key, std::weak_ptr<const Basis>> cache;
  const Key key{s.channels, s.rows, s.length, s.inverse, s.onesided};
  std::lock_guard<std::mutex> lock(mutex);
  if (auto hit = cache[key].lock()) return hit;
  std::erase_if(cache, [](const auto& e) { return e.second.expired(); });
  auto basis = std::make_shared<const Basis>(compute_basis(s, nullptr));
  cache[key] = basis;
  return basis;
}

// ONNX's axis: attribute `axis` (default 1) before opset 20, input 2 (default -2) from then on;
// in [-r, -2] or [0, r - 2] (not the real/imaginary axis).
uint32_t dft_axis(const NodeContext& c, size_t rank) {
  int64_t axis = 1;
  if (c.opset() >= 20) {
    axis = -2;
    if (c.has_input(2)) {
      const std::vector<int64_t> v = c.ints(2, "axis");
      if (v.size() != 1) c.invalid("axis must be a scalar");
      axis = v[0];
    }
  } else {
    axis = c.attr_int("axis", 1);
  }
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a > r - 2)
    c.invalid("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  return static_cast<uint32_t>(a);
}

}  // namespace

MLOperand dft_matmul(NodeContext& c, const MLOperand& x, const DftSpec& s,
                     const std::vector<double>* window) {
  if (s.length == 0 || s.rows == 0 || s.rows > s.used_rows())
    c.invalid("bad DFT length " + std::to_string(s.length));
  const uint64_t rows = uint64_t{s.rows} * s.channels;
  const uint64_t cols = uint64_t{s.bins()} * s.out_channels();
  if (rows * cols > kMaxBasisElements)
    c.unsupported("a DFT of length " + std::to_string(s.length) + " over " +
                  std::to_string(s.rows) + " samples: its basis would have " +
                  std::to_string(rows * cols) + " elements (limit " +
                  std::to_string(kMaxBasisElements) + ")");
  std::shared_ptr<const Basis> basis =
      window ? std::make_shared<const Basis>(compute_basis(s, window)) : cached_basis(s);
  const MLOperandDescriptor desc{DT::kFloat32,
                                 {static_cast<uint32_t>(rows), static_cast<uint32_t>(cols)}};
  const auto bytes = std::as_bytes(std::span<const float>(*basis));
  MLOperand w = c.builder().constant_view(desc, basis, bytes);
  return c.builder().matmul(x, w, c.opts<MLOperatorOptions>());
}

void import_DFT(NodeContext& c) {
  const std::vector<uint32_t> shape = c.input_shape(0);
  const size_t rank = shape.size();
  if (rank < 2) c.invalid("the input needs at least 2 dimensions");
  const uint32_t channels = shape.back();
  if (channels != 1 && channels != 2)
    c.invalid("the last dimension must be 1 (real) or 2 (complex), not " +
              std::to_string(channels));
  const DT type = c.input_type(0);
  if (!is_float_type(type)) c.unsupported("a DFT of a non-float input");
  const uint32_t axis = dft_axis(c, rank);
  const uint32_t n = shape[axis];

  DftSpec s;
  s.channels = channels;
  s.inverse = c.attr_int("inverse", 0) != 0;
  s.onesided = c.attr_int("onesided", 0) != 0;
  int64_t length = s.inverse && s.onesided ? 2 * (int64_t{n} - 1) : int64_t{n};
  if (c.has_input(1)) {
    const std::vector<int64_t> v = c.ints(1, "dft_length");
    if (v.size() != 1) c.invalid("dft_length must be a scalar");
    length = v[0];
  }
  if (length < 1 || length > INT32_MAX)
    c.invalid("dft_length " + std::to_string(length) + " is out of range");
  s.length = static_cast<uint32_t>(length);
  s.rows = std::min(n, s.used_rows());

  MLGraphBuilder& b = c.builder();
  MLOperand x = cast_to(c, c.input(0), DT::kFloat32);
  if (s.rows < n) {  // only the first `rows` samples are read
    std::vector<uint32_t> sizes = shape;
    sizes[axis] = s.rows;
    x = b.slice(x, std::vector<uint32_t>(rank, 0), sizes, c.opts<MLSliceOptions>());
  }
  // Move the axis next to the channel axis: [others..., rows, channels].
  std::vector<uint32_t> perm, moved;
  for (uint32_t d = 0; d + 1 < rank; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(static_cast<uint32_t>(rank - 1));
  const bool transpose = axis != rank - 2;
  if (transpose) {
    MLTransposeOptions o = c.opts<MLTransposeOptions>();
    o.permutation = perm;
    x = b.transpose(x, o);
  }
  uint64_t m = 1;
  for (size_t d = 0; d + 2 < rank; ++d) {
    m *= shape[perm[d]];
    moved.push_back(shape[perm[d]]);
  }
  if (m > UINT32_MAX) c.unsupported("more than 2^32 - 1 transforms");
  x = b.reshape(x, {static_cast<uint32_t>(m), s.rows * channels}, c.opts<MLOperatorOptions>());
  MLOperand y = dft_matmul(c, x, s);
  moved.push_back(s.bins());
  moved.push_back(s.out_channels());
  y = b.reshape(y, moved, c.opts<MLOperatorOptions>());
  if (transpose) {
    std::vector<uint32_t> inverse(rank);
    for (uint32_t d = 0; d < rank; ++d) inverse[perm[d]] = d;
    MLTransposeOptions o = c.opts<MLTransposeOptions>();
    o.permutation = inverse;
    y = b.transpose(y, o);
  }
  c.set_output(0, cast_to(c, y, type));
}

}  // namespace cppnn::onnx_import
