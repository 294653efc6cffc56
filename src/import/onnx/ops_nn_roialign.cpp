// ONNX RoiAlign (opsets 10 and 16) on WebNN arithmetic and one gather, following the ONNX
// reference implementation (and ONNX Runtime): each roi [x1, y1, x2, y2] * spatial_scale, less
// 0.5 with coordinate_transformation_mode half_pixel (opset 16's default; output_half_pixel,
// opset 10's behaviour, also forces the roi to at least 1 x 1), splits into output_height x
// output_width bins of grid_h x grid_w sample points ((i + 0.5) / grid of the bin). A sample
// outside [-1, size] contributes 0; else it is clamped to >= 0, and bilinear between floor and
// floor + 1 (both the last row / column at the edge). avg averages the weighted samples; max
// takes the largest weighted tap of each sample, then the largest sample (ONNX Runtime's rule).
// grid = sampling_ratio, or with sampling_ratio 0 ceil(roi size / output size) per roi: known
// rois only (the counts decide the graph's shape), computed on the host in float32 and padded to
// the largest count with a mask.
//
// The graph: per axis the sample coordinates [R, bins, grid], their two taps and weights; the taps
// combine into rows b * H * W + y * W + x of the input as [N * H * W, C], one gather reads
// [R, PH, GH, PW, GW, 4, C], and weights, masks and reductions give [R, PH, PW, C] -> transposed
// to [R, C, PH, PW].
#include <algorithm>
#include <cmath>
#include <limits>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_nn_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// The largest adaptive sample count per axis taken from known rois.
constexpr int64_t kMaxAdaptiveGrid = 4096;

// One axis of the samples: taps [R, bins, grid, 2] (int32 rows / columns in [0, size - 1]) and
// weights [R, bins, grid, 2] (0 for samples outside the map).
struct AxisSamples {
  MLOperand taps, weights;
};

// start, bin: [R, 1, 1]; grid: the per-roi counts [R, 1, 1] (float32) or a scalar.
AxisSamples axis_samples(Float32Arith& a, const MLOperand& start, const MLOperand& bin,
                         const MLOperand& grid, uint32_t bins, uint32_t grid_max, uint32_t size) {
  const uint32_t r = start.shape()[0];
  // start + bin_index * bin + (i + 0.5) * bin / grid
  MLOperand v = a.add(a.add(start, a.mul(a.iota(bins, 0, {1, bins, 1}), bin)),
                      a.div(a.mul(a.iota(grid_max, 0.5, {1, 1, grid_max}), bin), grid));
  const double last = static_cast<double>(size) - 1;
  const MLOperand outside = a.b.logicalOr(a.b.lesser(v, a.k(-1), a.o),
                                          a.b.greater(v, a.k(static_cast<double>(size)), a.o), a.o);
  // max(v, 0) with NaN -> 0, so that every tap below is in range.
  v = a.where(a.b.greaterOrEqual(v, a.k(0), a.o), v, a.k(0));
  MLOperand low = a.b.floor(v, a.o);
  const MLOperand edge = a.b.greaterOrEqual(low, a.k(last), a.o);
  low = a.where(edge, a.k(last), low);
  const MLOperand high = a.where(edge, a.k(last), a.add(low, a.k(1)));
  v = a.where(edge, low, v);
  const MLOperand l = a.sub(v, low), h = a.sub(a.k(1), l);
  AxisSamples s;
  MLOperand taps = a.b.concat({a.b.reshape(low, {r, bins, grid_max, 1}, a.o),
                               a.b.reshape(high, {r, bins, grid_max, 1}, a.o)},
                              3, a.o);
  s.taps = a.b.cast(taps, DT::kInt32, a.o);
  MLOperand w = a.b.concat(
      {a.b.reshape(h, {r, bins, grid_max, 1}, a.o), a.b.reshape(l, {r, bins, grid_max, 1}, a.o)}, 3,
      a.o);
  s.weights =
      a.where(a.b.reshape(outside, {r, bins, grid_max, 1}, a.o), a.k(0), w);  // [R, bins, G, 2]
  return s;
}

// float32 rounding of the reference's per-roi arithmetic, for the adaptive counts.
struct RoiCounts {
  std::vector<int64_t> grid_h, grid_w;
  int64_t max_h = 1, max_w = 1;
};

RoiCounts adaptive_counts(const NodeContext& c, float scale, float offset, bool half_pixel,
                          uint32_t ph, uint32_t pw) {
  const std::vector<double> rois =
      c.constant(1, "rois (sampling_ratio 0 makes the sample counts depend on them)").to_double();
  RoiCounts counts;
  for (size_t i = 0; i + 3 < rois.size(); i += 4) {
    const auto coord = [&](size_t j) { return static_cast<float>(rois[i + j]) * scale - offset; };
    float width = coord(2) - coord(0), height = coord(3) - coord(1);
    if (!half_pixel) {
      width = std::max(width, 1.0f);
      height = std::max(height, 1.0f);
    }
    const auto count = [&](float extent, uint32_t bins) -> int64_t {
      const float g = std::ceil(extent / static_cast<float>(bins));
      if (!(g <= static_cast<float>(kMaxAdaptiveGrid)))
        c.unsupported("an adaptive sample count over " + std::to_string(kMaxAdaptiveGrid));
      return g < 0 ? 0 : static_cast<int64_t>(g);
    };
    counts.grid_h.push_back(count(height, ph));
    counts.grid_w.push_back(count(width, pw));
    counts.max_h = std::max(counts.max_h, counts.grid_h.back());
    counts.max_w = std::max(counts.max_w, counts.grid_w.back());
  }
  return counts;
}

}  // namespace

void import_RoiAlign(NodeContext& c) {
  const std::string mode = c.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") c.invalid("unknown mode '" + mode + "'");
  const std::string coord = c.attr_string("coordinate_transformation_mode",
                                          c.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (coord != "half_pixel" && coord != "output_half_pixel")
    c.invalid("unknown coordinate_transformation_mode '" + coord + "'");
  const bool half_pixel = coord == "half_pixel";
  const int64_t ph64 = c.attr_int("output_height", 1), pw64 = c.attr_int("output_width", 1);
  const int64_t ratio = c.attr_int("sampling_ratio", 0);
  const float scale = c.attr_float("spatial_scale", 1.0f);
  if (ph64 < 1 || pw64 < 1) c.invalid("output_height and output_width must be >= 1");
  if (ph64 > INT32_MAX || pw64 > INT32_MAX) c.unsupported("an output over 2^31-1 bins");
  if (ratio < 0) c.invalid("sampling_ratio must be >= 0");
  if (ratio > kMaxAdaptiveGrid)
    c.unsupported("a sampling_ratio over " + std::to_string(kMaxAdaptiveGrid));
  const std::vector<uint32_t>& xs = c.input_shape(0);
  if (xs.size() != 4) c.invalid("the input must be 4-D [N, C, H, W]");
  const DT type = c.input_type(0);
  if (!is_float_type(type)) c.invalid("the input must be float32 or float16");
  if (c.input_shape(1).size() != 2 || c.input_shape(1)[1] != 4) c.invalid("rois must be [R, 4]");
  const uint32_t rois = c.input_shape(1)[0];
  if (rois == 0 || element_count(xs) == 0) c.unsupported("an empty input or roi list");
  if (c.input_shape(2) != std::vector<uint32_t>{rois}) c.invalid("batch_indices must be [R]");
  const DT itype = c.input_type(2);
  if (itype != DT::kInt64 && itype != DT::kInt32) c.invalid("batch_indices must be an integer");
  const uint32_t n = xs[0], channels = xs[1], height = xs[2], width = xs[3];
  const auto ph = static_cast<uint32_t>(ph64), pw = static_cast<uint32_t>(pw64);
  const float offset = half_pixel ? 0.5f : 0.0f;
  const bool adaptive = ratio == 0;
  RoiCounts counts;
  if (adaptive) counts = adaptive_counts(c, scale, offset, half_pixel, ph, pw);
  const auto gh = static_cast<uint32_t>(adaptive ? counts.max_h : ratio);
  const auto gw = static_cast<uint32_t>(adaptive ? counts.max_w : ratio);
  const uint64_t rows = bounded_product(c, {n, height, width}, "RoiAlign's input rows");
  if (rows > INT32_MAX) c.unsupported("an input with more than 2^31-1 positions");
  const uint64_t taps = bounded_product(c, {rois, ph, gh, pw, gw, 4}, "RoiAlign's taps");
  bounded_product(c, {taps, channels}, "RoiAlign's gathered taps");

  Float32Arith a(c);
  MLGraphBuilder& b = a.b;
  // [R, 4] -> x1, y1, x2, y2 as [R, 1, 1] float32, scaled and shifted.
  const MLOperand box = cast_to(c, c.input(1), DT::kFloat32);
  std::vector<MLOperand> corner;
  for (uint32_t j = 0; j < 4; ++j) {
    MLOperand v =
        b.reshape(b.slice(box, {0, j}, {rois, 1}, c.opts<MLSliceOptions>()), {rois, 1, 1}, a.o);
    corner.push_back(a.sub(a.mul(v, a.k(scale)), a.k(offset)));
  }
  MLOperand roi_w = a.sub(corner[2], corner[0]), roi_h = a.sub(corner[3], corner[1]);
  if (!half_pixel) {
    roi_w = b.max(roi_w, a.k(1), a.o);
    roi_h = b.max(roi_h, a.k(1), a.o);
  }
  const MLOperand bin_h = a.div(roi_h, a.k(ph)), bin_w = a.div(roi_w, a.k(pw));
  MLOperand grid_h = a.k(static_cast<double>(gh)), grid_w = a.k(static_cast<double>(gw));
  if (adaptive) {
    std::vector<double> vh(counts.grid_h.begin(), counts.grid_h.end()),
        vw(counts.grid_w.begin(), counts.grid_w.end());
    // A zero count divides nothing that is used (its samples are masked); 1 keeps it finite.
    for (double& v : vh) v = std::max(v, 1.0);
    for (double& v : vw) v = std::max(v, 1.0);
    grid_h = c.constant_operand(HostTensor::of_double(vh, {rois, 1, 1}));
    grid_w = c.constant_operand(HostTensor::of_double(vw, {rois, 1, 1}));
  }
  AxisSamples ys = axis_samples(a, corner[1], bin_h, grid_h, ph, gh, height);
  AxisSamples xsamp = axis_samples(a, corner[0], bin_w, grid_w, pw, gw, width);
  // Rows b * H * W + y * W + x as [R, PH, GH, PW, GW, 2, 2].
  const std::vector<uint32_t> yshape = {rois, ph, gh, 1, 1, 2, 1},
                              xshape = {rois, 1, 1, pw, gw, 1, 2};
  MLOperand batch = cast_to(c, c.input(2), DT::kInt32);
  batch =
      b.where(b.lesser(batch, c.scalar(DT::kInt32, 0), a.o), c.scalar(DT::kInt32, 0), batch, a.o);
  batch = b.where(b.greater(batch, c.scalar(DT::kInt32, n - 1.0), a.o),
                  c.scalar(DT::kInt32, n - 1.0), batch, a.o);
  batch = b.mul(b.reshape(batch, {rois, 1, 1, 1, 1, 1, 1}, a.o),
                c.scalar(DT::kInt32, static_cast<double>(height) * width), a.o);
  MLOperand pos = b.add(
      b.mul(b.reshape(ys.taps, yshape, a.o), c.scalar(DT::kInt32, static_cast<double>(width)), a.o),
      b.reshape(xsamp.taps, xshape, a.o), a.o);
  pos = b.add(pos, batch, a.o);
  MLOperand weight =
      a.mul(b.reshape(ys.weights, yshape, a.o), b.reshape(xsamp.weights, xshape, a.o));
  const auto t32 = static_cast<uint32_t>(taps);
  // The input as [N * H * W, C], gathered at every tap.
  MLTransposeOptions to = c.opts<MLTransposeOptions>();
  to.permutation = std::vector<uint32_t>{0, 2, 3, 1};
  MLOperand x =
      b.reshape(b.transpose(c.input(0), to), {static_cast<uint32_t>(rows), channels}, a.o);
  MLOperand g = b.gather(x, b.reshape(pos, {t32}, a.o), c.opts<MLGatherOptions>());
  g = b.reshape(g, {rois, ph, gh, pw, gw, 4, channels}, a.o);
  weight = cast_to(c, b.reshape(weight, {rois, ph, gh, pw, gw, 4, 1}, a.o), type);
  MLOperand v = b.mul(g, weight, a.o);
  // The samples that exist with adaptive counts (a zero count has none): [R, 1, GH, 1, GW, 1].
  std::optional<MLOperand> exists;
  if (adaptive) {
    const MLOperand th = c.constant_operand(
        HostTensor::of_int64(counts.grid_h, {rois, 1, 1, 1, 1, 1}, DT::kFloat32));
    const MLOperand tw = c.constant_operand(
        HostTensor::of_int64(counts.grid_w, {rois, 1, 1, 1, 1, 1}, DT::kFloat32));
    exists = b.logicalAnd(b.lesser(a.iota(gh, 0, {1, 1, gh, 1, 1, 1}), th, a.o),
                          b.lesser(a.iota(gw, 0, {1, 1, 1, 1, gw, 1}), tw, a.o), a.o);
  }
  MLReduceOptions ro = c.opts<MLReduceOptions>();
  MLOperand y;
  if (mode == "avg") {
    ro.axes = std::vector<uint32_t>{5};
    v = b.reduceSum(v, ro);  // [R, PH, GH, PW, GW, C]
    if (exists) v = b.where(*exists, v, c.scalar(type, 0), a.o);
    ro.axes = std::vector<uint32_t>{2, 4};
    y = b.reduceSum(v, ro);  // [R, PH, PW, C]
    std::vector<double> count(rois, static_cast<double>(gh) * gw);
    if (adaptive)
      for (uint32_t i = 0; i < rois; ++i)
        count[i] = std::max<double>(1.0, static_cast<double>(counts.grid_h[i]) * counts.grid_w[i]);
    y = b.div(y, c.constant_operand(HostTensor::of_double(count, {rois, 1, 1, 1}, type)), a.o);
  } else {
    ro.axes = std::vector<uint32_t>{5};
    v = b.reduceMax(v, ro);
    if (exists)
      v = b.where(*exists, v, c.scalar(type, -std::numeric_limits<double>::infinity()), a.o);
    ro.axes = std::vector<uint32_t>{2, 4};
    y = b.reduceMax(v, ro);
    if (adaptive) {
      std::vector<int64_t> any(rois);
      for (uint32_t i = 0; i < rois; ++i) any[i] = counts.grid_h[i] > 0 && counts.grid_w[i] > 0;
      y = b.where(c.constant_operand(HostTensor::of_int64(any, {rois, 1, 1, 1}, DT::kUint8)), y,
                  c.scalar(type, 0), a.o);
    }
  }
  to.permutation = std::vector<uint32_t>{0, 3, 1, 2};
  c.set_output(0, b.transpose(y, to));
}

}  // namespace cppnn::onnx_import
