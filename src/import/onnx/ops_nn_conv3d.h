// 3-D ONNX Conv and ConvTranspose as WebNN 2-D convolutions (ops_nn_conv3d.cpp). WebNN has
// conv2d / convTranspose2d only; the depth axis is handled by gathers, pads and sums around one
// 2-D convolution with the kernel-depth taps folded into the channels.
#pragma once

#include <cstdint>
#include <vector>

#include "src/import/onnx/node_context.h"
#include "src/import/onnx/ops_nn_util.h"

namespace cppnn::onnx_import {

// ONNX Conv over [N, C, D, H, W] with the 3-D params p (pads and auto_pad resolved): sets output 0.
void import_conv3d(NodeContext& c, const SpatialParams& p);
// ONNX ConvTranspose over [N, C, D, H, W] with the 3-D params p (pads resolved, also those of
// output_shape), output_padding `out_pad` and the resolved spatial `out_shape` (empty when none):
// sets output 0.
void import_conv_transpose3d(NodeContext& c, const SpatialParams& p,
                             const std::vector<uint32_t>& out_pad,
                             const std::vector<int64_t>& out_shape);

}  // namespace cppnn::onnx_import
