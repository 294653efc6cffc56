// The conv2d cases of the cpu backend's convolution tests (cpu_conv_test.cpp,
// cpu_conv_fast_path_test.cpp): a case's shape and options, its random data, its naive
// double-precision value, its graph, and the check of cpu against reference against that value.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/ops/convolution_params.h"
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn::product_checks {

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
    std::string s = "conv2d x" + dims_text({n, cin, h, w}) + " cout " + std::to_string(cout) +
                    " k" + std::to_string(kh) + "x" + std::to_string(kw) + " groups " +
                    std::to_string(groups) + " pad" + dims_text(padding) + " strides" +
                    dims_text(strides) + " dilations" + dims_text(dilations) +
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

inline ConvData conv_data(const ConvCase& k, std::mt19937& rng) {
  return {random_values(size_t(k.n) * k.cin * k.h * k.w, rng),
          random_values(size_t(k.cout) * (k.cin / k.groups) * k.kh * k.kw, rng),
          random_values(k.cout, rng)};
}

// The naive conv2d in NCHW (before any activation): values and sums of |products| + |bias|.
inline Expected naive_conv(const ConvCase& k, const ConvData& d) {
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

inline MLOperand conv_operand(MLGraphBuilder& b, const ConvCase& k, const ConvData& d) {
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

inline void check_conv(const ConvCase& k, std::mt19937& rng) {
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

}  // namespace cppnn::product_checks
