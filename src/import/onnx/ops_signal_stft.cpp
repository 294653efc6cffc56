// ONNX STFT (ops_signal.def, opset 17): the frames are gathered with a constant index
// [frames, frame_length] (frame f starts at f * frame_step), then transformed by the DFT basis
// matmul (ops_signal_dft.h). A constant window is folded into the basis; a run-time one
// multiplies the frames.
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_signal_dft.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// The largest frame index tensor (elements) an STFT may gather with.
constexpr uint64_t kMaxFrameIndices = uint64_t{1} << 26;

// A scalar (or one-element) constant integer input.
int64_t scalar_input(const NodeContext& c, size_t i, const char* what) {
  const std::vector<int64_t> v = c.ints(i, what);
  if (v.size() != 1) c.invalid(std::string(what) + " must be a scalar");
  return v[0];
}

}  // namespace

void import_STFT(NodeContext& c) {
  const std::vector<uint32_t> shape = c.input_shape(0);
  if (shape.size() != 3 || (shape[2] != 1 && shape[2] != 2))
    c.invalid("the signal must be [batch, length, 1] (real) or [batch, length, 2] (complex)");
  const DT type = c.input_type(0);
  if (!is_float_type(type)) c.unsupported("an STFT of a non-float signal");
  const uint32_t batch = shape[0], length = shape[1], channels = shape[2];

  const int64_t step = scalar_input(c, 1, "frame_step");
  if (step < 1) c.invalid("frame_step " + std::to_string(step) + " must be positive");
  const bool has_window = c.has_input(2);
  if (has_window && c.input_rank(2) != 1) c.invalid("the window must be 1-D");
  int64_t frame = has_window ? int64_t{c.input_shape(2)[0]} : int64_t{length};
  if (c.has_input(3)) {
    frame = scalar_input(c, 3, "frame_length");
    if (has_window && frame != int64_t{c.input_shape(2)[0]})
      c.invalid("frame_length " + std::to_string(frame) + " differs from the window size " +
                std::to_string(c.input_shape(2)[0]));
  }
  if (frame < 1 || frame > int64_t{length})
    c.invalid("frame_length " + std::to_string(frame) + " must be in [1, " +
              std::to_string(length) + "]");
  const uint64_t frames = 1 + static_cast<uint64_t>((int64_t{length} - frame) / step);
  if (frames * static_cast<uint64_t>(frame) > kMaxFrameIndices)
    c.unsupported(std::to_string(frames) + " frames of " + std::to_string(frame) +
                  " samples (limit " + std::to_string(kMaxFrameIndices) + " gathered samples)");

  DftSpec s;
  s.channels = channels;
  s.length = static_cast<uint32_t>(frame);
  s.rows = s.length;
  s.onesided = c.attr_int("onesided", 1) != 0;

  MLGraphBuilder& b = c.builder();
  MLOperand x = cast_to(c, c.input(0), DT::kFloat32);
  std::vector<int64_t> index(frames * static_cast<uint64_t>(frame));
  for (uint64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frame; ++j)
      index[f * static_cast<uint64_t>(frame) + static_cast<uint64_t>(j)] =
          static_cast<int64_t>(f) * step + j;
  const MLOperand idx =
      c.constant_operand(HostTensor::of_int64(index, {static_cast<uint32_t>(frames), s.length},
                                              length > INT32_MAX ? DT::kInt64 : DT::kInt32));
  MLGatherOptions g = c.opts<MLGatherOptions>();
  g.axis = 1;
  x = b.gather(x, idx, g);  // [batch, frames, frame, channels]

  std::vector<double> window;
  const bool fold_window = has_window && c.is_constant(2);
  if (fold_window) {
    window = c.constant(2, "window").to_double();
  } else if (has_window) {
    MLOperand w = cast_to(c, c.input(2), DT::kFloat32);
    w = b.reshape(w, {s.length, 1}, c.opts<MLOperatorOptions>());
    x = b.mul(x, w, c.opts<MLOperatorOptions>());
  }
  const uint64_t rows = uint64_t{batch} * frames;
  if (rows > UINT32_MAX) c.unsupported("more than 2^32 - 1 frames");
  x = b.reshape(x, {static_cast<uint32_t>(rows), s.length * channels}, c.opts<MLOperatorOptions>());
  MLOperand y = dft_matmul(c, x, s, fold_window ? &window : nullptr);
  y = b.reshape(y, {batch, static_cast<uint32_t>(frames), s.bins(), 2},
                c.opts<MLOperatorOptions>());
  c.set_output(0, cast_to(c, y, type));
}

}  // namespace cppnn::onnx_import
