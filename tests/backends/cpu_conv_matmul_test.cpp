// The cpu backend's GEMM-based kernels through the public API (src/backends/cpu/convolution.cpp,
// conv_transpose.cpp, matrix.cpp, epilogue.cpp): the same graph on a "cpu" and a "reference"
// context with random inputs in [-1, 1], for conv2d (groups, kernels 1×1 to 5×5 and 1×7, strides,
// dilations, asymmetric padding, odd sizes, batches, every filter layout, NHWC input, bias,
// activations fused into the epilogue or run after it), convTranspose2d (strides 1 to 3, padding,
// dilations, outputPadding, outputSizes, groups, filter layouts, bias), matmul (2-D, batched,
// broadcast batches, constant operands, depth past one 256 block) and gemm (transposes, alpha,
// beta, every broadcast of C), on 1 and 2 threads; and conv2d + batchNormalization, which the
// cpu backend folds into one conv2d (src/passes/batch_norm_folding.h). Each element is compared
// within 1e-5 of the sum of |products| of its naive double-precision value (1e-4 for the folded
// batch normalization); the reference backend is also checked against that naive value, so that
// a mistake in this file's index arithmetic shows as such.
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
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::to_bytes;
constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr auto kNchw = MLInputOperandLayout::kNchw;
constexpr auto kNhwc = MLInputOperandLayout::kNhwc;
using Inputs = std::map<std::string, std::vector<std::byte>>;

std::vector<float> random_values(size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::string dims_str(const std::vector<uint32_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// ---- activations -----------------------------------------------------------------------------

// After the op: relu, clamp, hardSwish (fused into the cpu kernels' epilogue), sigmoid (fused by
// the pass, but without an epilogue form: the reference kernel runs it after the cpu kernel).
enum class Act { kNone, kRelu, kClamp, kHardSwish, kSigmoid, kTanh, kSilu };

const char* act_name(Act a) {
  switch (a) {
    case Act::kNone:
      return "none";
    case Act::kRelu:
      return "relu";
    case Act::kClamp:
      return "clamp";
    case Act::kHardSwish:
      return "hardSwish";
    case Act::kSigmoid:
      return "sigmoid";
    case Act::kTanh:
      return "tanh";
    case Act::kSilu:
      return "silu";
  }
  return "?";
}

MLOperand apply_act(MLGraphBuilder& b, Act act, MLOperand y) {
  switch (act) {
    case Act::kNone:
      return y;
    case Act::kRelu:
      return b.relu(y);
    case Act::kClamp: {
      MLClampOptions c;
      c.minValue = MLNumber(-1.0);
      c.maxValue = MLNumber(1.5);
      return b.clamp(y, c);
    }
    case Act::kHardSwish:
      return b.hardSwish(y);
    case Act::kSigmoid:
      return b.sigmoid(y);
    case Act::kTanh:
      return b.tanh(y);
    case Act::kSilu:  // as exporters write SiLU: fused into the op by the cpu backend
      return b.mul(y, b.sigmoid(y));
  }
  return y;
}

double apply_act(Act act, double v) {
  switch (act) {
    case Act::kNone:
      return v;
    case Act::kRelu:
      return v < 0 ? 0 : v;
    case Act::kClamp:
      return v < -1.0 ? -1.0 : (v > 1.5 ? 1.5 : v);
    case Act::kHardSwish:
      return v * std::clamp(v + 3.0, 0.0, 6.0) / 6.0;
    case Act::kSigmoid:
      return 1.0 / (1.0 + std::exp(-v));
    case Act::kTanh:
      return std::tanh(v);
    case Act::kSilu:
      return v / (1.0 + std::exp(-v));
  }
  return v;
}

// ---- comparison ------------------------------------------------------------------------------

// The naive value of every output element and the scale of its rounding error (the sum of
// |products| and |bias| before the activation), in the graph output's element order.
struct Expected {
  std::vector<double> value, scale;
};

// got[i] within rel·scale[i] + abs of want[i] for every i (1.5 × for the activations, whose
// slope is at most 1.5); at most 5 failures reported.
void expect_close(const std::vector<float>& got, const std::vector<double>& want,
                  const std::vector<double>& scale, double rel, double abs, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double tol = 1.5 * rel * scale[i] + abs;
    if (!(std::fabs(double(got[i]) - want[i]) <= tol)) {
      if (bad < 5)
        ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i]
                      << " (tolerance " << tol << ")";
      ++bad;
    }
  }
  if (bad) ADD_FAILURE() << what << ": " << bad << " of " << want.size() << " elements differ";
}

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

// Builds the graph with `make` on a cpu context of `threads` threads and on a reference context,
// runs both on `inputs`, and compares output "y": cpu with reference, and reference with the
// naive values (both within rel·scale + abs).
template <class Make>
void compare_backends(const Make& make, const Inputs& inputs, const Expected& e, uint32_t threads,
                      double rel = 1e-5, double abs = 1e-6) {
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
  MLContext ref = testing::ref_context();
  ASSERT_EQ(cpu.backend(), "cpu");
  MLGraphBuilder bc(cpu), br(ref);
  MLGraph gc = bc.build({{"y", make(bc)}});
  MLGraph gr = br.build({{"y", make(br)}});
  const std::vector<float> got = as<float>(testing::run_graph(cpu, gc, inputs).at("y"));
  const std::vector<float> want = as<float>(testing::run_graph(ref, gr, inputs).at("y"));
  expect_close(want, e.value, e.scale, rel, abs, "reference vs naive (test arithmetic)");
  expect_close(got, as_double(want), e.scale, rel, abs, "cpu vs reference");
}

// The index of NCHW element (b, c, y, x) of an [n, ch, h, w] tensor in `layout`.
size_t index_in(MLInputOperandLayout layout, uint32_t ch, uint32_t h, uint32_t w, size_t b,
                size_t c, size_t y, size_t x) {
  if (layout == kNchw) return ((b * ch + c) * h + y) * w + x;
  return ((b * h + y) * w + x) * ch + c;
}

// NCHW values [n, ch, h, w] reordered into `layout`.
template <class T>
std::vector<T> from_nchw(const std::vector<T>& v, MLInputOperandLayout layout, uint32_t n,
                         uint32_t ch, uint32_t h, uint32_t w) {
  std::vector<T> out(v.size());
  for (size_t b = 0; b < n; ++b)
    for (size_t c = 0; c < ch; ++c)
      for (size_t y = 0; y < h; ++y)
        for (size_t x = 0; x < w; ++x)
          out[index_in(layout, ch, h, w, b, c, y, x)] = v[((b * ch + c) * h + y) * w + x];
  return out;
}

Dims input_shape(MLInputOperandLayout layout, uint32_t n, uint32_t ch, uint32_t h, uint32_t w) {
  return layout == kNchw ? Dims{n, ch, h, w} : Dims{n, h, w, ch};
}

// A filter given as logical [outer][inner][kh][kw] values (outer = output channels for conv2d,
// input channels for convTranspose2d), its shape and values in the layout of `axes`.
struct LaidOutFilter {
  Dims shape;
  std::vector<float> values;
};

LaidOutFilter lay_out_filter(const std::vector<float>& v, uint32_t outs, uint32_t ins, uint32_t kh,
                             uint32_t kw, FilterAxes a, bool ins_outer) {
  LaidOutFilter f;
  f.shape.assign(4, 0);
  f.shape[a.out_channels] = outs;
  f.shape[a.in_channels] = ins;
  f.shape[a.height] = kh;
  f.shape[a.width] = kw;
  size_t stride[4];
  stride[3] = 1;
  for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * f.shape[i + 1];
  f.values.resize(v.size());
  for (size_t o = 0; o < outs; ++o)
    for (size_t i = 0; i < ins; ++i)
      for (size_t y = 0; y < kh; ++y)
        for (size_t x = 0; x < kw; ++x) {
          const size_t logical =
              ins_outer ? ((i * outs + o) * kh + y) * kw + x : ((o * ins + i) * kh + y) * kw + x;
          f.values[o * stride[a.out_channels] + i * stride[a.in_channels] + y * stride[a.height] +
                   x * stride[a.width]] = v[logical];
        }
  return f;
}

// ---- conv2d ----------------------------------------------------------------------------------

struct ConvCase {
  uint32_t n = 1, cin = 4, h = 9, w = 9, cout = 6, kh = 3, kw = 3, groups = 1;
  std::vector<uint32_t> padding{1, 1, 1, 1}, strides{1, 1}, dilations{1, 1};
  MLInputOperandLayout input_layout = kNchw;
  MLConv2dFilterOperandLayout layout = MLConv2dFilterOperandLayout::kOihw;
  bool bias = true;
  bool constant_filter = true;
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    std::string s = "conv2d x" + dims_str({n, cin, h, w}) + " cout " + std::to_string(cout) + " k" +
                    std::to_string(kh) + "x" + std::to_string(kw) + " groups " +
                    std::to_string(groups) + " pad" + dims_str(padding) + " strides" +
                    dims_str(strides) + " dilations" + dims_str(dilations) +
                    (input_layout == kNhwc ? " nhwc" : " nchw") + " filterLayout " +
                    std::to_string(int(layout)) + (bias ? " bias" : "") +
                    (constant_filter ? "" : " runtime-filter") + " act " + act_name(act) +
                    " threads " + std::to_string(threads);
    return s;
  }
  uint32_t out_h() const {
    return (h + padding[0] + padding[1] - ((kh - 1) * dilations[0] + 1)) / strides[0] + 1;
  }
  uint32_t out_w() const {
    return (w + padding[2] + padding[3] - ((kw - 1) * dilations[1] + 1)) / strides[1] + 1;
  }
};

struct ConvData {
  std::vector<float> x, filter, bias;  // x NCHW, filter OIHW [cout][cin/g][kh][kw]
};

ConvData conv_data(const ConvCase& k, std::mt19937& rng) {
  return {random_values(size_t(k.n) * k.cin * k.h * k.w, rng),
          random_values(size_t(k.cout) * (k.cin / k.groups) * k.kh * k.kw, rng),
          random_values(k.cout, rng)};
}

// The naive conv2d in NCHW (before any activation): values and sums of |products| + |bias|.
Expected naive_conv(const ConvCase& k, const ConvData& d) {
  const uint32_t oh = k.out_h(), ow = k.out_w(), cin_g = k.cin / k.groups,
                 cout_g = k.cout / k.groups;
  Expected e;
  e.value.assign(size_t(k.n) * k.cout * oh * ow, 0.0);
  e.scale.assign(e.value.size(), 0.0);
  for (size_t b = 0; b < k.n; ++b)
    for (size_t oc = 0; oc < k.cout; ++oc) {
      const size_t g = oc / cout_g;
      for (size_t oy = 0; oy < oh; ++oy)
        for (size_t ox = 0; ox < ow; ++ox) {
          double sum = k.bias ? d.bias[oc] : 0.0, mag = k.bias ? std::fabs(d.bias[oc]) : 0.0;
          for (size_t ci = 0; ci < cin_g; ++ci)
            for (size_t ky = 0; ky < k.kh; ++ky)
              for (size_t kx = 0; kx < k.kw; ++kx) {
                const int64_t iy = int64_t(oy * k.strides[0] + ky * k.dilations[0]) - k.padding[0];
                const int64_t ix = int64_t(ox * k.strides[1] + kx * k.dilations[1]) - k.padding[2];
                if (iy < 0 || iy >= int64_t(k.h) || ix < 0 || ix >= int64_t(k.w)) continue;
                const double p =
                    double(
                        d.x[((b * k.cin + g * cin_g + ci) * k.h + size_t(iy)) * k.w + size_t(ix)]) *
                    double(d.filter[((oc * cin_g + ci) * k.kh + ky) * k.kw + kx]);
                sum += p;
                mag += std::fabs(p);
              }
          const size_t i = ((b * k.cout + oc) * oh + oy) * ow + ox;
          e.value[i] = sum;
          e.scale[i] = mag;
        }
    }
  return e;
}

MLOperand conv_operand(MLGraphBuilder& b, const ConvCase& k, const ConvData& d) {
  const LaidOutFilter f = lay_out_filter(d.filter, k.cout, k.cin / k.groups, k.kh, k.kw,
                                         conv2d_filter_axes(k.layout), false);
  MLOperand x = b.input("x", {kF32, input_shape(k.input_layout, k.n, k.cin, k.h, k.w)});
  MLOperand filter = k.constant_filter ? b.constant({kF32, f.shape}, to_bytes(f.values))
                                       : b.input("w", {kF32, f.shape});
  MLConv2dOptions o;
  o.padding = k.padding;
  o.strides = k.strides;
  o.dilations = k.dilations;
  o.groups = k.groups;
  o.inputLayout = k.input_layout;
  o.filterLayout = k.layout;
  if (k.bias) o.bias = b.constant({kF32, {k.cout}}, to_bytes(d.bias));
  return b.conv2d(x, filter, o);
}

void check_conv(const ConvCase& k, std::mt19937& rng) {
  SCOPED_TRACE(k.name());
  const ConvData d = conv_data(k, rng);
  Expected e = naive_conv(k, d);
  for (double& v : e.value) v = apply_act(k.act, v);
  e.value = from_nchw(e.value, k.input_layout, k.n, k.cout, k.out_h(), k.out_w());
  e.scale = from_nchw(e.scale, k.input_layout, k.n, k.cout, k.out_h(), k.out_w());
  Inputs inputs{{"x", to_bytes(from_nchw(d.x, k.input_layout, k.n, k.cin, k.h, k.w))}};
  if (!k.constant_filter)
    inputs.emplace("w", to_bytes(lay_out_filter(d.filter, k.cout, k.cin / k.groups, k.kh, k.kw,
                                                conv2d_filter_axes(k.layout), false)
                                     .values));
  compare_backends([&](MLGraphBuilder& b) { return apply_act(b, k.act, conv_operand(b, k, d)); },
                   inputs, e, k.threads);
}

class CpuConvMatmul : public ::testing::Test {
 protected:
  std::mt19937 rng_{4321};
};

// Every kernel size with strides 1 and 2 and groups 1, 2, 4 (grouped, not depthwise: 2 or more
// input channels per group), batch 2, asymmetric padding; 1×1 without padding takes the
// pointwise path.
TEST_F(CpuConvMatmul, Conv2dKernelsStridesAndGroups) {
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

TEST_F(CpuConvMatmul, Conv2dDilationsAndMixedStrides) {
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
TEST_F(CpuConvMatmul, Conv2dFilterAndInputLayouts) {
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
TEST_F(CpuConvMatmul, Conv2dPhasedInputOnTwoThreads) {
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
TEST_F(CpuConvMatmul, Conv2dActivations) {
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
TEST_F(CpuConvMatmul, Conv2dDeepAndWide) {
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
TEST_F(CpuConvMatmul, Conv2dOddSizes) {
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
TEST_F(CpuConvMatmul, Conv2dRuntimeFilter) {
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

// ---- convTranspose2d -------------------------------------------------------------------------

struct ConvTransposeCase {
  uint32_t n = 1, cin = 4, h = 5, w = 6, cout = 6, kh = 3, kw = 3, groups = 1;
  std::vector<uint32_t> padding{0, 0, 0, 0}, strides{1, 1}, dilations{1, 1}, output_padding{0, 0};
  std::optional<std::vector<uint32_t>> output_sizes;
  MLInputOperandLayout input_layout = kNchw;
  MLConvTranspose2dFilterOperandLayout layout = MLConvTranspose2dFilterOperandLayout::kIohw;
  bool bias = true;
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    return "convTranspose2d x" + dims_str({n, cin, h, w}) + " cout " + std::to_string(cout) + " k" +
           std::to_string(kh) + "x" + std::to_string(kw) + " groups " + std::to_string(groups) +
           " pad" + dims_str(padding) + " strides" + dims_str(strides) + " dilations" +
           dims_str(dilations) + " outputPadding" + dims_str(output_padding) +
           (output_sizes ? " outputSizes" + dims_str(*output_sizes) : std::string()) +
           (input_layout == kNhwc ? " nhwc" : " nchw") + " filterLayout " +
           std::to_string(int(layout)) + (bias ? " bias" : "") + " act " + act_name(act) +
           " threads " + std::to_string(threads);
  }
  uint32_t out_h() const {
    if (output_sizes) return (*output_sizes)[0];
    return (h - 1) * strides[0] + (kh - 1) * dilations[0] + 1 - padding[0] - padding[1] +
           output_padding[0];
  }
  uint32_t out_w() const {
    if (output_sizes) return (*output_sizes)[1];
    return (w - 1) * strides[1] + (kw - 1) * dilations[1] + 1 - padding[2] - padding[3] +
           output_padding[1];
  }
};

struct ConvTransposeData {
  std::vector<float> x, filter, bias;  // x NCHW, filter IOHW [cin][cout/g][kh][kw]
};

Expected naive_conv_transpose(const ConvTransposeCase& k, const ConvTransposeData& d) {
  const uint32_t oh = k.out_h(), ow = k.out_w(), cin_g = k.cin / k.groups,
                 cout_g = k.cout / k.groups;
  Expected e;
  e.value.assign(size_t(k.n) * k.cout * oh * ow, 0.0);
  e.scale.assign(e.value.size(), 0.0);
  for (size_t b = 0; b < k.n; ++b)
    for (size_t oc = 0; oc < k.cout; ++oc)
      for (size_t i = 0; i < size_t(oh) * ow; ++i) {
        e.value[(b * k.cout + oc) * oh * ow + i] = k.bias ? d.bias[oc] : 0.0;
        e.scale[(b * k.cout + oc) * oh * ow + i] = k.bias ? std::fabs(d.bias[oc]) : 0.0;
      }
  for (size_t b = 0; b < k.n; ++b)
    for (size_t ci = 0; ci < k.cin; ++ci) {
      const size_t g = ci / cin_g;
      for (size_t iy = 0; iy < k.h; ++iy)
        for (size_t ix = 0; ix < k.w; ++ix) {
          const double xv = d.x[((b * k.cin + ci) * k.h + iy) * k.w + ix];
          for (size_t oc = 0; oc < cout_g; ++oc)
            for (size_t ky = 0; ky < k.kh; ++ky)
              for (size_t kx = 0; kx < k.kw; ++kx) {
                const int64_t oy = int64_t(iy * k.strides[0] + ky * k.dilations[0]) - k.padding[0];
                const int64_t ox = int64_t(ix * k.strides[1] + kx * k.dilations[1]) - k.padding[2];
                if (oy < 0 || oy >= int64_t(oh) || ox < 0 || ox >= int64_t(ow)) continue;
                const double p =
                    xv * double(d.filter[((ci * cout_g + oc) * k.kh + ky) * k.kw + kx]);
                const size_t o =
                    ((b * k.cout + g * cout_g + oc) * oh + size_t(oy)) * ow + size_t(ox);
                e.value[o] += p;
                e.scale[o] += std::fabs(p);
              }
        }
    }
  return e;
}

void check_conv_transpose(const ConvTransposeCase& k, std::mt19937& rng) {
  SCOPED_TRACE(k.name());
  const uint32_t cout_g = k.cout / k.groups;
  ConvTransposeData d{random_values(size_t(k.n) * k.cin * k.h * k.w, rng),
                      random_values(size_t(k.cin) * cout_g * k.kh * k.kw, rng),
                      random_values(k.cout, rng)};
  Expected e = naive_conv_transpose(k, d);
  for (double& v : e.value) v = apply_act(k.act, v);
  e.value = from_nchw(e.value, k.input_layout, k.n, k.cout, k.out_h(), k.out_w());
  e.scale = from_nchw(e.scale, k.input_layout, k.n, k.cout, k.out_h(), k.out_w());
  const LaidOutFilter f = lay_out_filter(d.filter, cout_g, k.cin, k.kh, k.kw,
                                         conv_transpose2d_filter_axes(k.layout), true);
  const Inputs inputs{{"x", to_bytes(from_nchw(d.x, k.input_layout, k.n, k.cin, k.h, k.w))}};
  compare_backends(
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {kF32, input_shape(k.input_layout, k.n, k.cin, k.h, k.w)});
        MLConvTranspose2dOptions o;
        o.padding = k.padding;
        o.strides = k.strides;
        o.dilations = k.dilations;
        if (k.output_sizes) {
          o.outputSizes = *k.output_sizes;
        } else {
          o.outputPadding = k.output_padding;
        }
        o.groups = k.groups;
        o.inputLayout = k.input_layout;
        o.filterLayout = k.layout;
        if (k.bias) o.bias = b.constant({kF32, {k.cout}}, to_bytes(d.bias));
        MLOperand y = b.convTranspose2d(x, b.constant({kF32, f.shape}, to_bytes(f.values)), o);
        return apply_act(b, k.act, y);
      },
      inputs, e, k.threads);
}

TEST_F(CpuConvMatmul, ConvTranspose2dStridesAndGroups) {
  uint32_t round = 0;
  for (uint32_t s : {1u, 2u, 3u})
    for (uint32_t groups : {1u, 2u})
      for (uint32_t kernel : {1u, 2u, 3u}) {
        ConvTransposeCase k;
        k.n = 2;
        k.cin = 4;
        k.cout = 6;
        k.h = 5;
        k.w = 7;
        k.kh = kernel;
        k.kw = kernel == 2 ? 3 : kernel;
        k.strides = {s, s};
        k.groups = groups;
        k.bias = round % 3 != 1;
        k.threads = 1 + round++ % 2;
        check_conv_transpose(k, rng_);
      }
}

TEST_F(CpuConvMatmul, ConvTranspose2dPaddingDilationsOutputPadding) {
  struct Geometry {
    uint32_t kh, kw;
    std::vector<uint32_t> padding, strides, dilations, output_padding;
  };
  const Geometry geometries[] = {
      {3, 3, {1, 1, 1, 1}, {2, 2}, {1, 1}, {1, 1}}, {3, 3, {0, 2, 1, 0}, {2, 3}, {1, 1}, {0, 2}},
      {3, 3, {1, 1, 1, 1}, {1, 1}, {2, 2}, {0, 0}}, {5, 5, {2, 1, 0, 3}, {3, 2}, {1, 2}, {2, 1}},
      {2, 2, {0, 0, 0, 0}, {2, 2}, {1, 1}, {0, 0}}, {4, 4, {1, 2, 2, 1}, {2, 2}, {2, 1}, {1, 0}},
      {1, 7, {0, 0, 3, 3}, {1, 3}, {1, 1}, {0, 2}}, {1, 1, {0, 0, 0, 0}, {3, 3}, {1, 1}, {2, 1}},
  };
  uint32_t round = 0;
  for (const Geometry& geo : geometries)
    for (uint32_t groups : {1u, 2u}) {
      ConvTransposeCase k;
      k.n = 2;
      k.cin = 6;
      k.cout = 4;
      k.h = 6;
      k.w = 5;
      k.kh = geo.kh;
      k.kw = geo.kw;
      k.padding = geo.padding;
      k.strides = geo.strides;
      k.dilations = geo.dilations;
      k.output_padding = geo.output_padding;
      k.groups = groups;
      k.act = round % 4 == 3 ? Act::kRelu : Act::kNone;
      k.threads = 1 + round++ % 2;
      check_conv_transpose(k, rng_);
    }
}

TEST_F(CpuConvMatmul, ConvTranspose2dLayoutsBiasAndActivations) {
  using L = MLConvTranspose2dFilterOperandLayout;
  uint32_t round = 0;
  for (L layout : {L::kIohw, L::kHwoi, L::kOhwi})
    for (MLInputOperandLayout input : {kNchw, kNhwc})
      for (Act act : {Act::kNone, Act::kClamp, Act::kHardSwish, Act::kSigmoid, Act::kSilu}) {
        ConvTransposeCase k;
        k.n = 2;
        k.cin = 4;
        k.cout = 6;
        k.h = 4;
        k.w = 5;
        k.kh = 3;
        k.kw = 2;
        k.padding = {1, 0, 0, 1};
        k.strides = {2, 2};
        k.output_padding = {1, 0};
        k.groups = 2;
        k.layout = layout;
        k.input_layout = input;
        k.bias = round % 2 == 0;
        k.act = act;
        k.threads = 1 + round++ % 2;
        check_conv_transpose(k, rng_);
      }
}

// More input channels than one 256-deep block, many output channels (several 12-row panels of
// the transposed filter), outputSizes.
TEST_F(CpuConvMatmul, ConvTranspose2dDeepAndOutputSizes) {
  for (uint32_t threads : {1u, 2u}) {
    ConvTransposeCase k;
    k.n = 1;
    k.cin = 260;
    k.cout = 9;
    k.h = 4;
    k.w = 3;
    k.strides = {2, 2};
    k.act = Act::kRelu;
    k.threads = threads;
    check_conv_transpose(k, rng_);
    ConvTransposeCase s;
    s.n = 2;
    s.cin = 4;
    s.cout = 4;
    s.h = 5;
    s.w = 5;
    s.strides = {3, 2};
    s.padding = {1, 1, 0, 0};
    s.output_sizes = std::vector<uint32_t>{15, 12};  // computed [13, 11]; + 2 and + 1
    s.groups = 2;
    s.threads = threads;
    check_conv_transpose(s, rng_);
    ConvTransposeCase w;  // planes wider than one 256-column block
    w.cin = 8;
    w.cout = 3;
    w.h = 18;
    w.w = 19;
    w.padding = {1, 1, 1, 1};
    w.threads = threads;
    check_conv_transpose(w, rng_);
  }
}

// ---- matmul ----------------------------------------------------------------------------------

struct MatmulCase {
  Dims a, b;
  bool constant_a = false, constant_b = false;
  bool bias = false;  // + a constant [N] (the fusion pass makes a gemm of it)
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    return "matmul " + dims_str(a) + " x " + dims_str(b) + (constant_a ? " constant-a" : "") +
           (constant_b ? " constant-b" : "") + (bias ? " +bias" : "") + " act " + act_name(act) +
           " threads " + std::to_string(threads);
  }
};

void check_matmul(const MatmulCase& k, std::mt19937& rng) {
  SCOPED_TRACE(k.name());
  const size_t m = k.a[k.a.size() - 2], kk = k.a.back(), n = k.b.back();
  ASSERT_EQ(k.b[k.b.size() - 2], kk);
  const std::vector<float> a = random_values(element_count(k.a), rng);
  const std::vector<float> b = random_values(element_count(k.b), rng);
  const std::vector<float> bias = random_values(n, rng);
  // The broadcast batch: right-aligned, 1 where a side has no such dimension.
  const Dims ab(k.a.begin(), k.a.end() - 2), bb(k.b.begin(), k.b.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  auto padded = [&](const Dims& d) {
    Dims p(rank - d.size(), 1);
    p.insert(p.end(), d.begin(), d.end());
    return p;
  };
  const Dims pa = padded(ab), pb = padded(bb);
  Dims batch(rank);
  for (size_t i = 0; i < rank; ++i) batch[i] = std::max(pa[i], pb[i]);
  const size_t batches = element_count(batch);
  Expected e;
  e.value.assign(batches * m * n, 0.0);
  e.scale.assign(e.value.size(), 0.0);
  for (size_t t = 0; t < batches; ++t) {
    size_t rest = t, ao = 0, bo = 0, astride = 1, bstride = 1;
    for (size_t i = rank; i-- > 0;) {
      const size_t idx = rest % batch[i];
      rest /= batch[i];
      ao += (pa[i] == 1 ? 0 : idx) * astride;
      bo += (pb[i] == 1 ? 0 : idx) * bstride;
      astride *= pa[i];
      bstride *= pb[i];
    }
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        double sum = k.bias ? bias[j] : 0.0, mag = k.bias ? std::fabs(bias[j]) : 0.0;
        for (size_t l = 0; l < kk; ++l) {
          const double p = double(a[(ao * m + i) * kk + l]) * double(b[(bo * kk + l) * n + j]);
          sum += p;
          mag += std::fabs(p);
        }
        e.value[(t * m + i) * n + j] = apply_act(k.act, sum);
        e.scale[(t * m + i) * n + j] = mag;
      }
  }
  Inputs inputs;
  if (!k.constant_a) inputs.emplace("a", to_bytes(a));
  if (!k.constant_b) inputs.emplace("b", to_bytes(b));
  compare_backends(
      [&](MLGraphBuilder& g) {
        MLOperand oa =
            k.constant_a ? g.constant({kF32, k.a}, to_bytes(a)) : g.input("a", {kF32, k.a});
        MLOperand ob =
            k.constant_b ? g.constant({kF32, k.b}, to_bytes(b)) : g.input("b", {kF32, k.b});
        MLOperand y = g.matmul(oa, ob);
        if (k.bias) y = g.add(y, g.constant({kF32, {uint32_t(n)}}, to_bytes(bias)));
        return apply_act(g, k.act, y);
      },
      inputs, e, k.threads);
}

TEST_F(CpuConvMatmul, Matmul2d) {
  const std::pair<Dims, Dims> shapes[] = {
      {{1, 1}, {1, 1}},    {{5, 7}, {7, 9}},       {{1, 600}, {600, 33}}, {{13, 257}, {257, 300}},
      {{25, 3}, {3, 600}}, {{12, 256}, {256, 32}}, {{40, 1}, {1, 31}},    {{7, 520}, {520, 1}},
  };
  uint32_t round = 0;
  for (const auto& [a, b] : shapes)
    for (uint32_t threads : {1u, 2u}) {
      MatmulCase k;
      k.a = a;
      k.b = b;
      k.act = round % 3 == 2 ? Act::kRelu : Act::kNone;
      k.threads = threads;
      ++round;
      check_matmul(k, rng_);
    }
}

TEST_F(CpuConvMatmul, MatmulBatchedAndBroadcast) {
  const std::pair<Dims, Dims> shapes[] = {
      {{3, 13, 20}, {3, 20, 40}},
      {{2, 1, 13, 300}, {3, 300, 31}},
      {{4, 5, 6}, {6, 7}},
      {{5, 6}, {2, 6, 7}},
      {{2, 1, 5, 9}, {1, 4, 9, 33}},
      {{1, 12, 270}, {2, 270, 257}},
      {{2, 3, 1, 7}, {2, 3, 7, 1}},
      // 3 key/value heads on 2 threads: each head's rows in two groups of whole panels.
      {{1, 3, 50, 64}, {1, 3, 64, 70}},
  };
  uint32_t round = 0;
  for (const auto& [a, b] : shapes)
    for (uint32_t threads : {1u, 2u}) {
      MatmulCase k;
      k.a = a;
      k.b = b;
      k.act = round % 4 == 1 ? Act::kClamp : Act::kNone;
      k.threads = threads;
      ++round;
      check_matmul(k, rng_);
    }
}

// A constant left operand is packed once at build (when it is one matrix), a constant right one
// read in place; both with broadcast batches.
TEST_F(CpuConvMatmul, MatmulConstantOperands) {
  const std::pair<Dims, Dims> shapes[] = {
      {{13, 300}, {300, 40}},     {{13, 300}, {2, 300, 40}},       {{1, 13, 30}, {3, 30, 40}},
      {{2, 13, 30}, {2, 30, 40}}, {{2, 1, 13, 260}, {3, 260, 33}},
  };
  for (const auto& [a, b] : shapes)
    for (int which = 0; which < 3; ++which)
      for (uint32_t threads : {1u, 2u}) {
        MatmulCase k;
        k.a = a;
        k.b = b;
        k.constant_a = which != 1;
        k.constant_b = which != 0;
        k.threads = threads;
        check_matmul(k, rng_);
      }
}

// matmul + a constant bias [N] (+ an activation): the fusion pass makes it a gemm with c.
TEST_F(CpuConvMatmul, MatmulWithBiasAndActivation) {
  for (Act act : {Act::kNone, Act::kRelu, Act::kHardSwish, Act::kSigmoid, Act::kSilu})
    for (uint32_t threads : {1u, 2u}) {
      MatmulCase k;
      k.a = {13, 270};
      k.b = {270, 37};
      k.bias = true;
      k.constant_b = true;
      k.act = act;
      k.threads = threads;
      check_matmul(k, rng_);
    }
}

// ---- gemm ------------------------------------------------------------------------------------

struct GemmCase {
  uint32_t m = 13, k = 300, n = 37;
  bool a_t = false, b_t = false;
  double alpha = 1.0, beta = 1.0;
  std::optional<Dims> c;
  bool constant_a = false, constant_b = true, constant_c = true;
  Act act = Act::kNone;
  uint32_t threads = 1;

  std::string name() const {
    return "gemm M=" + std::to_string(m) + " K=" + std::to_string(k) + " N=" + std::to_string(n) +
           (a_t ? " aTranspose" : "") + (b_t ? " bTranspose" : "") +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
           " c=" + (c ? dims_str(*c) : std::string("none")) + (constant_a ? " constant-a" : "") +
           (constant_b ? " constant-b" : "") + (constant_c ? "" : " runtime-c") + " act " +
           act_name(act) + " threads " + std::to_string(threads);
  }
};

void check_gemm(const GemmCase& g, std::mt19937& rng) {
  SCOPED_TRACE(g.name());
  const Dims as = g.a_t ? Dims{g.k, g.m} : Dims{g.m, g.k};
  const Dims bs = g.b_t ? Dims{g.n, g.k} : Dims{g.k, g.n};
  const std::vector<float> a = random_values(element_count(as), rng);
  const std::vector<float> b = random_values(element_count(bs), rng);
  const std::vector<float> c = g.c ? random_values(element_count(*g.c), rng) : std::vector<float>{};
  auto c_at = [&](size_t i, size_t j) -> double {
    const Dims& d = *g.c;
    if (d.empty()) return c[0];
    if (d.size() == 1) return c[d[0] == 1 ? 0 : j];
    return c[(d[0] == 1 ? 0 : i) * d[1] + (d[1] == 1 ? 0 : j)];
  };
  Expected e;
  e.value.assign(size_t(g.m) * g.n, 0.0);
  e.scale.assign(e.value.size(), 0.0);
  for (size_t i = 0; i < g.m; ++i)
    for (size_t j = 0; j < g.n; ++j) {
      double sum = 0, mag = 0;
      for (size_t l = 0; l < g.k; ++l) {
        const double p = double(g.a_t ? a[l * g.m + i] : a[i * g.k + l]) *
                         double(g.b_t ? b[j * g.k + l] : b[l * g.n + j]);
        sum += p;
        mag += std::fabs(p);
      }
      sum *= g.alpha;
      mag *= std::fabs(g.alpha);
      if (g.c) {
        sum += g.beta * c_at(i, j);
        mag += std::fabs(g.beta * c_at(i, j));
      }
      e.value[i * g.n + j] = apply_act(g.act, sum);
      e.scale[i * g.n + j] = mag;
    }
  Inputs inputs{};
  if (!g.constant_a) inputs.emplace("a", to_bytes(a));
  if (!g.constant_b) inputs.emplace("b", to_bytes(b));
  if (g.c && !g.constant_c) inputs.emplace("c", to_bytes(c));
  compare_backends(
      [&](MLGraphBuilder& gb) {
        MLOperand oa =
            g.constant_a ? gb.constant({kF32, as}, to_bytes(a)) : gb.input("a", {kF32, as});
        MLOperand ob =
            g.constant_b ? gb.constant({kF32, bs}, to_bytes(b)) : gb.input("b", {kF32, bs});
        MLGemmOptions o;
        o.alpha = g.alpha;
        o.beta = g.beta;
        o.aTranspose = g.a_t;
        o.bTranspose = g.b_t;
        if (g.c)
          o.c = g.constant_c ? gb.constant({kF32, *g.c}, to_bytes(c)) : gb.input("c", {kF32, *g.c});
        return apply_act(gb, g.act, gb.gemm(oa, ob, o));
      },
      inputs, e, g.threads);
}

TEST_F(CpuConvMatmul, GemmTransposesAlphaBetaAndC) {
  const std::optional<Dims> cs[] = {std::nullopt, Dims{37},    Dims{13, 1}, Dims{13, 37},
                                    Dims{1},      Dims{1, 37}, Dims{}};
  uint32_t round = 0;
  for (bool a_t : {false, true})
    for (bool b_t : {false, true})
      for (const auto& c : cs) {
        GemmCase g;
        g.a_t = a_t;
        g.b_t = b_t;
        g.alpha = 0.5;
        g.beta = 2.0;
        g.c = c;
        g.constant_a = round % 2 == 1;
        g.constant_b = round % 3 != 2;
        g.constant_c = round % 4 != 3;
        g.threads = 1 + round % 2;
        ++round;
        check_gemm(g, rng_);
      }
}

TEST_F(CpuConvMatmul, GemmShapesAndActivations) {
  struct Shape {
    uint32_t m, k, n;
  };
  uint32_t round = 0;
  for (const Shape& s : {Shape{1, 1, 1}, Shape{5, 3, 7}, Shape{12, 256, 32}, Shape{25, 257, 33},
                         Shape{13, 600, 257}, Shape{1, 300, 600}})
    for (Act act : {Act::kNone, Act::kRelu, Act::kClamp, Act::kSigmoid, Act::kSilu}) {
      GemmCase g;
      g.m = s.m;
      g.k = s.k;
      g.n = s.n;
      g.a_t = round % 2 == 0;
      g.b_t = round % 3 == 0;
      g.alpha = round % 2 ? 0.5 : 1.0;
      g.beta = round % 2 ? 2.0 : 1.0;
      g.c = round % 3 == 1 ? std::optional<Dims>(Dims{s.n}) : std::optional<Dims>(Dims{s.m, 1});
      g.constant_a = round % 4 == 0;
      g.act = act;
      g.threads = 1 + round % 2;
      ++round;
      check_gemm(g, rng_);
    }
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

TEST_F(CpuConvMatmul, Conv2dBatchNormalization) {
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

TEST_F(CpuConvMatmul, Conv2dBatchNormalizationNhwcAndDeep) {
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
TEST_F(CpuConvMatmul, PipelineFoldsBatchNormalization) {
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

// ---- which cases take the fast kernels ---------------------------------------------------------

// Prepares `y`'s graph for the cpu backend and compiles its last operation with the cpu kernels:
// nullopt when they do not take it.
std::optional<cpu::FastKernel> fast_kernel_of(MLGraphBuilder& b, const MLOperand& y,
                                              OpType expected) {
  auto graph = std::make_shared<const Graph>(b.pruned_graph({{"y", y}}));
  const std::unique_ptr<Backend> cpu = make_cpu_backend({});
  const std::shared_ptr<const Graph> prepared = passes::prepare_graph(cpu->descriptor(), graph);
  const Operation* op = nullptr;
  for (const Operation& o : prepared->operations)
    if (o.type == expected) op = &o;
  EXPECT_NE(op, nullptr) << "no " << int(expected) << " in the prepared graph";
  if (!op) return std::nullopt;
  cpu::CompileContext cc{*prepared, std::make_shared<cpu::ThreadPool>(1)};
  return cpu::compile_fast_kernel(cc, *op);
}

TEST_F(CpuConvMatmul, FastPathCases) {
  MLContext ref = testing::ref_context();
  std::mt19937 rng(9);
  auto conv = [&](uint32_t groups, Act act, bool constant_filter, MLInputOperandLayout layout) {
    MLGraphBuilder b(ref);
    ConvCase k;
    k.cin = 8;
    k.cout = 8;
    k.groups = groups;
    k.constant_filter = constant_filter;
    k.input_layout = layout;
    const ConvData d = conv_data(k, rng);
    return fast_kernel_of(b, apply_act(b, act, conv_operand(b, k, d)), OpType::kConv2d);
  };
  for (uint32_t groups : {1u, 2u, 4u}) {
    SCOPED_TRACE(groups);
    const auto k = conv(groups, Act::kRelu, true, kNchw);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(k->applies_activations);
    for (Act fused : {Act::kSigmoid, Act::kSilu}) {
      const auto k2 = conv(groups, fused, true, kNchw);
      ASSERT_TRUE(k2.has_value());
      EXPECT_TRUE(k2->applies_activations);
    }
    const auto tanh = conv(groups, Act::kTanh, true, kNchw);
    ASSERT_TRUE(tanh.has_value());
    EXPECT_FALSE(tanh->applies_activations);  // the reference kernel runs it after
  }
  EXPECT_FALSE(conv(2, Act::kNone, false, kNchw).has_value());

  {
    MLGraphBuilder b(ref);
    MLOperand x = b.input("x", {kF32, {1, 4, 5, 5}});
    const std::vector<float> w(4 * 3 * 9, 0.25f);
    MLConvTranspose2dOptions o;
    o.strides = std::vector<uint32_t>{2, 2};
    o.groups = 2;
    MLOperand y = b.clamp(b.convTranspose2d(x, b.constant({kF32, {4, 3, 3, 3}}, to_bytes(w)), o),
                          {.minValue = MLNumber(0.0), .maxValue = MLNumber(1.0)});
    const auto k = fast_kernel_of(b, y, OpType::kConvTranspose2d);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(k->applies_activations);
  }
  {
    MLGraphBuilder b(ref);
    MLOperand y = b.matmul(b.input("a", {kF32, {2, 1, 5, 7}}), b.input("b", {kF32, {3, 7, 4}}));
    const auto k = fast_kernel_of(b, b.relu(y), OpType::kMatmul);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(k->applies_activations);
  }
  {
    MLGraphBuilder b(ref);
    MLGemmOptions o;
    o.c = b.input("c", {kF32, {5, 1}});
    o.aTranspose = true;
    MLOperand y = b.gemm(b.input("a", {kF32, {7, 5}}), b.input("b", {kF32, {7, 4}}), o);
    const auto k = fast_kernel_of(b, y, OpType::kGemm);
    ASSERT_TRUE(k.has_value());
  }
  {  // float16 stays on the reference kernels
    MLGraphBuilder b(ref);
    MLOperand y = b.matmul(b.input("a", {MLOperandDataType::kFloat16, {5, 7}}),
                           b.input("b", {MLOperandDataType::kFloat16, {7, 4}}));
    EXPECT_FALSE(fast_kernel_of(b, y, OpType::kMatmul).has_value());
  }
}

// NHWC convolutions reach the cpu kernels too: the kernels take NCHW only, and the cpu backend
// (src/backends/cpu/cpu_backend.cpp, convolution.cpp) relies on the layout pass to put every
// convolution in NCHW.
TEST_F(CpuConvMatmul, NhwcConvolutionsTakeTheFastKernels) {
  MLContext ref = testing::ref_context();
  std::mt19937 rng(11);
  for (uint32_t groups : {1u, 2u}) {
    SCOPED_TRACE("conv2d nhwc groups " + std::to_string(groups));
    MLGraphBuilder b(ref);
    ConvCase k;
    k.cin = 8;
    k.cout = 8;
    k.groups = groups;
    k.input_layout = kNhwc;
    k.layout = MLConv2dFilterOperandLayout::kOhwi;
    const ConvData d = conv_data(k, rng);
    EXPECT_TRUE(fast_kernel_of(b, b.relu(conv_operand(b, k, d)), OpType::kConv2d).has_value());
  }
  {
    SCOPED_TRACE("convTranspose2d nhwc");
    MLGraphBuilder b(ref);
    MLOperand x = b.input("x", {kF32, {1, 5, 5, 4}});
    const std::vector<float> w(4 * 3 * 9, 0.25f);
    MLConvTranspose2dOptions o;
    o.strides = std::vector<uint32_t>{2, 2};
    o.inputLayout = kNhwc;
    o.filterLayout = MLConvTranspose2dFilterOperandLayout::kOhwi;
    MLOperand y = b.convTranspose2d(x, b.constant({kF32, {3, 3, 3, 4}}, to_bytes(w)), o);
    EXPECT_TRUE(fast_kernel_of(b, y, OpType::kConvTranspose2d).has_value());
  }
}

}  // namespace
}  // namespace cppnn
