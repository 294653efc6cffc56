// The importer's fast exact mappings (src/import/onnx/ops_nn_resize.cpp): nearest Resize and
// Upsample at integer upscales become one resample2d in every coordinate/rounding mode that picks
// the same pixels, and stay gathers where they would not. Each case checks the recorded graph's
// ops and that the output is bit-identical to ONNX's nearest formula evaluated here in float32 as
// ONNX Runtime does, on the reference backend and on ONNX Runtime when compiled in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"
#include "tests/import/import_test_util.h"
#include "tests/import/onnx_model_builder.h"

namespace cppnn {
namespace {

using testing::as;
using testing::attr_string;
using testing::OnnxModelBuilder;
using testing::to_bytes;
constexpr int32_t kFloat = onnx::TensorProto_DataType_FLOAT;

// A nearest Resize mode: coordinate transformation and rounding.
struct NearestMode {
  std::string coord;
  std::string rounding;
};

// ONNX's source index of output x for an upscale by k (float32 arithmetic, as ONNX Runtime).
int64_t onnx_nearest(const NearestMode& m, int64_t x, int64_t in, int64_t k) {
  const auto xf = static_cast<float>(x), kf = static_cast<float>(k);
  float xo = 0;
  if (m.coord == "asymmetric") xo = xf / kf;
  if (m.coord == "half_pixel" || m.coord == "pytorch_half_pixel") xo = (xf + 0.5f) / kf - 0.5f;
  if (m.coord == "tf_half_pixel_for_nn") xo = (xf + 0.5f) / kf;
  if (m.coord == "align_corners")
    xo = xf * static_cast<float>(in - 1) / static_cast<float>(in * k - 1);
  const float fl = std::floor(xo);
  int64_t i = static_cast<int64_t>(fl);
  if (m.rounding == "ceil") i = static_cast<int64_t>(std::ceil(xo));
  if (m.rounding == "round_prefer_floor" && xo - fl > 0.5f) ++i;
  if (m.rounding == "round_prefer_ceil" && xo - fl >= 0.5f) ++i;
  return std::clamp<int64_t>(i, 0, in - 1);
}

// Resize of x [1, 2, 3, 4] by k along H and W with mode `m` (opset 13, scales input).
OnnxModelBuilder resize_model(const NearestMode& m, float k) {
  OnnxModelBuilder b(13);
  b.input("x", kFloat, {1, 2, 3, 4}).output("y");
  b.initializer_f32("scales", {1.0f, 1.0f, k, k}, {4});
  auto& n = b.node("Resize", {"x", "", "scales"}, {"y"});
  attr_string(n, "mode", "nearest");
  attr_string(n, "coordinate_transformation_mode", m.coord);
  attr_string(n, "nearest_mode", m.rounding);
  return b;
}

// How many operations of `type` the imported model records.
size_t count_ops(const OnnxModelBuilder& m, OpType type) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  const std::string bytes = m.bytes();
  OnnxImportResult r =
      import_onnx_bytes(builder, std::as_bytes(std::span(bytes.data(), bytes.size())));
  const Graph g = builder.pruned_graph(r.outputs);
  size_t n = 0;
  for (const Operation& op : g.operations) n += op.type == type;
  return n;
}

// x [1, 2, 3, 4] with distinct values, and ONNX's nearest upscale of it by k under `m`.
std::vector<float> input_values() {
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i) - 3.0f;
  return x;
}
std::vector<float> expected(const NearestMode& m, int64_t k) {
  const std::vector<float> x = input_values();
  std::vector<float> y;
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t h = 0; h < 3 * k; ++h)
      for (int64_t w = 0; w < 4 * k; ++w)
        y.push_back(x[(c * 3 + onnx_nearest(m, h, 3, k)) * 4 + onnx_nearest(m, w, 4, k)]);
  return y;
}

void expect_bit_identical(const OnnxModelBuilder& m, const std::vector<float>& want,
                          const std::string& what) {
  for (const std::string& be : testing::import_backends()) {
    const std::vector<float> got =
        as<float>(testing::run_y_bytes(m, be, {{"x", to_bytes(input_values())}}));
    ASSERT_EQ(got.size(), want.size()) << what << " on " << be;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << what << " on " << be;
  }
}

TEST(OnnxImportFastMappings, NearestIntegerUpscalesBecomeResample2d) {
  const std::vector<std::pair<NearestMode, int64_t>> cases = {
      {{"asymmetric", "floor"}, 2},
      {{"asymmetric", "floor"}, 3},
      {{"asymmetric", "floor"}, 8},
      {{"asymmetric", "round_prefer_floor"}, 2},
      {{"half_pixel", "round_prefer_floor"}, 4},
      {{"half_pixel", "round_prefer_ceil"}, 3},
      {{"pytorch_half_pixel", "round_prefer_ceil"}, 2},
      {{"tf_half_pixel_for_nn", "floor"}, 5},
  };
  for (const auto& [mode, k] : cases) {
    const std::string what = mode.coord + "/" + mode.rounding + " x" + std::to_string(k);
    const OnnxModelBuilder m = resize_model(mode, static_cast<float>(k));
    EXPECT_EQ(count_ops(m, OpType::kResample2d), 1u) << what;
    EXPECT_EQ(count_ops(m, OpType::kGather), 0u) << what;
    expect_bit_identical(m, expected(mode, k), what);
  }
}

// Modes that pick other pixels at these scales stay gathers, still exact.
TEST(OnnxImportFastMappings, OtherNearestModesStayGathers) {
  const std::vector<std::pair<NearestMode, int64_t>> cases = {
      {{"asymmetric", "round_prefer_floor"}, 3},
      {{"asymmetric", "ceil"}, 2},
      {{"half_pixel", "floor"}, 2},
      {{"align_corners", "round_prefer_floor"}, 2},
      {{"tf_half_pixel_for_nn", "round_prefer_floor"}, 4},
  };
  for (const auto& [mode, k] : cases) {
    const std::string what = mode.coord + "/" + mode.rounding + " x" + std::to_string(k);
    const OnnxModelBuilder m = resize_model(mode, static_cast<float>(k));
    EXPECT_EQ(count_ops(m, OpType::kResample2d), 0u) << what;
    expect_bit_identical(m, expected(mode, k), what);
  }
}

// Upsample (opset 9) is asymmetric with floor-like rounding when upscaling: resample2d.
TEST(OnnxImportFastMappings, UpsampleNearestBecomesResample2d) {
  OnnxModelBuilder m(9);
  m.input("x", kFloat, {1, 2, 3, 4}).output("y");
  m.initializer_f32("scales", {1.0f, 1.0f, 2.0f, 4.0f}, {4});
  m.node("Upsample", {"x", "scales"}, {"y"});
  EXPECT_EQ(count_ops(m, OpType::kResample2d), 1u);
  const std::vector<float> x = input_values();
  std::vector<float> want;
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 6; ++h)
      for (int w = 0; w < 16; ++w) want.push_back(x[(c * 3 + h / 2) * 4 + w / 4]);
  expect_bit_identical(m, want, "upsample");
}

}  // namespace
}  // namespace cppnn
