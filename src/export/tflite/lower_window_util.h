// Sliding-window geometry shared by the TFLite lowerings of the convolutions and the pools: which
// of TFLite's implicit paddings (SAME, VALID; tensorflow/lite/kernels/padding.h) gives exactly the
// windows WebNN asks for, explicit padding (PAD, or CONCATENATION of constant blocks for other
// values) before a VALID op when neither does, and NHWC input and output for ops of either input
// layout (in namespace `spatial`). A window is determined by its begin padding, stride, (dilated)
// extent and the output size: two ops with the same four read the same input positions, whatever
// padding follows the input (it is never read, or read as padding by both), so the end padding
// never needs to match.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "cppnn/graph_model.h"
#include "src/export/tflite/emitter.h"
#include "src/export/tflite/lower_permute_util.h"
#include "src/export/tflite/lower_util.h"

namespace cppnn::tflite_export::spatial {

// One spatial axis of a window op: input size, dilated window extent ((k - 1)·d + 1), stride,
// WebNN's begin padding and the output size (floor, ceil or outputSizes already applied).
struct WindowAxis {
  int64_t in = 0, extent = 1, stride = 1, pad_begin = 0, out = 0;

  // TFLite's SAME: out = ceil(in / stride), total = max((out − 1)·stride + extent − in, 0),
  // begin = floor(total / 2).
  bool same_matches() const {
    const int64_t same_out = (in + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((same_out - 1) * stride + extent - in, 0);
    return same_out == out && total / 2 == pad_begin;
  }
  // TFLite's VALID: no padding, out = floor((in − extent) / stride) + 1.
  bool valid_matches() const {
    return pad_begin == 0 && in >= extent && (in - extent) / stride + 1 == out;
  }
  // The end padding a VALID op needs after pad_begin to give `out` windows (input positions
  // past the last window are left out by VALID, so this is never negative).
  int64_t pad_end() const {
    return std::max<int64_t>((out - 1) * stride + extent - in - pad_begin, 0);
  }
};

// SAME or VALID when TFLite's rule gives exactly WebNN's windows on both axes; nullopt when the
// op needs explicit padding.
inline std::optional<tfl::Padding> implicit_padding(const WindowAxis& h, const WindowAxis& w) {
  if (h.valid_matches() && w.valid_matches()) return tfl::Padding::VALID;
  if (h.same_matches() && w.same_matches()) return tfl::Padding::SAME;
  return std::nullopt;
}

// `x` with `before` and `after` elements of `value` (x's type) added along `axis`: a
// CONCATENATION with constant blocks (XNNPACK delegates it, unlike PADV2).
inline TensorIndex concat_fill(Emitter& e, TensorIndex x, int32_t axis, int32_t before,
                               int32_t after, double value) {
  if (before == 0 && after == 0) return x;
  std::vector<int32_t> shape = e.shape_of(x);
  std::vector<TensorIndex> parts;
  const size_t a = static_cast<size_t>(axis);
  for (int32_t n : {before, -1, after}) {
    if (n == 0) continue;
    if (n < 0) {
      parts.push_back(x);
      continue;
    }
    std::vector<int32_t> block = shape;
    block[a] = n;
    parts.push_back(e.scalar(e.type_of(x), value, std::move(block)));
  }
  shape[a] += before + after;
  return e.op1(
      tfl::BuiltinOperator::CONCATENATION, std::move(parts), e.type_of(x), std::move(shape),
      tfl::BuiltinOptions::ConcatenationOptions,
      tfl::CreateConcatenationOptions(e.fbb(), axis, tfl::ActivationFunctionType::NONE).Union());
}

// The NHWC tensor `x` padded on its spatial axes by [pad_begin, pad_end()] of `h` and `w`, for a
// VALID op: PAD (zeros) when `value` is absent (XNNPACK folds it into a following conv), else
// `value` in x's type (e.g. −Infinity or the lowest integer for a max pool) concatenated on each
// axis. `x` itself when nothing is padded.
inline TensorIndex pad_spatial(Emitter& e, TensorIndex x, const WindowAxis& h, const WindowAxis& w,
                               std::optional<double> value = std::nullopt) {
  const int32_t top = static_cast<int32_t>(h.pad_begin), bottom = static_cast<int32_t>(h.pad_end());
  const int32_t left = static_cast<int32_t>(w.pad_begin), right = static_cast<int32_t>(w.pad_end());
  if (value)
    return concat_fill(e, concat_fill(e, x, 1, top, bottom, *value), 2, left, right, *value);
  if (top == 0 && bottom == 0 && left == 0 && right == 0) return x;
  std::vector<int32_t> shape = e.shape_of(x);
  shape[1] += top + bottom;
  shape[2] += left + right;
  const std::vector<int32_t> pads{0, 0, top, bottom, left, right, 0, 0};
  std::vector<std::byte> bytes(pads.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), pads.data(), bytes.size());
  const TensorIndex paddings = e.constant(tfl::TensorType::INT32, {4, 2}, std::move(bytes));
  return e.op1(tfl::BuiltinOperator::PAD, {x, paddings}, e.type_of(x), std::move(shape),
               tfl::BuiltinOptions::PadOptions, tfl::CreatePadOptions(e.fbb()).Union());
}

// The op's input as NHWC (TFLite's spatial kernels take NHWC only): itself, or TRANSPOSEd from
// nchw (a constant is permuted at export).
inline TensorIndex nhwc_input(Emitter& e, const Operation& op, MLInputOperandLayout layout) {
  const TensorIndex x = e.value(op.inputs[0]);
  return layout == MLInputOperandLayout::kNchw ? permuted(e, x, nchw_to_nhwc()) : x;
}

// The op's output shape as NHWC.
inline std::vector<int32_t> nhwc_output_shape(const Emitter& e, const Operation& op,
                                              MLInputOperandLayout layout) {
  const std::vector<int32_t> s = shape_of(e.graph(), op.outputs[0]);
  return layout == MLInputOperandLayout::kNchw ? permute_shape(s, nchw_to_nhwc()) : s;
}

// Binds the op's output to the NHWC result `y`: y itself, or y TRANSPOSEd to nchw.
inline void bind_nhwc_output(Emitter& e, const Operation& op, MLInputOperandLayout layout,
                             TensorIndex y) {
  e.bind(op.outputs[0], layout == MLInputOperandLayout::kNchw ? e.transpose(y, nhwc_to_nchw()) : y);
}

}  // namespace cppnn::tflite_export::spatial
