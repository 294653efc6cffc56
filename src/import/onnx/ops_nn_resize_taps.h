// Separable resize of ONNX Resize / Upsample on WebNN gathers (see ops_nn_resize.cpp): per
// resized axis, each output coordinate reads a few input positions ("taps") with fixed weights,
// all computed at conversion time as the ONNX reference does.
#pragma once

#include <string>
#include <vector>

#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// Everything that defines one resize.
struct ResizeSpec {
  std::string mode;          // nearest | linear | cubic
  std::string coord;         // coordinate_transformation_mode
  std::string nearest_mode;  // round_prefer_floor | round_prefer_ceil | floor | ceil | simple
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;              // tf_crop_and_resize outside the input
  std::vector<double> scales;              // per input dimension
  std::vector<uint32_t> out;               // output shape
  std::vector<double> roi_start, roi_end;  // per input dimension (tf_crop_and_resize)
};

// `x` resized by `s` with one gather (plus weights and a sum for linear and cubic) per axis whose
// mapping is not the identity.
MLOperand resize_by_taps(NodeContext& c, const MLOperand& x, const ResizeSpec& s);

}  // namespace cppnn::onnx_import
