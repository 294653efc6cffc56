// The cpu backend's convTranspose2d (src/backends/cpu/conv_transpose.cpp) through the public API:
// the same graph on a "cpu" and a "reference" context with random inputs in [-1, 1], strides 1 to
// 3, padding, dilations, outputPadding, outputSizes, groups, filter layouts, bias and
// activations, on 1 and 2 threads; each element within 1e-5 of the sum of |products| of its naive
// double-precision value, the reference checked against that value too (cpu_product_checks.h).
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
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using namespace product_checks;

class CpuConvTranspose : public ::testing::Test {
 protected:
  std::mt19937 rng_{4321};
};

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
    return "convTranspose2d x" + dims_text({n, cin, h, w}) + " cout " + std::to_string(cout) +
           " k" + std::to_string(kh) + "x" + std::to_string(kw) + " groups " +
           std::to_string(groups) + " pad" + dims_text(padding) + " strides" + dims_text(strides) +
           " dilations" + dims_text(dilations) + " outputPadding" + dims_text(output_padding) +
           (output_sizes ? " outputSizes" + dims_text(*output_sizes) : std::string()) +
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

TEST_F(CpuConvTranspose, ConvTranspose2dStridesAndGroups) {
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

TEST_F(CpuConvTranspose, ConvTranspose2dPaddingDilationsOutputPadding) {
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

TEST_F(CpuConvTranspose, ConvTranspose2dLayoutsBiasAndActivations) {
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
TEST_F(CpuConvTranspose, ConvTranspose2dDeepAndOutputSizes) {
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

}  // namespace
}  // namespace cppnn
