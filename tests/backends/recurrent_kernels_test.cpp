// Reference backend: gru, gruCell, lstm and lstmCell (§2 rows 53, 54, 61, 62 and the numeric
// notes): layouts, resetAfter both ways, activations, peepholes (order i,o,f with the previous
// cell state), directions and the time-indexed returned sequence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::half_bits;
using testing::ref_context;
using testing::run_graph;
using testing::to_bytes;

constexpr auto kF32 = MLOperandDataType::kFloat32;
constexpr auto kF16 = MLOperandDataType::kFloat16;
constexpr auto kRelu = MLRecurrentNetworkActivation::kRelu;

// WPT's float32 ULP distance: sign-magnitude bit patterns, so -0 and +0 are 0 apart.
int64_t ulp_distance(float a, float b) {
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
  };
  return std::abs(key(a) - key(b));
}

MLOperand constant_f32(MLGraphBuilder& b, std::vector<uint32_t> shape, std::vector<float> v) {
  return b.constant({kF32, std::move(shape)}, to_bytes(v));
}

// H = I = B = 1, relu activations. With x = 2, h = 1, W = (z 1, r 0.5, n 1), R = (1, 1, 2) and
// rb = (0, 0, 1): z = 3, r = 2; resetAfter: n = relu(2 + 2·(2·1 + 1)) = 8, h' = 3 − 2·8 = −13;
// otherwise n = relu(2 + 2·(2·1) + 1) = 7, h' = 3 − 2·7 = −11.
TEST(RefGruCell, ResetAfterBothWaysAndRznLayout) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {1, 1}});
  MLOperand h = b.input("h", {kF32, {1, 1}});
  MLOperand w_zrn = constant_f32(b, {3, 1}, {1, 0.5f, 1});
  MLOperand w_rzn = constant_f32(b, {3, 1}, {0.5f, 1, 1});
  MLOperand r = constant_f32(b, {3, 1}, {1, 1, 2});
  MLOperand rb = constant_f32(b, {3}, {0, 0, 1});
  MLOperand after =
      b.gruCell(x, w_zrn, r, h, 1, {.recurrentBias = rb, .activations = {kRelu, kRelu}});
  MLOperand before = b.gruCell(
      x, w_zrn, r, h, 1, {.recurrentBias = rb, .resetAfter = false, .activations = {kRelu, kRelu}});
  MLOperand rzn = b.gruCell(
      x, w_rzn, r, h, 1,
      {.recurrentBias = rb, .layout = MLGruWeightLayout::kRzn, .activations = {kRelu, kRelu}});
  MLGraph g = b.build({{"after", after}, {"before", before}, {"rzn", rzn}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({2})}, {"h", to_bytes<float>({1})}});
  EXPECT_EQ(as<float>(out.at("after")), (std::vector<float>{-13}));
  EXPECT_EQ(as<float>(out.at("before")), (std::vector<float>{-11}));
  EXPECT_EQ(as<float>(out.at("rzn")), (std::vector<float>{-13}));
}

// Default activations with zero weights: z = r = σ(0) = 0.5, n = tanh(0) = 0, so h' = h / 2.
TEST(RefGruCell, Float16DefaultActivations) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF16, {2, 1}});
  MLOperand h = b.input("h", {kF16, {2, 2}});
  MLOperand w = b.constant({kF16, {6, 1}}, to_bytes(half_bits({0, 0, 0, 0, 0, 0})));
  MLOperand r = b.constant({kF16, {6, 2}}, to_bytes(half_bits(std::vector<float>(12, 0))));
  MLGraph g = b.build({{"y", b.gruCell(x, w, r, h, 2)}});
  auto out = run_graph(
      c, g,
      {{"x", to_bytes(half_bits({3, -3}))}, {"h", to_bytes(half_bits({2, -4, 65504, 0.25f}))}});
  EXPECT_EQ(as<uint16_t>(out.at("y")), half_bits({1, -2, 32752, 0.125f}));
}

// steps = 2, x = (2, 1), W = (1, 0.5, 1), R = (1, 1, 2), relu, h0 = 0.
// Forward: t0 z = 2, r = 1, n = 2, h = −2; t1 z = r = 0, n = 1, h = 1.
// Backward: t1 z = 1, r = 0.5, n = 1, h = 0; t0 as forward t0, h = −2.
TEST(RefGru, DirectionsAndTimeIndexedSequence) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 1, 1}});
  MLOperand w1 = constant_f32(b, {1, 3, 1}, {1, 0.5f, 1});
  MLOperand r1 = constant_f32(b, {1, 3, 1}, {1, 1, 2});
  MLOperand w2 = constant_f32(b, {2, 3, 1}, {1, 0.5f, 1, 1, 0.5f, 1});
  MLOperand r2 = constant_f32(b, {2, 3, 1}, {1, 1, 2, 1, 1, 2});
  auto fwd = b.gru(x, w1, r1, 2, 1, {.returnSequence = true, .activations = {kRelu, kRelu}});
  auto bwd = b.gru(x, w1, r1, 2, 1,
                   {.returnSequence = true,
                    .direction = MLRecurrentNetworkDirection::kBackward,
                    .activations = {kRelu, kRelu}});
  auto both = b.gru(x, w2, r2, 2, 1,
                    {.returnSequence = true,
                     .direction = MLRecurrentNetworkDirection::kBoth,
                     .activations = {kRelu, kRelu}});
  ASSERT_EQ(both.size(), 2u);
  ASSERT_EQ(both[1].shape(), (std::vector<uint32_t>{2, 2, 1, 1}));
  MLGraph g = b.build({{"f", fwd[0]},
                       {"fs", fwd[1]},
                       {"b", bwd[0]},
                       {"bs", bwd[1]},
                       {"d", both[0]},
                       {"ds", both[1]}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({2, 1})}});
  EXPECT_EQ(as<float>(out.at("f")), (std::vector<float>{1}));
  EXPECT_EQ(as<float>(out.at("fs")), (std::vector<float>{-2, 1}));
  EXPECT_EQ(as<float>(out.at("b")), (std::vector<float>{-2}));
  EXPECT_EQ(as<float>(out.at("bs")), (std::vector<float>{-2, 0}));
  EXPECT_EQ(as<float>(out.at("d")), (std::vector<float>{1, -2}));
  EXPECT_EQ(as<float>(out.at("ds")), (std::vector<float>{-2, -2, 1, 0}));
}

// WPT gru "steps=2 with options.bias, options.recurrentBias, options.direction='both' and
// options.returnSequence=true" (resetAfter, relu, B = 3, I = 2, H = 4).
TEST(RefGru, WptBidirectionalResetAfterCase) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 3, 2}});
  std::vector<float> w_dir{1,    -1,    2, -2,   0.5f, -0.5f, 0, 0.1f, 1,    -1,    2, -2,
                           0.5f, -0.5f, 0, 0.1f, 1,    -1,    2, -2,   0.5f, -0.5f, 0, 0.1f};
  std::vector<float> w = w_dir;
  w.insert(w.end(), w_dir.begin(), w_dir.end());
  std::vector<float> bias_dir{1, 2, 1, 2, 1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f};
  std::vector<float> bias = bias_dir;
  bias.insert(bias.end(), bias_dir.begin(), bias_dir.end());
  MLOperand wt = constant_f32(b, {2, 12, 2}, w);
  MLOperand rt = constant_f32(b, {2, 12, 4}, std::vector<float>(96, 0.1f));
  MLOperand bt = constant_f32(b, {2, 12}, bias);
  MLOperand rbt = constant_f32(b, {2, 12}, bias);
  auto y = b.gru(x, wt, rt, 2, 4,
                 {.bias = bt,
                  .recurrentBias = rbt,
                  .resetAfter = true,
                  .returnSequence = true,
                  .direction = MLRecurrentNetworkDirection::kBoth,
                  .activations = {kRelu, kRelu}});
  MLGraph g = b.build({{"h", y[0]}, {"s", y[1]}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({1, 2, 2, 1, 1, 1, 3, 4, 1, 2, 1, 1})}});
  const std::vector<float> expected_h{0,
                                      0,
                                      -0.33243751525878906f,
                                      -23.753076553344727f,
                                      0,
                                      0,
                                      0,
                                      -2.213315725326538f,
                                      -1.1077498197555542f,
                                      -12.323249816894531f,
                                      -1.1077498197555542f,
                                      -14.518925666809082f,
                                      0,
                                      0,
                                      -0.28068751096725464f,
                                      -25.444257736206055f,
                                      -1.7041922807693481f,
                                      -9.28022289276123f,
                                      -1.4041223526000977f,
                                      -21.154621124267578f,
                                      -1.1077498197555542f,
                                      -12.323249816894531f,
                                      -1.1077498197555542f,
                                      -14.518925666809082f};
  const std::vector<float> expected_s{0,
                                      0,
                                      -0.375f,
                                      -5.7599992752075195f,
                                      -6,
                                      -22.5f,
                                      -3.375f,
                                      -5.114999771118164f,
                                      -1.5f,
                                      -4.5f,
                                      -1.5f,
                                      -5.114999771118164f,
                                      0,
                                      0,
                                      -0.28068751096725464f,
                                      -25.444257736206055f,
                                      -1.7041922807693481f,
                                      -9.28022289276123f,
                                      -1.4041223526000977f,
                                      -21.154621124267578f,
                                      -1.1077498197555542f,
                                      -12.323249816894531f,
                                      -1.1077498197555542f,
                                      -14.518925666809082f,
                                      0,
                                      0,
                                      -0.33243751525878906f,
                                      -23.753076553344727f,
                                      0,
                                      0,
                                      0,
                                      -2.213315725326538f,
                                      -1.1077498197555542f,
                                      -12.323249816894531f,
                                      -1.1077498197555542f,
                                      -14.518925666809082f,
                                      0,
                                      0,
                                      -0.375f,
                                      -7.139999866485596f,
                                      0,
                                      0,
                                      -0.375f,
                                      -5.7599992752075195f,
                                      -1.5f,
                                      -4.5f,
                                      -1.5f,
                                      -5.114999771118164f};
  const std::vector<float> h = as<float>(out.at("h")), s = as<float>(out.at("s"));
  ASSERT_EQ(h.size(), expected_h.size());
  ASSERT_EQ(s.size(), expected_s.size());
  // WPT's tolerance for gru is 6 ULP (its expected values were not computed in double).
  for (size_t i = 0; i < h.size(); ++i) EXPECT_LE(ulp_distance(h[i], expected_h[i]), 6) << i;
  for (size_t i = 0; i < s.size(); ++i) EXPECT_LE(ulp_distance(s[i], expected_s[i]), 6) << i;
}

// H = I = B = 1, relu. iofg W = (1, 2, 0.5, 3), R = (1, 1, 1, 1), x = 1, h = 1, c = 2:
// i = 2, o = 3, f = 1.5, g = 4, c' = 1.5·2 + 2·4 = 11, h' = 33. Peepholes (i 1, o −1, f 0.5)
// on the previous c: i = 4, o = 1, f = 2.5, c' = 21, h' = 21. Biases b = (1,0,0,0),
// rb = (0,0,0,1): i = 3, g = 5, c' = 18, h' = 54.
TEST(RefLstmCell, LayoutsPeepholesAndBiases) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {1, 1}});
  MLOperand h = b.input("h", {kF32, {1, 1}});
  MLOperand cs = b.input("c", {kF32, {1, 1}});
  MLOperand w_iofg = constant_f32(b, {4, 1}, {1, 2, 0.5f, 3});
  MLOperand w_ifgo = constant_f32(b, {4, 1}, {1, 0.5f, 3, 2});
  MLOperand r = constant_f32(b, {4, 1}, {1, 1, 1, 1});
  MLOperand p = constant_f32(b, {3}, {1, -1, 0.5f});
  MLOperand bias = constant_f32(b, {4}, {1, 0, 0, 0});
  MLOperand rbias = constant_f32(b, {4}, {0, 0, 0, 1});
  auto plain = b.lstmCell(x, w_iofg, r, h, cs, 1, {.activations = {kRelu, kRelu, kRelu}});
  auto ifgo =
      b.lstmCell(x, w_ifgo, r, h, cs, 1,
                 {.layout = MLLstmWeightLayout::kIfgo, .activations = {kRelu, kRelu, kRelu}});
  auto peep = b.lstmCell(x, w_iofg, r, h, cs, 1,
                         {.peepholeWeight = p, .activations = {kRelu, kRelu, kRelu}});
  auto biased =
      b.lstmCell(x, w_iofg, r, h, cs, 1,
                 {.bias = bias, .recurrentBias = rbias, .activations = {kRelu, kRelu, kRelu}});
  MLGraph g = b.build({{"h0", plain[0]},
                       {"c0", plain[1]},
                       {"h1", ifgo[0]},
                       {"c1", ifgo[1]},
                       {"h2", peep[0]},
                       {"c2", peep[1]},
                       {"h3", biased[0]},
                       {"c3", biased[1]}});
  auto out = run_graph(
      c, g,
      {{"x", to_bytes<float>({1})}, {"h", to_bytes<float>({1})}, {"c", to_bytes<float>({2})}});
  EXPECT_EQ(as<float>(out.at("h0")), (std::vector<float>{33}));
  EXPECT_EQ(as<float>(out.at("c0")), (std::vector<float>{11}));
  EXPECT_EQ(as<float>(out.at("h1")), (std::vector<float>{33}));
  EXPECT_EQ(as<float>(out.at("c1")), (std::vector<float>{11}));
  EXPECT_EQ(as<float>(out.at("h2")), (std::vector<float>{21}));
  EXPECT_EQ(as<float>(out.at("c2")), (std::vector<float>{21}));
  EXPECT_EQ(as<float>(out.at("h3")), (std::vector<float>{54}));
  EXPECT_EQ(as<float>(out.at("c3")), (std::vector<float>{18}));
}

// Default activations with zero weights: i = f = o = 0.5, g = 0, so c' = c/2 and
// h' = 0.5·tanh(c/2).
TEST(RefLstmCell, DefaultActivations) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {1, 1}});
  MLOperand h = b.input("h", {kF32, {1, 2}});
  MLOperand cs = b.input("c", {kF32, {1, 2}});
  MLOperand w = constant_f32(b, {8, 1}, std::vector<float>(8, 0));
  MLOperand r = constant_f32(b, {8, 2}, std::vector<float>(16, 0));
  auto y = b.lstmCell(x, w, r, h, cs, 2);
  MLGraph g = b.build({{"h", y[0]}, {"c", y[1]}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes<float>({5})},
                        {"h", to_bytes<float>({7, 7})},
                        {"c", to_bytes<float>({1, -3})}});
  EXPECT_EQ(as<float>(out.at("c")), (std::vector<float>{0.5f, -1.5f}));
  EXPECT_EQ(as<float>(out.at("h")),
            (std::vector<float>{static_cast<float>(0.5 * std::tanh(0.5)),
                                static_cast<float>(0.5 * std::tanh(-1.5))}));
}

// steps = 2, x = (1, 2), iofg W = (1, 2, 0.5, 3), R = (0.5, 0, 0, 0), relu, zero initial states.
// Forward: t0 c = 3, h = 6; t1 i = 5, o = 4, f = 1, g = 6, c = 33, h = 132.
// Backward: t1 c = 12, h = 48; t0 i = 25, o = 2, f = 0.5, g = 3, c = 81, h = 162.
TEST(RefLstm, DirectionsAndTimeIndexedSequence) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF32, {2, 1, 1}});
  MLOperand w1 = constant_f32(b, {1, 4, 1}, {1, 2, 0.5f, 3});
  MLOperand r1 = constant_f32(b, {1, 4, 1}, {0.5f, 0, 0, 0});
  MLOperand w2 = constant_f32(b, {2, 4, 1}, {1, 2, 0.5f, 3, 1, 2, 0.5f, 3});
  MLOperand r2 = constant_f32(b, {2, 4, 1}, {0.5f, 0, 0, 0, 0.5f, 0, 0, 0});
  const MLLstmOptions relu{.activations = {kRelu, kRelu, kRelu}};
  MLLstmOptions fwd_opts = relu, bwd_opts = relu, both_opts = relu;
  fwd_opts.returnSequence = bwd_opts.returnSequence = both_opts.returnSequence = true;
  bwd_opts.direction = MLRecurrentNetworkDirection::kBackward;
  both_opts.direction = MLRecurrentNetworkDirection::kBoth;
  auto fwd = b.lstm(x, w1, r1, 2, 1, fwd_opts);
  auto bwd = b.lstm(x, w1, r1, 2, 1, bwd_opts);
  auto both = b.lstm(x, w2, r2, 2, 1, both_opts);
  auto last = b.lstm(x, w1, r1, 2, 1, relu);
  ASSERT_EQ(both.size(), 3u);
  ASSERT_EQ(last.size(), 2u);
  MLGraph g = b.build({{"fh", fwd[0]},
                       {"fc", fwd[1]},
                       {"fs", fwd[2]},
                       {"bh", bwd[0]},
                       {"bc", bwd[1]},
                       {"bs", bwd[2]},
                       {"dh", both[0]},
                       {"dc", both[1]},
                       {"ds", both[2]},
                       {"lh", last[0]}});
  auto out = run_graph(c, g, {{"x", to_bytes<float>({1, 2})}});
  EXPECT_EQ(as<float>(out.at("fh")), (std::vector<float>{132}));
  EXPECT_EQ(as<float>(out.at("fc")), (std::vector<float>{33}));
  EXPECT_EQ(as<float>(out.at("fs")), (std::vector<float>{6, 132}));
  EXPECT_EQ(as<float>(out.at("bh")), (std::vector<float>{162}));
  EXPECT_EQ(as<float>(out.at("bc")), (std::vector<float>{81}));
  EXPECT_EQ(as<float>(out.at("bs")), (std::vector<float>{162, 48}));
  EXPECT_EQ(as<float>(out.at("dh")), (std::vector<float>{132, 162}));
  EXPECT_EQ(as<float>(out.at("dc")), (std::vector<float>{33, 81}));
  EXPECT_EQ(as<float>(out.at("ds")), (std::vector<float>{6, 162, 132, 48}));
  EXPECT_EQ(as<float>(out.at("lh")), (std::vector<float>{132}));
}

// WPT lstm "float16 tensors steps=1 with options.bias, options.recurrentBias", plus initial
// states: B = 2, I = 2, H = 2, relu.
TEST(RefLstm, Float16WithInitialStates) {
  MLContext c = ref_context();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {kF16, {1, 2, 2}});
  MLOperand w =
      b.constant({kF16, {1, 8, 2}},
                 to_bytes(half_bits({1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2})));
  MLOperand r = b.constant({kF16, {1, 8, 2}}, to_bytes(half_bits(std::vector<float>(16, 0.1f))));
  MLOperand bias = b.constant({kF16, {1, 8}}, to_bytes(half_bits({1, 2, 1, 2, 1, 2, 1, 2})));
  MLOperand h0 = b.input("h0", {kF16, {1, 2, 2}});
  MLOperand c0 = b.input("c0", {kF16, {1, 2, 2}});
  auto wpt = b.lstm(x, w, r, 1, 2,
                    {.bias = bias, .recurrentBias = bias, .activations = {kRelu, kRelu, kRelu}});
  auto with_state = b.lstm(x, w, r, 1, 2,
                           {.bias = bias,
                            .recurrentBias = bias,
                            .initialHiddenState = h0,
                            .initialCellState = c0,
                            .activations = {kRelu, kRelu, kRelu}});
  MLGraph g = b.build({{"h", wpt[0]}, {"c", wpt[1]}, {"sh", with_state[0]}, {"sc", with_state[1]}});
  auto out = run_graph(c, g,
                       {{"x", to_bytes(half_bits({1, 2, 2, 1}))},
                        {"h0", to_bytes(half_bits({0, 0, 5, 5}))},
                        {"c0", to_bytes(half_bits({1, 0, 0, 0}))}});
  EXPECT_EQ(as<uint16_t>(out.at("h")), half_bits({1, 8, 27, 216}));
  EXPECT_EQ(as<uint16_t>(out.at("c")), half_bits({1, 4, 9, 36}));
  // Batch 0 has zero hidden state and c = (1, 0): every gate is (1, 2), so
  // c' = f·c + i·g = (1·1 + 1·1, 2·2) = (2, 4) and h' = o·c' = (2, 8). Batch 1 adds
  // R·h = 10·0.0999755859375 (0.1 in float16) to every gate: pre-activations a = 3.99975...
  // and b = 6.99975..., so c' = (a², b²) and h' = (a³, b³), which round to (16, 49) and
  // (64, 343) in float16 (the states are carried in double, rounded once).
  EXPECT_EQ(as<uint16_t>(out.at("sh")), half_bits({2, 8, 64, 343}));
  EXPECT_EQ(as<uint16_t>(out.at("sc")), half_bits({2, 4, 16, 49}));
}

}  // namespace
}  // namespace cppnn
