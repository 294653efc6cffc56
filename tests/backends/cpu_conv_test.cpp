// The cpu backend's conv2d kernels through the public API (src/backends/cpu/convolution.cpp,
// epilogue.cpp): the same graph on a "cpu" and a "reference" context with random inputs in
// [-1, 1], for groups, kernels 1×1 to 5×5 and 1×7, strides, dilations, asymmetric padding, odd
// sizes, batches, every filter layout, NHWC input, bias, activations fused into the epilogue or
// run after it, on 1 and 2 threads; conv2d + batchNormalization, which the cpu backend folds into
// one conv2d (src/passes/batch_norm_folding.h); (which cases take the fast kernels:
// cpu_conv_fast_path_test.cpp). Each element is compared within 1e-5 of the sum of |products| of
// its naive double-precision value (1e-4 for the folded batch normalization); the reference backend
// is also checked against that naive value, so that a mistake in this file's index arithmetic shows
// as such (cpu_product_checks.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/cpu_backend.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/ops/convolution_params.h"
#include "src/passes/pipeline.h"
#include "tests/backends/cpu_conv_case.h"
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using namespace product_checks;

class CpuConv : public ::testing::Test {
 protected:
  std::mt19937 rng_{4321};
};

// Every kernel size with strides 1 and 2 and groups 1, 2, 4 (grouped, not depthwise: 2 or more
// input channels per group), batch 2, asymmetric padding; 1×1 without padding takes the
// pointwise path.
TEST_F(CpuConv, Conv2dKernelsStridesAndGroups) {
  struct Kernel {
    uint32_t kh, kw;
    std::vector<uint32_t> padding;
  };
  const Kernel kernels[] = {{1, 1, {0, 0, 0, 0}}, {1, 1, {1, 0, 0, 1}}, {3, 3, {1, 1, 1, 1}},
                            {3, 3, {0, 2, 1, 0}}, {5, 5, {2, 1, 0, 2}}, {1, 7, {0, 0, 3, 3}},
                            {1, 7, {1, 0, 2, 4}}};
  uint32_t round = 0;
  for (const Kernel& kern : kernels)
    for (uint32_t s : {1u, 2u})
      for (uint32_t groups : {1u, 2u, 4u}) {
        ConvCase k;
        k.n = 2;
        k.cin = 8;
        k.cout = 12;
        k.h = 11;
        k.w = 13;
        k.kh = kern.kh;
        k.kw = kern.kw;
        k.padding = kern.padding;
        k.strides = {s, s};
        k.groups = groups;
        k.bias = round % 3 != 0;
        k.threads = 1 + round % 2;
        ++round;
        check_conv(k, rng_);
      }
}

TEST_F(CpuConv, Conv2dDilationsAndMixedStrides) {
  struct Geometry {
    uint32_t kh, kw;
    std::vector<uint32_t> padding, strides, dilations;
  };
  const Geometry geometries[] = {
      {3, 3, {2, 2, 2, 2}, {1, 1}, {2, 2}}, {3, 3, {0, 1, 2, 0}, {2, 1}, {2, 2}},
      {5, 5, {3, 1, 2, 2}, {1, 2}, {2, 1}}, {1, 7, {0, 0, 6, 5}, {1, 1}, {1, 2}},
      {3, 3, {0, 0, 0, 0}, {2, 2}, {3, 2}}, {5, 5, {0, 0, 0, 0}, {1, 1}, {1, 1}},
      {1, 1, {0, 0, 0, 0}, {2, 2}, {2, 2}}, {1, 1, {0, 0, 0, 0}, {1, 1}, {3, 2}},
  };
  uint32_t round = 0;
  for (const Geometry& geo : geometries)
    for (uint32_t groups : {1u, 2u}) {
      ConvCase k;
      k.n = 2;
      k.cin = 6;
      k.cout = 4;
      k.h = 13;
      k.w = 10;
      k.kh = geo.kh;
      k.kw = geo.kw;
      k.padding = geo.padding;
      k.strides = geo.strides;
      k.dilations = geo.dilations;
      k.groups = groups;
      k.threads = 1 + round++ % 2;
      check_conv(k, rng_);
    }
}

// Every filter layout with NCHW and NHWC input (the layout pass puts the conv in NCHW).
TEST_F(CpuConv, Conv2dFilterAndInputLayouts) {
  using L = MLConv2dFilterOperandLayout;
  uint32_t round = 0;
  for (L layout : {L::kOihw, L::kHwio, L::kOhwi, L::kIhwo})
    for (MLInputOperandLayout input : {kNchw, kNhwc})
      for (uint32_t groups : {1u, 2u}) {
        ConvCase k;
        k.n = 2;
        k.cin = 4;
        k.cout = 6;
        k.h = 7;
        k.w = 9;
        k.kh = 3;
        k.kw = 2;
        k.padding = {1, 0, 1, 1};
        k.strides = {2, 1};
        k.groups = groups;
        k.layout = layout;
        k.input_layout = input;
        k.act = round % 3 == 1 ? Act::kRelu : Act::kNone;
        k.threads = 1 + round++ % 2;
        check_conv(k, rng_);
      }
}

// Images large enough that the padded, stride-phased copy of the input and the cut back of the
// widened output rows are split over 2 threads: strides 1, 2 and 3, dilation 2, asymmetric
// padding, the width below and above a GEMM panel, groups.
TEST_F(CpuConv, Conv2dPhasedInputOnTwoThreads) {
  struct Geometry {
    uint32_t h, w, k;
    std::vector<uint32_t> padding, strides, dilations;
    uint32_t groups;
  };
  const Geometry geometries[] = {
      {48, 40, 3, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1}, {47, 45, 3, {1, 1, 1, 1}, {2, 2}, {1, 1}, 1},
      {40, 70, 5, {2, 1, 0, 3}, {3, 2}, {1, 1}, 2}, {36, 30, 3, {2, 2, 2, 2}, {1, 1}, {2, 2}, 1},
      {33, 21, 1, {0, 0, 0, 0}, {2, 2}, {1, 1}, 1},
  };
  for (const Geometry& geo : geometries)
    for (Act act : {Act::kNone, Act::kSilu}) {
      ConvCase k;
      k.cin = 16;
      k.cout = 24;
      k.h = geo.h;
      k.w = geo.w;
      k.kh = k.kw = geo.k;
      k.padding = geo.padding;
      k.strides = geo.strides;
      k.dilations = geo.dilations;
      k.groups = geo.groups;
      k.act = act;
      k.threads = 2;
      check_conv(k, rng_);
    }
}

// Activations fused into the epilogue (relu, clamp, hardSwish, sigmoid, SiLU) or run after the
// cpu kernel (tanh), with and without bias, on 1 and 2 threads; also 1×1 pointwise.
TEST_F(CpuConv, Conv2dActivations) {
  for (Act act : {Act::kNone, Act::kRelu, Act::kClamp, Act::kHardSwish, Act::kSigmoid, Act::kTanh,
                  Act::kSilu})
    for (bool bias : {false, true})
      for (uint32_t threads : {1u, 2u})
        for (uint32_t kernel : {1u, 3u}) {
          ConvCase k;
          k.n = 2;
          k.cin = 6;
          k.cout = 14;
          k.h = 9;
          k.w = 11;
          k.kh = k.kw = kernel;
          k.padding =
              kernel == 1 ? std::vector<uint32_t>{0, 0, 0, 0} : std::vector<uint32_t>{1, 1, 1, 1};
          k.groups = kernel == 1 ? 1 : 2;
          k.bias = bias;
          k.act = act;
          k.threads = threads;
          check_conv(k, rng_);
        }
}

// Depth past one 256-deep block (32·3·3 = 288, 300 for 1×1), output planes wider than one
// 256-column block and more than one 12-row panel of output channels.
TEST_F(CpuConv, Conv2dDeepAndWide) {
  for (uint32_t threads : {1u, 2u}) {
    ConvCase k;
    k.n = 2;
    k.cin = 32;
    k.cout = 26;
    k.h = 19;
    k.w = 21;
    k.act = Act::kRelu;
    k.threads = threads;
    check_conv(k, rng_);
    ConvCase p;
    p.cin = 300;
    p.cout = 13;
    p.h = 17;
    p.w = 17;
    p.kh = p.kw = 1;
    p.padding = {0, 0, 0, 0};
    p.act = Act::kHardSwish;
    p.threads = threads;
    check_conv(p, rng_);
    ConvCase g = k;  // grouped: 16 channels per group, depth 144 per group
    g.groups = 2;
    g.strides = {2, 2};
    g.act = Act::kClamp;
    check_conv(g, rng_);
  }
}

// Odd and tiny sizes: 1×1 planes, single channels, windows wider than the input, padding only
// one side, few output positions.
TEST_F(CpuConv, Conv2dOddSizes) {
  struct Odd {
    uint32_t n, cin, h, w, cout, kh, kw, groups;
    std::vector<uint32_t> padding, strides;
  };
  const Odd odds[] = {
      {1, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, {1, 1}},
      {2, 3, 1, 1, 5, 3, 3, 1, {1, 1, 1, 1}, {1, 1}},
      {1, 2, 1, 17, 3, 1, 7, 1, {0, 0, 3, 3}, {1, 2}},
      {3, 4, 5, 2, 2, 5, 5, 2, {2, 2, 2, 2}, {2, 2}},
      {1, 5, 3, 3, 7, 5, 5, 1, {4, 0, 0, 4}, {1, 1}},
      {2, 4, 2, 33, 4, 1, 1, 2, {0, 0, 0, 0}, {1, 1}},
      {1, 1, 40, 1, 1, 3, 1, 1, {1, 1, 0, 0}, {3, 1}},
      {1, 6, 7, 7, 33, 1, 1, 3, {0, 0, 0, 0}, {2, 3}},
      // Few output positions (below 16 per image): a filter bank over one channel, one image
      // (dot products) and eight (one GEMM across the images), and a grouped one.
      {1, 1, 1, 1280, 20, 1, 512, 1, {0, 0, 0, 0}, {1, 160}},
      {8, 1, 1, 640, 40, 1, 256, 1, {0, 0, 0, 0}, {1, 128}},
      {5, 4, 3, 5, 6, 3, 3, 2, {1, 1, 1, 1}, {2, 2}},
  };
  uint32_t round = 0;
  for (const Odd& o : odds) {
    ConvCase k;
    k.n = o.n;
    k.cin = o.cin;
    k.h = o.h;
    k.w = o.w;
    k.cout = o.cout;
    k.kh = o.kh;
    k.kw = o.kw;
    k.groups = o.groups;
    k.padding = o.padding;
    k.strides = o.strides;
    k.threads = 1 + round++ % 2;
    check_conv(k, rng_);
  }
}

// A filter that is a graph input runs on the reference kernel inside the cpu backend.
TEST_F(CpuConv, Conv2dRuntimeFilter) {
  ConvCase k;
  k.n = 2;
  k.cin = 4;
  k.cout = 6;
  k.groups = 2;
  k.constant_filter = false;
  k.act = Act::kRelu;
  k.threads = 2;
  check_conv(k, rng_);
}

// ---- conv2d + batchNormalization (folded) ------------------------------------------------------

struct BatchNormCase {
  ConvCase conv;
  bool scale = true, bias = true;
  double epsilon = 1e-3;
  Act act = Act::kNone;
};

void check_conv_batch_norm(const BatchNormCase& k, std::mt19937& rng) {
  SCOPED_TRACE(k.conv.name() + " + batchNormalization" + (k.scale ? " scale" : "") +
               (k.bias ? " bias" : "") + " epsilon " + std::to_string(k.epsilon) + " then " +
               act_name(k.act));
  const ConvCase& c = k.conv;
  const ConvData d = conv_data(c, rng);
  const std::vector<float> mean = random_values(c.cout, rng);
  const std::vector<float> variance = random_values(c.cout, rng, 0.05f, 2.0f);
  const std::vector<float> scale = random_values(c.cout, rng, -2.0f, 2.0f);
  const std::vector<float> beta = random_values(c.cout, rng);
  Expected e = naive_conv(c, d);
  const size_t plane = size_t(c.out_h()) * c.out_w();
  for (size_t i = 0; i < e.value.size(); ++i) {
    const size_t oc = i / plane % c.cout;
    const double s = (k.scale ? scale[oc] : 1.0) / std::sqrt(double(variance[oc]) + k.epsilon);
    const double shift = k.bias ? beta[oc] : 0.0;
    e.value[i] = apply_act(k.act, (e.value[i] - mean[oc]) * s + shift);
    e.scale[i] = std::fabs(s) * (e.scale[i] + std::fabs(mean[oc])) + std::fabs(shift);
  }
  e.value = from_nchw(e.value, c.input_layout, c.n, c.cout, c.out_h(), c.out_w());
  e.scale = from_nchw(e.scale, c.input_layout, c.n, c.cout, c.out_h(), c.out_w());
  const Inputs inputs{{"x", to_bytes(from_nchw(d.x, c.input_layout, c.n, c.cin, c.h, c.w))}};
  compare_backends(
      [&](MLGraphBuilder& b) {
        MLOperand y = conv_operand(b, c, d);
        const MLOperandDescriptor pc{kF32, {c.cout}};
        MLBatchNormalizationOptions o;
        o.axis = c.input_layout == kNchw ? 1 : 3;
        o.epsilon = k.epsilon;
        if (k.scale) o.scale = b.constant(pc, to_bytes(scale));
        if (k.bias) o.bias = b.constant(pc, to_bytes(beta));
        y = b.batchNormalization(y, b.constant(pc, to_bytes(mean)),
                                 b.constant(pc, to_bytes(variance)), o);
        return apply_act(b, k.act, y);
      },
      inputs, e, c.threads, 1e-4, 1e-5);
}

TEST_F(CpuConv, Conv2dBatchNormalization) {
  using L = MLConv2dFilterOperandLayout;
  uint32_t round = 0;
  for (L layout : {L::kOihw, L::kHwio, L::kOhwi, L::kIhwo})
    for (bool conv_bias : {false, true})
      for (uint32_t groups : {1u, 2u}) {
        BatchNormCase k;
        k.conv.n = 2;
        k.conv.cin = 4;
        k.conv.cout = 6;
        k.conv.h = 8;
        k.conv.w = 7;
        k.conv.groups = groups;
        k.conv.layout = layout;
        k.conv.bias = conv_bias;
        k.conv.strides = {round % 2 + 1, 1};
        k.conv.threads = 1 + round % 2;
        k.scale = round % 3 != 2;
        k.bias = round % 4 != 1;
        k.act = round % 3 == 0 ? Act::kRelu : Act::kNone;
        ++round;
        check_conv_batch_norm(k, rng_);
      }
}

TEST_F(CpuConv, Conv2dBatchNormalizationNhwcAndDeep) {
  for (uint32_t threads : {1u, 2u}) {
    BatchNormCase k;
    k.conv.n = 2;
    k.conv.cin = 6;
    k.conv.cout = 5;
    k.conv.input_layout = kNhwc;
    k.conv.layout = MLConv2dFilterOperandLayout::kOhwi;
    k.conv.threads = threads;
    k.epsilon = 0.25;
    check_conv_batch_norm(k, rng_);
    BatchNormCase deep;
    deep.conv.cin = 30;
    deep.conv.cout = 25;
    deep.conv.h = 17;
    deep.conv.w = 18;
    deep.conv.threads = threads;
    deep.act = Act::kHardSwish;
    check_conv_batch_norm(deep, rng_);
  }
}

// The cpu backend's pipeline folds the batch normalization into the conv2d and fuses the relu.
TEST_F(CpuConv, PipelineFoldsBatchNormalization) {
  std::mt19937 rng(7);
  MLGraphBuilder b(testing::ref_context());
  ConvCase c;
  const ConvData d = conv_data(c, rng);
  const MLOperandDescriptor pc{kF32, {c.cout}};
  const std::vector<float> mean = random_values(c.cout, rng),
                           variance = random_values(c.cout, rng, 0.5f, 1.0f);
  MLOperand y = b.batchNormalization(conv_operand(b, c, d), b.constant(pc, to_bytes(mean)),
                                     b.constant(pc, to_bytes(variance)));
  auto graph = std::make_shared<const Graph>(b.pruned_graph({{"y", b.relu(y)}}));
  const std::unique_ptr<Backend> cpu = make_cpu_backend({});
  EXPECT_TRUE(cpu->descriptor().passes.fold_batch_norm);
  const std::shared_ptr<const Graph> prepared = passes::prepare_graph(cpu->descriptor(), graph);
  ASSERT_EQ(prepared->operations.size(), 1u);
  const Operation& conv = prepared->operations[0];
  EXPECT_EQ(conv.type, OpType::kConv2d);
  ASSERT_EQ(conv.activations.size(), 1u);
  EXPECT_EQ(conv.activations[0].type, OpType::kRelu);
  // ... and the cpu conv2d kernel takes it, epilogue included.
  cpu::CompileContext cc{*prepared, std::make_shared<cpu::ThreadPool>(1)};
  const auto kernel = cpu::compile_fast_kernel(cc, conv);
  ASSERT_TRUE(kernel.has_value());
  EXPECT_TRUE(kernel->applies_activations);
}

}  // namespace
}  // namespace cppnn
