// Shared by the cpu backend's GEMM-kernel tests (cpu_conv_test.cpp, cpu_matmul_test.cpp): random
// inputs, the activations as graph ops and as naive double functions, the comparison of an output
// with its naive double-precision value within rel·(sum of |products|) + abs, and the layouts of
// inputs and filters; whether a cpu kernel compiler takes an operation. Also used by
// cpu_depthwise_test.cpp and cpu_pool_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/ops/convolution_params.h"
#include "tests/backends/run_util.h"

namespace cppnn::product_checks {

using testing::as;
using testing::to_bytes;
inline constexpr auto kF32 = MLOperandDataType::kFloat32;
inline constexpr auto kNchw = MLInputOperandLayout::kNchw;
inline constexpr auto kNhwc = MLInputOperandLayout::kNhwc;
using Inputs = std::map<std::string, std::vector<std::byte>>;

inline std::vector<float> random_values(size_t n, std::mt19937& rng, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline std::string dims_text(const std::vector<uint32_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// ---- activations -----------------------------------------------------------------------------

// After the op: relu, clamp, hardSwish (fused into the cpu kernels' epilogue), sigmoid (fused by
// the pass, but without an epilogue form: the reference kernel runs it after the cpu kernel).
enum class Act { kNone, kRelu, kClamp, kHardSwish, kSigmoid, kTanh, kSilu };

inline const char* act_name(Act a) {
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

inline MLOperand apply_act(MLGraphBuilder& b, Act act, MLOperand y) {
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

inline double apply_act(Act act, double v) {
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
inline void expect_close(const std::vector<float>& got, const std::vector<double>& want,
                         const std::vector<double>& scale, double rel, double abs,
                         const char* what) {
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

inline std::vector<double> as_double(const std::vector<float>& v) {
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
inline size_t index_in(MLInputOperandLayout layout, uint32_t ch, uint32_t h, uint32_t w, size_t b,
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

inline Dims input_shape(MLInputOperandLayout layout, uint32_t n, uint32_t ch, uint32_t h,
                        uint32_t w) {
  return layout == kNchw ? Dims{n, ch, h, w} : Dims{n, h, w, ch};
}

// A filter given as logical [outer][inner][kh][kw] values (outer = output channels for conv2d,
// input channels for convTranspose2d), its shape and values in the layout of `axes`.
struct LaidOutFilter {
  Dims shape;
  std::vector<float> values;
};

inline LaidOutFilter lay_out_filter(const std::vector<float>& v, uint32_t outs, uint32_t ins,
                                    uint32_t kh, uint32_t kw, FilterAxes a, bool ins_outer) {
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

// Whether the cpu backend's family compiler `compile` takes the graph's single operation.
template <class F>
bool takes(MLGraphBuilder& b, const MLOperand& y, F compile) {
  const Graph g = b.pruned_graph({{"y", y}});
  cpu::CompileContext cc{g, std::make_shared<cpu::ThreadPool>(1)};
  return compile(cc, g.operations.back()).has_value();
}

}  // namespace cppnn::product_checks
