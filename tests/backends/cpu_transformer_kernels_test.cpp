// The cpu backend's kernels for the ops transformers, recurrent nets and detectors spend time in,
// against the reference backend through the public API, with the cpu context profiling so that
// each graph is checked to run on fast kernels only: the float32 math maps (elementwise_math.cpp:
// exp, log, sigmoid, gelu within a few ULP, tanh and erf within 2e-7 and 3e-7 absolute, the exact
// ones and pow by 2, 0.5 and 1 bit for bit) on values with NaN, ±Inf, ±0, subnormals and huge
// magnitudes; reduceMax and reduceMin bit for bit; layerNormalization, batchNormalization, the
// sum-like reductions,
// lstm, gru and their cells (normalization.cpp, reduction.cpp, recurrent.cpp) within an ULP; the
// data movement ops and constant pads (data_movement.cpp) bit for bit on several element types.
// Tensors are large enough to be split over the pool; 1 and 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::run_graph;
using testing::to_bytes;
using Shape = std::vector<uint32_t>;
using Bytes = std::vector<std::byte>;
constexpr MLOperandDataType F32 = MLOperandDataType::kFloat32;

// Builds the graph under test on a builder from named inputs: returns its one output.
using BuildFn = std::function<MLOperand(MLGraphBuilder&, const std::vector<MLOperand>&)>;

struct Input {
  MLOperandDescriptor desc;
  Bytes data;
};

// Runs the graph on `context` and returns output "y"; with `fast_only` (a profiling cpu context)
// also expects every operation to have run on a cpu kernel.
Bytes run_on(MLContext& context, const std::vector<Input>& inputs, const BuildFn& build,
             bool fast_only = false) {
  MLGraphBuilder b(context);
  std::vector<MLOperand> in;
  std::map<std::string, Bytes> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    in.push_back(b.input(name, inputs[i].desc));
    feeds.emplace(name, inputs[i].data);
  }
  MLGraph g = b.build({{"y", build(b, in)}});
  Bytes y = run_graph(context, g, feeds).at("y");
  if (fast_only) {
    for (const MLOperationProfile& o : g.profile().operations)
      EXPECT_EQ(o.kernel, "fast") << o.op << " " << o.name;
  }
  return y;
}

// n float32 values: mostly uniform in [-range, range], some special values.
std::vector<float> values(size_t n, float range, uint32_t seed, bool specials = true) {
  static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   0.0f,
                                   -0.0f,
                                   1e-40f,
                                   -3e-42f,
                                   3e38f,
                                   -3e38f,
                                   88.7f,
                                   -88.7f,
                                   -103.5f,
                                   15.0f,
                                   -15.0f,
                                   0.49f,
                                   -0.51f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-range, range);
  std::vector<float> v(n);
  for (float& x : v)
    x = specials && rng() % 10 == 0 ? kSpecial[rng() % std::size(kSpecial)] : u(rng);
  return v;
}

// Monotonic integer key of a float (adjacent floats differ by 1).
int64_t ulp_key(float f) {
  int32_t k;
  std::memcpy(&k, &f, 4);
  return k < 0 ? int64_t{INT32_MIN} - k : int64_t{k};
}

// Expects float32 outputs to agree within `ulp` ULP or `atol` absolute (NaN with NaN).
void expect_close(const Bytes& got, const Bytes& want, int64_t ulp, double atol = 0) {
  ASSERT_EQ(got.size(), want.size());
  const std::vector<float> g = testing::as<float>(got), w = testing::as<float>(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i]) || std::isnan(w[i])) {
      ASSERT_TRUE(std::isnan(g[i]) && std::isnan(w[i]))
          << "element " << i << ": " << g[i] << " vs " << w[i];
      continue;
    }
    if (std::abs(ulp_key(g[i]) - ulp_key(w[i])) <= ulp) continue;
    ASSERT_LE(std::fabs(double(g[i]) - double(w[i])), atol)
        << "element " << i << ": got " << g[i] << ", reference " << w[i];
  }
}

// Runs on cpu (1 and 2 threads, profiled) and on the reference; compares with the tolerance.
void expect_matches(const std::vector<Input>& inputs, const BuildFn& build, int64_t ulp,
                    double atol = 0) {
  MLContext ref = testing::ref_context();
  const Bytes want = run_on(ref, inputs, build);
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads, .profile = true});
    const Bytes got = run_on(cpu, inputs, build, true);
    if (ulp == 0 && atol == 0)
      EXPECT_EQ(got, want);
    else
      expect_close(got, want, ulp, atol);
  }
}

Input f32(const Shape& shape, float range, uint32_t seed, bool specials = true) {
  return {{F32, shape}, to_bytes(values(element_count(shape), range, seed, specials))};
}

TEST(CpuTransformerKernels, MathMapsMatchTheReference) {
  const std::vector<Input> x = {f32({3, 40000}, 12.0f, 1)};
  auto unary = [](auto method) {
    return [method](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return (b.*method)(in[0], {});
    };
  };
  {
    SCOPED_TRACE("exp");
    expect_matches(x, unary(&MLGraphBuilder::exp), 2);
  }
  {
    SCOPED_TRACE("sigmoid");
    expect_matches(x, unary(&MLGraphBuilder::sigmoid), 4);
  }
  {
    SCOPED_TRACE("gelu");
    expect_matches(x, unary(&MLGraphBuilder::gelu), 8);
  }
  {
    SCOPED_TRACE("log");
    expect_matches(x, unary(&MLGraphBuilder::log), 2);
  }
  {
    SCOPED_TRACE("tanh");
    expect_matches(x, unary(&MLGraphBuilder::tanh), 2, 2e-7);
  }
  {
    SCOPED_TRACE("erf");
    expect_matches(x, unary(&MLGraphBuilder::erf), 2, 3e-7);
  }
  for (auto [name, method] :
       {std::pair{"abs", &MLGraphBuilder::abs}, std::pair{"neg", &MLGraphBuilder::neg},
        std::pair{"floor", &MLGraphBuilder::floor}, std::pair{"ceil", &MLGraphBuilder::ceil},
        std::pair{"reciprocal", &MLGraphBuilder::reciprocal},
        std::pair{"sqrt", &MLGraphBuilder::sqrt}}) {
    SCOPED_TRACE(name);
    expect_matches(x, unary(method), 0);
  }
}

// pow by a constant exponent of 2, 0.5 or 1 (squares and square roots in exported graphs) is a
// map, bit-identical to the reference's double pow; another exponent keeps the reference kernel.
TEST(CpuTransformerKernels, PowByConstantSquareAndSquareRootMatchesTheReference) {
  const std::vector<Input> x = {f32({7, 3000}, 30.0f, 11)};
  for (float e : {2.0f, 0.5f, 1.0f}) {
    SCOPED_TRACE("exponent " + std::to_string(e));
    expect_matches(
        x,
        [e](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
          return b.pow(in[0], b.constant<float>({F32, {}}, std::vector<float>{e}));
        },
        0);
  }
  MLContext ref = testing::ref_context();
  MLContext cpu = MLContext::create({.backend = "cpu", .profile = true});
  auto cube = [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
    return b.pow(in[0], b.constant<float>({F32, {1}}, std::vector<float>{3.0f}));
  };
  EXPECT_EQ(run_on(cpu, x, cube), run_on(ref, x, cube));
}

TEST(CpuTransformerKernels, LayerNormalizationOverTrailingAxesMatchesTheReference) {
  // A transformer's [batch, tokens, width] with scale and bias over the width.
  expect_matches(
      {f32({2, 37, 384}, 4.0f, 2, false), f32({384}, 2.0f, 3, false), f32({384}, 2.0f, 4, false)},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        MLLayerNormalizationOptions o;
        o.axes = std::vector<uint32_t>{2};
        o.epsilon = 1e-12;
        return b.layerNormalization(in[0], {in[1], in[2], o.axes, o.epsilon, ""});
      },
      2);
  // Default axes [1, 2], no scale or bias; values far from 0 (a large mean).
  std::vector<float> big = values(5 * 6 * 70, 1.0f, 5, false);
  for (float& v : big) v += 1000.0f;
  expect_matches(
      {{{F32, {5, 6, 70}}, to_bytes(big)}},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.layerNormalization(in[0], {});
      },
      2);
  // Only scale, and a row with a NaN.
  Input x = f32({8, 100}, 3.0f, 6, false);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(x.data.data() + 4 * 250, &nan, 4);
  expect_matches(
      {x, f32({100}, 1.0f, 7, false)},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        MLLayerNormalizationOptions o;
        o.scale = in[1];
        o.axes = std::vector<uint32_t>{1};
        return b.layerNormalization(in[0], o);
      },
      2);
}

TEST(CpuTransformerKernels, BatchNormalizationOverAnyAxisMatchesTheReference) {
  // NCHW channels (axis 1) with every parameter; positive variances.
  const Input x = f32({2, 24, 9, 13}, 3.0f, 40, false);
  std::vector<float> variance = values(24, 2.0f, 41, false);
  for (float& v : variance) v = std::fabs(v) + 0.01f;
  const Input var{{F32, {24}}, to_bytes(variance)};
  expect_matches(
      {x, f32({24}, 1.0f, 42, false), var, f32({24}, 2.0f, 43, false), f32({24}, 1.0f, 44, false)},
      [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        MLBatchNormalizationOptions o;
        o.scale = in[3];
        o.bias = in[4];
        o.epsilon = 1e-3;
        return b.batchNormalization(in[0], in[1], in[2], o);
      },
      1);
  // The last axis (NHWC: one element per channel in a row), no scale or bias; and a middle one.
  for (uint32_t axis : {3u, 2u}) {
    std::vector<float> v2 = values(13, 2.0f, 45 + axis, false);
    for (float& v : v2) v = std::fabs(v);
    const Input mean13 = f32({13}, 1.0f, 47, false), var13{{F32, {13}}, to_bytes(v2)};
    const Input x13 = f32({2, 9, 13, 13}, 3.0f, 48, false);
    expect_matches(
        {x13, mean13, var13},
        [axis](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
          MLBatchNormalizationOptions o;
          o.axis = axis;
          return b.batchNormalization(in[0], in[1], in[2], o);
        },
        1);
  }
}

TEST(CpuTransformerKernels, SumLikeReductionsMatchTheReference) {
  const std::vector<Input> x = {f32({6, 50, 70}, 5.0f, 8, false)};
  using Method = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLReduceOptions&);
  for (auto [name, method] :
       {std::pair<const char*, Method>{"reduceMean", &MLGraphBuilder::reduceMean},
        {"reduceSum", &MLGraphBuilder::reduceSum},
        {"reduceSumSquare", &MLGraphBuilder::reduceSumSquare},
        {"reduceL1", &MLGraphBuilder::reduceL1},
        {"reduceL2", &MLGraphBuilder::reduceL2}}) {
    for (const std::vector<uint32_t>& axes :
         {std::vector<uint32_t>{2}, {1}, {0}, {1, 2}, {1, 0}, {0, 1, 2}}) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(std::string(name) + " axes " + std::to_string(axes.size()) + " from " +
                     std::to_string(axes[0]) + (keep ? " keeping" : ""));
        expect_matches(
            x,
            [method, axes, keep](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
              return (b.*method)(in[0], {axes, keep, ""});
            },
            1);
      }
    }
  }
}

// lstm and gru (and their cells) against the reference: the same double algorithm, dot products
// summed in another order, so outputs agree within an ULP. Both directions, sequences, peepholes,
// both weight layouts, resetAfter on and off, constant and runtime weights.
TEST(CpuTransformerKernels, RecurrentNetworksMatchTheReference) {
  const uint32_t steps = 5, batch = 2, in_size = 19, hidden = 24;
  const Input x = f32({steps, batch, in_size}, 1.0f, 20, false);
  for (bool constant_weights : {true, false}) {
    SCOPED_TRACE(constant_weights ? "constant weights" : "runtime weights");
    const Input w4 = f32({2, 4 * hidden, in_size}, 0.4f, 21, false);
    const Input r4 = f32({2, 4 * hidden, hidden}, 0.4f, 22, false);
    const Input w3 = f32({2, 3 * hidden, in_size}, 0.4f, 23, false);
    const Input r3 = f32({2, 3 * hidden, hidden}, 0.4f, 24, false);
    auto operand = [constant_weights](MLGraphBuilder& b, const MLOperand& runtime,
                                      const Input& value) {
      return constant_weights ? b.constant(value.desc, value.data) : runtime;
    };
    for (MLLstmWeightLayout layout : {MLLstmWeightLayout::kIofg, MLLstmWeightLayout::kIfgo}) {
      expect_matches(
          {x, w4, r4, f32({2, 8 * hidden}, 0.5f, 25, false), f32({2, 3 * hidden}, 0.5f, 26, false)},
          [&](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
            MLLstmOptions o;
            o.bias = b.slice(in[3], {0, 0}, {2, 4 * hidden});
            o.recurrentBias = b.slice(in[3], {0, 4 * hidden}, {2, 4 * hidden});
            o.peepholeWeight = in[4];
            o.returnSequence = true;
            o.direction = MLRecurrentNetworkDirection::kBoth;
            o.layout = layout;
            const std::vector<MLOperand> r =
                b.lstm(in[0], operand(b, in[1], w4), operand(b, in[2], r4), steps, hidden, o);
            return b.concat(
                {b.reshape(r[0], {2 * batch * hidden}), b.reshape(r[1], {2 * batch * hidden}),
                 b.reshape(r[2], {steps * 2 * batch * hidden})},
                0);
          },
          1);
    }
    for (bool reset_after : {true, false}) {
      expect_matches(
          {x, w3, r3, f32({2, batch, hidden}, 0.5f, 27, false)},
          [&](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
            MLGruOptions o;
            o.initialHiddenState = in[3];
            o.resetAfter = reset_after;
            o.returnSequence = true;
            o.direction = MLRecurrentNetworkDirection::kBackward;
            MLOperand w = b.slice(operand(b, in[1], w3), {0, 0, 0}, {1, 3 * hidden, in_size});
            MLOperand r = b.slice(operand(b, in[2], r3), {0, 0, 0}, {1, 3 * hidden, hidden});
            MLOperand h0 = b.slice(in[3], {0, 0, 0}, {1, batch, hidden});
            o.initialHiddenState = h0;
            const std::vector<MLOperand> y = b.gru(in[0], w, r, steps, hidden, o);
            return b.concat(
                {b.reshape(y[0], {batch * hidden}), b.reshape(y[1], {steps * batch * hidden})}, 0);
          },
          1);
    }
  }
  // The cells: one step of [batch, input].
  const Input xc = f32({batch, in_size}, 1.0f, 30, false);
  expect_matches(
      {xc, f32({4 * hidden, in_size}, 0.4f, 31, false), f32({4 * hidden, hidden}, 0.4f, 32, false),
       f32({batch, hidden}, 1.0f, 33, false), f32({batch, hidden}, 1.0f, 34, false)},
      [&](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        const std::vector<MLOperand> r = b.lstmCell(in[0], in[1], in[2], in[3], in[4], hidden);
        return b.concat({r[0], r[1]}, 0);
      },
      1);
  expect_matches(
      {xc, f32({3 * hidden, in_size}, 0.4f, 35, false), f32({3 * hidden, hidden}, 0.4f, 36, false),
       f32({batch, hidden}, 1.0f, 37, false)},
      [&](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
        return b.gruCell(in[0], in[1], in[2], in[3], hidden);
      },
      1);
}

// reduceMax and reduceMin over trailing axes pick the reference's element (the first NaN, else the
// first equal to the extreme, so ±0 keep their sign), bit for bit.
TEST(CpuTransformerKernels, MaxAndMinReductionsPickTheReferencesElement) {
  std::vector<float> v = values(6 * 50 * 70, 5.0f, 12, false);
  for (size_t i = 0; i < v.size(); i += 97) v[i] = (i / 97) % 2 ? 0.0f : -0.0f;
  for (size_t i = 0; i < 50 * 70; ++i) v[i] = i % 3 ? -0.0f : 0.0f;  // a block of zeros alone
  v[50 * 70 + 1234] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Input> x = {{{F32, {6, 50, 70}}, to_bytes(v)}};
  using Method = MLOperand (MLGraphBuilder::*)(const MLOperand&, const MLReduceOptions&);
  for (Method method : {static_cast<Method>(&MLGraphBuilder::reduceMax),
                        static_cast<Method>(&MLGraphBuilder::reduceMin)})
    for (const std::vector<uint32_t>& axes : {std::vector<uint32_t>{2}, {1, 2}, {0, 1, 2}}) {
      SCOPED_TRACE("axes from " + std::to_string(axes[0]));
      expect_matches(
          x,
          [method, axes](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
            return (b.*method)(in[0], {axes, false, ""});
          },
          0);
    }
}

// Bytes of random bits for a tensor of `type` (data movement copies any bit pattern).
Input random_input(MLOperandDataType type, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(element_count(shape) * data_type_bits(type) / 8);
  for (std::byte& v : b) v = std::byte(rng() & 0xFF);
  return {{type, shape}, b};
}

TEST(CpuTransformerKernels, DataMovementMatchesTheReferenceBitForBit) {
  using enum MLOperandDataType;
  for (MLOperandDataType type : {kFloat32, kFloat16, kInt8, kInt64}) {
    SCOPED_TRACE(std::string("type ") + std::to_string(static_cast<int>(type)));
    const Input x = random_input(type, {4, 33, 12, 40}, 9);
    auto check = [&](const char* what, const BuildFn& build) {
      SCOPED_TRACE(what);
      expect_matches({x}, build, 0);
    };
    check("transpose heads", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.transpose(in[0], {.permutation = {{0, 2, 1, 3}}});
    });
    check("transpose reversed", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.transpose(in[0], {});
    });
    check("slice with strides", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.slice(in[0], {1, 2, 0, 3}, {3, 20, 12, 18}, {.strides = {{1, 3, 2, 1}}});
    });
    check("concat", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      MLOperand half = b.slice(in[0], {0, 0, 0, 0}, {4, 33, 12, 20});
      return b.concat({in[0], half, in[0]}, 3);
    });
    check("split", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      const std::vector<MLOperand> parts =
          b.split(in[0], std::vector<uint32_t>{5, 20, 8}, {.axis = 1});
      return b.concat({parts[2], parts[0]}, 1);
    });
    check("expand", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      MLOperand row = b.slice(in[0], {0, 0, 0, 0}, {1, 33, 1, 40});
      return b.expand(row, {3, 33, 7, 40});
    });
    check("tile and reverse", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.reverse(b.tile(in[0], {1, 2, 1, 3}), {.axes = {{1, 3}}});
    });
    check("pad with a constant", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      MLPadOptions o;
      o.value = 3.0;
      return b.pad(in[0], {1, 0, 2, 0}, {0, 3, 1, 5}, o);
    });
    check("reshape", [](MLGraphBuilder& b, const std::vector<MLOperand>& in) {
      return b.transpose(b.reshape(in[0], {132, 480}), {});
    });
  }
}

}  // namespace
}  // namespace cppnn
