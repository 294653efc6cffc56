// The ONNX lowering of the convolution family (conv2d, convTranspose2d, the three pools and
// resample2d; src/export/onnx/lower_{convolution,pooling,resample}.cpp): the emitted node types
// and attributes of the main cases, the ONNX checker on each, and, when the ONNX Runtime backend
// is compiled in, the results on ORT against the reference backend for the decomposed cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "src/export/onnx/convert.h"
#include "tests/backends/run_util.h"
#include "tests/export/onnx_test_util.h"

namespace cppnn::testing {
namespace {

using DT = MLOperandDataType;
using Dims = std::vector<uint32_t>;

// The float32 bytes of `values`.
std::vector<std::byte> f32_bytes(const std::vector<float>& values) {
  return to_bytes(values);
}

// Builds one graph on a reference context and converts it.
class OnnxLowerConvolution : public ::testing::Test {
 protected:
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder b{context};

  MLOperand constant(Dims shape, size_t count) {
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = static_cast<float>(i % 7) - 3.f;
    return b.constant({DT::kFloat32, std::move(shape)}, f32_bytes(v));
  }
  // Converts the graph of output `y` (and runs the ONNX checker on it).
  onnx::GraphProto convert(const MLOperand& y) {
    MLGraph graph = b.build({{"y", y}});
    EXPECT_NO_THROW(check_onnx(graph.graph()));
    return onnx_export::convert_graph(graph.graph(), {}).model.graph();
  }
};

using testing::attr;
using testing::has_attr;
using testing::ints;
using testing::op_types;

using V = std::vector<std::string>;
using I = std::vector<int64_t>;

TEST_F(OnnxLowerConvolution, Conv2dFloat32NchwIsOneConvWithBias) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 4, 9, 9}});
  MLOperand y = b.conv2d(x, constant({6, 2, 3, 3}, 108),
                         {.padding = {1, 2, 0, 3},
                          .strides = {2, 1},
                          .dilations = {1, 2},
                          .groups = 2,
                          .bias = constant({6}, 6)});
  const onnx::GraphProto g = convert(y);
  ASSERT_EQ(op_types(g), V{"Conv"});
  const onnx::NodeProto& conv = g.node(0);
  ASSERT_EQ(conv.input_size(), 3);
  EXPECT_EQ(conv.input(0), "x");
  EXPECT_EQ(conv.output(0), "y");
  // WebNN [beginH, endH, beginW, endW] -> ONNX [beginH, beginW, endH, endW].
  EXPECT_EQ(ints(attr(conv, "pads")), (I{1, 0, 2, 3}));
  EXPECT_EQ(ints(attr(conv, "strides")), (I{2, 1}));
  EXPECT_EQ(ints(attr(conv, "dilations")), (I{1, 2}));
  EXPECT_EQ(ints(attr(conv, "kernel_shape")), (I{3, 3}));
  EXPECT_EQ(attr(conv, "group").i(), 2);
}

// A float32 batchNormalization after a conv2d with constant parameters folds into the Conv (as
// ONNX Runtime's Conv+BatchNormalization fusion would; the standalone lowering's Sub would block
// it); with a non-constant mean it stays Sub + BatchNormalization.
TEST_F(OnnxLowerConvolution, Conv2dBatchNormalizationFoldsIntoConv) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 2, 5, 5}});
  MLOperand conv = b.conv2d(x, constant({3, 2, 3, 3}, 54), {.bias = constant({3}, 3)});
  MLOperand variance = b.constant({DT::kFloat32, {3}}, f32_bytes({0.5f, 1.0f, 2.0f}));
  const onnx::GraphProto g =
      convert(b.batchNormalization(conv, constant({3}, 3), variance, {.epsilon = 1e-3}));
  EXPECT_EQ(op_types(g), V{"Conv"});
  // A second graph (a builder builds once): the mean is an input.
  MLGraphBuilder b2{context};
  MLOperand x2 = b2.input("x", {DT::kFloat32, {1, 2, 5, 5}});
  MLOperand filter =
      b2.constant({DT::kFloat32, {3, 2, 3, 3}}, f32_bytes(std::vector<float>(54, 0.5f)));
  MLOperand variance2 = b2.constant({DT::kFloat32, {3}}, f32_bytes({0.5f, 1.0f, 2.0f}));
  MLOperand mean = b2.input("mean", {DT::kFloat32, {3}});
  MLGraph graph = b2.build(
      {{"y", b2.batchNormalization(b2.conv2d(x2, filter), mean, variance2, {.epsilon = 1e-3})}});
  const onnx::GraphProto kept = onnx_export::convert_graph(graph.graph(), {}).model.graph();
  EXPECT_EQ(op_types(kept), (V{"Conv", "Reshape", "Sub", "BatchNormalization"}));
}

TEST_F(OnnxLowerConvolution, Conv2dNhwcHwioTransposesAroundConv) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 5, 5, 3}});
  MLOperand y = b.conv2d(x, constant({2, 2, 3, 4}, 48),
                         {.inputLayout = MLInputOperandLayout::kNhwc,
                          .filterLayout = MLConv2dFilterOperandLayout::kHwio});
  const onnx::GraphProto g = convert(y);
  ASSERT_EQ(op_types(g), (V{"Transpose", "Transpose", "Conv", "Transpose"}));
  EXPECT_EQ(ints(attr(g.node(0), "perm")), (I{3, 2, 0, 1}));  // hwio -> oihw
  EXPECT_EQ(ints(attr(g.node(1), "perm")), (I{0, 3, 1, 2}));  // nhwc -> nchw
  EXPECT_EQ(ints(attr(g.node(3), "perm")), (I{0, 2, 3, 1}));  // nchw -> nhwc
  EXPECT_EQ(g.node(3).output(0), "y");
}

TEST_F(OnnxLowerConvolution, ConvTranspose2dOutputSizesBecomeOutputPadding) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 1, 3, 3}});
  MLOperand y =
      b.convTranspose2d(x, constant({1, 2, 3, 3}, 18), {.strides = {3, 2}, .outputSizes = {10, 8}});
  const onnx::GraphProto g = convert(y);
  ASSERT_EQ(op_types(g), V{"ConvTranspose"});
  // calc = (3-1)*3 + 3 = 9 and (3-1)*2 + 3 = 7.
  EXPECT_EQ(ints(attr(g.node(0), "output_padding")), (I{1, 1}));
  EXPECT_EQ(ints(attr(g.node(0), "strides")), (I{3, 2}));

  MLGraphBuilder b2{context};
  MLOperand x2 = b2.input("x", {DT::kFloat32, {1, 3, 3, 2}});
  std::vector<float> w(2 * 3 * 3 * 2, 1.f);
  MLOperand y2 = b2.convTranspose2d(x2, b2.constant({DT::kFloat32, {2, 3, 3, 2}}, f32_bytes(w)),
                                    {.groups = 1,
                                     .inputLayout = MLInputOperandLayout::kNhwc,
                                     .filterLayout = MLConvTranspose2dFilterOperandLayout::kOhwi});
  const onnx::GraphProto g2 =
      onnx_export::convert_graph(b2.build({{"y", y2}}).graph(), {}).model.graph();
  ASSERT_EQ(op_types(g2), (V{"Transpose", "Transpose", "ConvTranspose", "Transpose"}));
  EXPECT_EQ(ints(attr(g2.node(0), "perm")), (I{3, 0, 1, 2}));  // ohwi -> iohw
  EXPECT_FALSE(has_attr(g2.node(2), "output_padding"));
}

TEST_F(OnnxLowerConvolution, PoolsAreOneNodeWithCeilAsExtraEndPadding) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 2, 5, 5}});
  MLOperand y = b.averagePool2d(x, {.windowDimensions = {3, 3},
                                    .padding = {1, 0, 0, 1},
                                    .strides = {2, 2},
                                    .outputShapeRounding = MLRoundingType::kCeil});
  const onnx::GraphProto g = convert(y);
  ASSERT_EQ(op_types(g), V{"AveragePool"});
  // ceil: 3x3 outputs need 7 positions: 5 + 1 + 0 -> end padding 1 in height, 5+0+1 is 6 -> 1.
  EXPECT_EQ(ints(attr(g.node(0), "pads")), (I{1, 0, 1, 2}));
  EXPECT_FALSE(has_attr(g.node(0), "ceil_mode"));
  EXPECT_FALSE(has_attr(g.node(0), "count_include_pad"));  // 0: padding is never counted
}

TEST_F(OnnxLowerConvolution, GlobalPoolsAndFallbacks) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 2, 5, 5}});
  MLOperand global = b.averagePool2d(x);
  // Dilated average: no AveragePool dilations at opset 17 -> ones Conv / count.
  MLOperand dilated = b.averagePool2d(x, {.windowDimensions = {2, 2}, .dilations = {2, 2}});
  MLOperand l2 = b.l2Pool2d(x, {.windowDimensions = {2, 2}, .padding = {2, 2, 0, 0}});
  MLGraph graph = b.build({{"g", global}, {"d", dilated}, {"l", l2}});
  EXPECT_NO_THROW(check_onnx(graph.graph()));
  const onnx::GraphProto g = onnx_export::convert_graph(graph.graph(), {}).model.graph();
  EXPECT_EQ(op_types(g), (V{"GlobalAveragePool", "Reshape", "Conv", "Reshape", "Div", "Mul",
                            "Reshape", "Conv", "Reshape", "Sqrt"}));
}

TEST_F(OnnxLowerConvolution, MaxPoolIntegersPoolExactly) {
  MLOperand x32 = b.input("x32", {DT::kInt32, {1, 1, 4, 4}});
  MLOperand x64 = b.input("x64", {DT::kInt64, {1, 1, 4, 4}});
  MLOperand x8 = b.input("x8", {DT::kUint8, {1, 1, 4, 4}});
  const MLPool2dOptions o{.windowDimensions = {2, 2}, .strides = {2, 2}};
  MLGraph graph =
      b.build({{"a", b.maxPool2d(x32, o)}, {"b", b.maxPool2d(x64, o)}, {"c", b.maxPool2d(x8, o)}});
  EXPECT_NO_THROW(check_onnx(graph.graph()));
  const onnx::GraphProto g = onnx_export::convert_graph(graph.graph(), {}).model.graph();
  EXPECT_EQ(op_types(g),
            (V{"Cast", "MaxPool", "Cast", "Slice", "Slice", "Slice", "Slice", "Max", "MaxPool"}));
}

TEST_F(OnnxLowerConvolution, Resample2dNearestAndLinear) {
  MLOperand x = b.input("x", {DT::kFloat32, {1, 2, 6, 4}});
  MLOperand up = b.resample2d(x, {.scales = {2.f, 2.f}});
  // 6 -> 5 is not exact in ORT's float coordinates: Gather with computed indices.
  MLOperand down = b.resample2d(x, {.sizes = {5, 4}});
  MLOperand lin =
      b.resample2d(x, {.mode = MLInterpolationMode::kLinear, .sizes = {2, 3}, .axes = {0, 1}});
  MLGraph graph = b.build({{"up", up}, {"down", down}, {"lin", lin}});
  EXPECT_NO_THROW(check_onnx(graph.graph()));
  const onnx::GraphProto g = onnx_export::convert_graph(graph.graph(), {}).model.graph();
  ASSERT_EQ(op_types(g), (V{"Resize", "Gather", "Transpose", "Resize", "Transpose"}));
  const onnx::NodeProto& resize = g.node(0);
  EXPECT_EQ(attr(resize, "mode").s(), "nearest");
  EXPECT_EQ(attr(resize, "coordinate_transformation_mode").s(), "half_pixel");
  EXPECT_EQ(attr(resize, "nearest_mode").s(), "round_prefer_floor");
  EXPECT_EQ(attr(g.node(1), "axis").i(), 2);
  EXPECT_EQ(attr(g.node(3), "mode").s(), "linear");
  EXPECT_EQ(ints(attr(g.node(2), "perm")), (I{2, 3, 0, 1}));
}

// ---- ORT against the reference backend (skipped when ORT is not compiled in) ----

// Deterministic input bytes of `desc`.
std::vector<std::byte> random_bytes(const MLOperandDescriptor& desc, std::mt19937& rng) {
  size_t count = 1;
  for (uint32_t d : desc.shape) count *= d;
  std::uniform_real_distribution<double> real(-10, 10);
  switch (desc.dataType) {
    case DT::kFloat32: {
      std::vector<float> v(count);
      for (auto& x : v) x = static_cast<float>(real(rng));
      return to_bytes(v);
    }
    case DT::kFloat16: {
      std::vector<uint16_t> v(count);
      for (auto& x : v) x = float_to_half_bits(static_cast<float>(real(rng)));
      return to_bytes(v);
    }
    case DT::kInt8:
    case DT::kUint8: {
      std::vector<uint8_t> v(count);
      for (auto& x : v) x = static_cast<uint8_t>(rng());
      return to_bytes(v);
    }
    case DT::kInt32:
    case DT::kUint32: {
      std::vector<uint32_t> v(count);
      for (auto& x : v) x = static_cast<uint32_t>(rng());
      return to_bytes(v);
    }
    case DT::kInt64:
    case DT::kUint64: {
      std::vector<uint64_t> v(count);
      for (auto& x : v) x = (uint64_t{rng()} << 32) | rng();
      return to_bytes(v);
    }
    default:
      break;
  }
  ADD_FAILURE() << "no random data for this type";
  return {};
}

// Element i of `bytes` of `type` as a double (integers exactly when they fit).
double element(const std::vector<std::byte>& bytes, DT type, size_t i) {
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, bytes.data() + i * sizeof(v), sizeof(v));
    return v;
  };
  switch (type) {
    case DT::kFloat32:
      return get(float{});
    case DT::kFloat16:
      return half_bits_to_float(get(uint16_t{}));
    case DT::kInt8:
      return get(int8_t{});
    case DT::kUint8:
      return get(uint8_t{});
    case DT::kInt32:
      return get(int32_t{});
    case DT::kUint32:
      return get(uint32_t{});
    default:
      return 0;
  }
}

// The graph of one case: inputs by descriptor, and the op applied to them.
struct Case {
  std::string name;
  std::vector<MLOperandDescriptor> inputs;
  std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)> op;
};

// Runs `c` on the reference and ORT backends with the same random inputs and compares: floats
// within a relative 1e-5 (float16: 2e-3) or equal as NaN/Infinity; integers exactly.
void expect_ort_matches_reference(const Case& c) {
  SCOPED_TRACE(c.name);
  std::optional<MLContext> ort;
  try {
    ort = MLContext::create({.backend = "ort"});
  } catch (const Error&) {
    GTEST_SKIP() << "the ONNX Runtime backend is not compiled in";
  }
  MLContext ref = MLContext::create({.backend = "reference"});
  std::mt19937 rng(42);
  std::map<std::string, std::vector<std::byte>> data;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    data["x" + std::to_string(i)] = random_bytes(c.inputs[i], rng);
  std::map<std::string, std::vector<std::byte>> results[2];
  MLOperandDescriptor out_desc;
  for (int k = 0; k < 2; ++k) {
    MLContext& ctx = k == 0 ? ref : *ort;
    MLGraphBuilder builder(ctx);
    std::vector<MLOperand> in;
    for (size_t i = 0; i < c.inputs.size(); ++i)
      in.push_back(builder.input("x" + std::to_string(i), c.inputs[i]));
    MLOperand y = c.op(builder, in);
    out_desc = {y.dataType(), y.shape()};
    try {
      MLGraph graph = builder.build({{"y", y}});
      if (k == 1) {
        EXPECT_NO_THROW(check_onnx(graph.graph()));
      }
      results[k] = run_graph(ctx, graph, data);
    } catch (const std::exception& err) {
      FAIL() << (k == 0 ? "reference: " : "ort: ") << err.what();
    }
  }
  const auto& a = results[0].at("y");
  const auto& bb = results[1].at("y");
  ASSERT_EQ(a.size(), bb.size());
  const DT t = out_desc.dataType;
  if (t == DT::kInt64 || t == DT::kUint64 || t == DT::kInt8 || t == DT::kUint8 || t == DT::kInt32 ||
      t == DT::kUint32) {
    const size_t size = data_type_bits(t) / 8;
    int reported = 0;
    for (size_t i = 0; i < a.size() / size; ++i) {
      if (std::memcmp(a.data() + i * size, bb.data() + i * size, size) != 0 && reported++ < 5) {
        ADD_FAILURE() << "element " << i << ": reference " << element(a, t, i) << ", ort "
                      << element(bb, t, i);
      }
    }
    return;
  }
  const size_t count = a.size() / (t == DT::kFloat16 ? 2 : 4);
  const double rel = t == DT::kFloat16 ? 2e-3 : 1e-5;
  int reported = 0;
  for (size_t i = 0; i < count; ++i) {
    const double r = element(a, t, i), o = element(bb, t, i);
    const bool same = (std::isnan(r) && std::isnan(o)) || r == o ||
                      std::fabs(r - o) <= rel * std::max(1.0, std::fabs(r));
    if (!same && reported++ < 5) {
      ADD_FAILURE() << "element " << i << ": reference " << r << ", ort " << o;
    }
  }
}

using B = MLGraphBuilder;
using Ops = const std::vector<MLOperand>&;

TEST(OnnxLowerConvolutionOrt, ConvolutionLayoutsGroupsAndDilations) {
  using IL = MLInputOperandLayout;
  using FL = MLConv2dFilterOperandLayout;
  using TL = MLConvTranspose2dFilterOperandLayout;
  expect_ort_matches_reference(
      {"conv2d nhwc ihwo depthwise dilated",
       {{DT::kFloat32, {2, 7, 6, 4}}, {DT::kFloat32, {1, 3, 2, 8}}, {DT::kFloat32, {8}}},
       [](B& b, Ops x) {
         return b.conv2d(x[0], x[1],
                         {.padding = {2, 1, 0, 1},
                          .strides = {2, 1},
                          .dilations = {2, 3},
                          .groups = 4,
                          .inputLayout = IL::kNhwc,
                          .filterLayout = FL::kIhwo,
                          .bias = x[2]});
       }});
  expect_ort_matches_reference(
      {"conv2d ohwi float16",
       {{DT::kFloat16, {1, 4, 5, 5}}, {DT::kFloat16, {6, 2, 2, 2}}},
       [](B& b, Ops x) {
         return b.conv2d(x[0], x[1],
                         {.padding = {1, 1, 1, 1}, .groups = 2, .filterLayout = FL::kOhwi});
       }});
  expect_ort_matches_reference(
      {"convTranspose2d nhwc hwoi groups dilations outputSizes",
       {{DT::kFloat32, {1, 3, 4, 4}}, {DT::kFloat32, {3, 2, 3, 4}}, {DT::kFloat32, {6}}},
       [](B& b, Ops x) {
         return b.convTranspose2d(x[0], x[1],
                                  {.padding = {1, 2, 0, 1},
                                   .strides = {3, 2},
                                   .dilations = {2, 1},
                                   .outputSizes = {9, 8},
                                   .groups = 2,
                                   .inputLayout = IL::kNhwc,
                                   .filterLayout = TL::kHwoi,
                                   .bias = x[2]});
       }});
  expect_ort_matches_reference(
      {"convTranspose2d padding 2 outputPadding 2",
       {{DT::kFloat32, {1, 2, 3, 3}}, {DT::kFloat32, {2, 1, 3, 3}}},
       [](B& b, Ops x) {
         return b.convTranspose2d(
             x[0], x[1], {.padding = {2, 2, 2, 2}, .strides = {3, 3}, .outputPadding = {2, 2}});
       }});
}

TEST(OnnxLowerConvolutionOrt, PoolingFallbacks) {
  using RT = MLRoundingType;
  const MLPool2dOptions big_pad{.windowDimensions = {2, 2}, .padding = {2, 3, 0, 2}};
  const MLPool2dOptions dilated{.windowDimensions = {2, 3},
                                .padding = {1, 0, 1, 1},
                                .strides = {2, 1},
                                .dilations = {3, 2},
                                .outputShapeRounding = RT::kCeil};
  // Windows past the input: 1x1 windows with stride 3 over 5 positions, ceil -> 3 outputs.
  const MLPool2dOptions empty{
      .windowDimensions = {1, 1}, .strides = {3, 3}, .outputShapeRounding = RT::kCeil};
  for (const auto* o : {&big_pad, &dilated, &empty}) {
    for (DT t : {DT::kFloat32, DT::kFloat16}) {
      expect_ort_matches_reference({"averagePool2d " + std::string(data_type_name(t)),
                                    {{t, {1, 3, 5, 6}}},
                                    [o](B& b, Ops x) { return b.averagePool2d(x[0], *o); }});
      expect_ort_matches_reference(
          {"l2Pool2d " + std::string(data_type_name(t)), {{t, {2, 6, 5, 2}}}, [o](B& b, Ops x) {
             MLPool2dOptions n = *o;
             n.layout = MLInputOperandLayout::kNhwc;
             return b.l2Pool2d(x[0], n);
           }});
    }
    for (DT t : {DT::kFloat32, DT::kFloat16, DT::kInt8, DT::kUint8, DT::kInt32, DT::kUint32,
                 DT::kInt64, DT::kUint64}) {
      expect_ort_matches_reference({"maxPool2d " + std::string(data_type_name(t)),
                                    {{t, {1, 3, 5, 6}}},
                                    [o](B& b, Ops x) { return b.maxPool2d(x[0], *o); }});
    }
  }
}

TEST(OnnxLowerConvolutionOrt, ResampleModesAxesAndTypes) {
  using M = MLInterpolationMode;
  for (DT t : {DT::kFloat32, DT::kFloat16, DT::kInt8, DT::kUint8}) {
    for (M mode : {M::kNearestNeighbor, M::kLinear}) {
      for (const Dims& sizes : {Dims{12, 3}, Dims{5, 7}, Dims{3, 1}, Dims{2, 16}}) {
        for (const Dims& axes : {Dims{2, 3}, Dims{1, 2}, Dims{0, 3}, Dims{3, 1}}) {
          expect_ort_matches_reference(
              {"resample2d " + std::string(data_type_name(t)) + " " +
                   std::string(enum_to_string(mode)) + " sizes " + std::to_string(sizes[0]) + "," +
                   std::to_string(sizes[1]) + " axes " + std::to_string(axes[0]) + "," +
                   std::to_string(axes[1]),
               {{t, {6, 4, 6, 4}}},
               [=](B& b, Ops x) {
                 return b.resample2d(x[0], {.mode = mode, .sizes = sizes, .axes = axes});
               }});
        }
      }
    }
  }
}

}  // namespace
}  // namespace cppnn::testing
