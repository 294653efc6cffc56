// 3-D ONNX pools as two WebNN 2-D pools (see ops_nn_pool3d.h).
#include "src/import/onnx/ops_nn_pool3d.h"

#include <vector>

namespace cppnn::onnx_import {
namespace {

// A WebNN 2-D pool of `kind` over a 4-D `x`.
MLOperand pool2d(NodeContext& c, PoolKind kind, const MLOperand& x, std::vector<uint32_t> window,
                 std::vector<uint32_t> padding, std::vector<uint32_t> strides,
                 std::vector<uint32_t> dilations) {
  MLPool2dOptions o = c.opts<MLPool2dOptions>();
  o.windowDimensions = std::move(window);
  o.padding = std::move(padding);
  o.strides = std::move(strides);
  o.dilations = std::move(dilations);
  switch (kind) {
    case PoolKind::kMax:
      return c.builder().maxPool2d(x, o);
    case PoolKind::kAverage:
      return c.builder().averagePool2d(x, o);
    case PoolKind::kL2:
      return c.builder().l2Pool2d(x, o);
  }
  return x;
}

}  // namespace

MLOperand pool3d(NodeContext& c, PoolKind kind, const MLOperand& x, const SpatialParams& p) {
  const std::vector<uint32_t> s = x.shape();
  const uint32_t n = s[0], ch = s[1], d = s[2];
  // HW windows of each depth slice.
  const auto slices = static_cast<uint32_t>(dims_product(c, s, 1, 3));
  MLOperand y = reshape_to(c, x, {n, slices, s[3], s[4]});
  y = pool2d(c, kind, y, {p.kernel[1], p.kernel[2]},
             {p.pad_begin[1], p.pad_end[1], p.pad_begin[2], p.pad_end[2]},
             {p.strides[1], p.strides[2]}, {p.dilations[1], p.dilations[2]});
  const uint32_t ho = y.shape()[2], wo = y.shape()[3];
  // Depth windows over [N, C, D, Ho·Wo].
  y = reshape_to(c, y, {n, ch, d, static_cast<uint32_t>(dims_product(c, y.shape(), 2, 4))});
  y = pool2d(c, kind, y, {p.kernel[0], 1}, {p.pad_begin[0], p.pad_end[0], 0, 0}, {p.strides[0], 1},
             {p.dilations[0], 1});
  return reshape_to(c, y, {n, ch, y.shape()[2], ho, wo});
}

}  // namespace cppnn::onnx_import
