// Decompositions of the recurrent and quantization ops (src/passes/decompose/recurrent.cpp,
// quantization.cpp): each graph runs on a backend that has only the minimal core natively and is
// compared with the reference backend's kernels. gru/lstm/gruCell/lstmCell over directions,
// returnSequence, initial states, biases, peepholes, layouts, activations, resetAfter and
// float16; dequantizeLinear/quantizeLinear with block-wise, lower-rank and scalar scales, every
// non-packed quantized type, ties, saturation, NaN and infinities (exact).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/backends/selection.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::as;
using testing::half_bits;
using testing::ref_context;
using testing::run_graph;
using testing::to_bytes;

using DT = MLOperandDataType;
using Act = MLRecurrentNetworkActivation;
using Dir = MLRecurrentNetworkDirection;
using Bytes = std::vector<std::byte>;

// A backend with the minimal backend's native ops (plus relu and sigmoid, whose decompositions
// belong to the activations family) that runs the rest through the decompositions.
class CoreBackend final : public Backend {
 public:
  explicit CoreBackend(bool unpack_int4 = false)
      : d_(select_backend({.backend = "minimal"})->descriptor()) {
    d_.name = "h5-core";
    d_.passes.unpack_int4 = unpack_int4;
    for (OpType t : {OpType::kRelu, OpType::kSigmoid})
      d_.native.at(static_cast<size_t>(t)) = op_limits(t);
  }
  const BackendDescriptor& descriptor() const override { return d_; }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    for (const Operation& op : graph->operations)
      if (!d_.fits_natively(*graph, op))
        throw OperationError(std::string(op_name(op.type)) + " reached compile() non-native");
    return make_reference_plan(std::move(graph));
  }

 private:
  BackendDescriptor d_;
};

// Graph inputs by name (descriptor and bytes) and a function recording the graph on them.
struct Tensor {
  MLOperandDescriptor desc;
  Bytes bytes;
};
using Inputs = std::map<std::string, Tensor>;
using Operands = std::map<std::string, MLOperand>;
using Build = std::function<MLNamedOperands(MLGraphBuilder&, const Operands&)>;

// Records `build` on `context` over inputs, builds and runs it once.
std::map<std::string, Bytes> run_on(MLContext& context, const Inputs& inputs, const Build& build) {
  MLGraphBuilder b(context);
  Operands operands;
  std::map<std::string, Bytes> data;
  for (const auto& [name, t] : inputs) {
    operands.emplace(name, b.input(name, t.desc));
    data.emplace(name, t.bytes);
  }
  MLGraph g = b.build(build(b, operands));
  return run_graph(context, g, data);
}

// Runs `build` on the core backend (with the int4 unpacking pass when asked) and on the reference
// backend.
struct Results {
  std::map<std::string, Bytes> core, ref;
};
Results run_both(const Inputs& inputs, const Build& build, bool unpack_int4 = false) {
  ScopedTestBackend registered("h5-core", [unpack_int4](const MLContextOptions&) {
    return std::make_unique<CoreBackend>(unpack_int4);
  });
  MLContext core = MLContext::create({.backend = "h5-core"});
  MLContext ref = ref_context();
  return {run_on(core, inputs, build), run_on(ref, inputs, build)};
}

// Float outputs as floats.
std::vector<float> floats(const Bytes& b, DT type) {
  if (type == DT::kFloat32) return as<float>(b);
  std::vector<float> out;
  for (uint16_t h : as<uint16_t>(b)) out.push_back(half_bits_to_float(h));
  return out;
}

// Every float output of the core backend within tolerance of the reference's.
void expect_close(const Results& r, DT type) {
  const double tol = type == DT::kFloat32 ? 2e-6 : 2e-3;
  ASSERT_EQ(r.core.size(), r.ref.size());
  for (const auto& [name, bytes] : r.ref) {
    const std::vector<float> want = floats(bytes, type), got = floats(r.core.at(name), type);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << name << "[" << i << "]";
  }
}

// A tensor of `type` and `shape` with values uniform in [-1, 1] (deterministic per seed).
Tensor random_tensor(DT type, std::vector<uint32_t> shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  size_t n = 1;
  for (uint32_t d : shape) n *= d;
  std::vector<float> v(n);
  for (float& f : v) f = dist(gen);
  if (type == DT::kFloat32) return {{type, std::move(shape)}, to_bytes(v)};
  return {{type, std::move(shape)}, to_bytes(half_bits(v))};
}

// The outputs of a sequence-returning op named out0, out1, ...
MLNamedOperands named(const std::vector<MLOperand>& outs) {
  MLNamedOperands n;
  for (size_t i = 0; i < outs.size(); ++i) n.emplace("out" + std::to_string(i), outs[i]);
  return n;
}

// The optional operand `name` when inputs has it.
std::optional<MLOperand> maybe(const Operands& o, const std::string& name) {
  const auto it = o.find(name);
  return it == o.end() ? std::nullopt : std::optional<MLOperand>(it->second);
}

// One gru or lstm network configuration.
struct NetCase {
  DT type = DT::kFloat32;
  uint32_t steps = 2, batch = 2, input = 3, hidden = 2;
  Dir dir = Dir::kForward;
  bool sequence = false, bias = false, rbias = false, initial = false, peephole = false;
  bool reset_after = true;
  bool alt_layout = false;  // rzn / ifgo
  OptionalList<Act> acts;
};

// The number of directions of a case.
uint32_t dirs(const NetCase& k) {
  return k.dir == Dir::kBoth ? 2 : 1;
}

// The inputs of a network case with `gates` gate blocks (3 for gru, 4 for lstm).
Inputs net_inputs(const NetCase& k, uint32_t gates, bool cell_state) {
  const uint32_t d = dirs(k), g = gates * k.hidden;
  Inputs in{{"x", random_tensor(k.type, {k.steps, k.batch, k.input}, 1)},
            {"w", random_tensor(k.type, {d, g, k.input}, 2)},
            {"r", random_tensor(k.type, {d, g, k.hidden}, 3)}};
  if (k.bias) in.emplace("b", random_tensor(k.type, {d, g}, 4));
  if (k.rbias) in.emplace("rb", random_tensor(k.type, {d, g}, 5));
  if (k.peephole) in.emplace("p", random_tensor(k.type, {d, 3 * k.hidden}, 6));
  if (k.initial) in.emplace("h0", random_tensor(k.type, {d, k.batch, k.hidden}, 7));
  if (k.initial && cell_state) in.emplace("c0", random_tensor(k.type, {d, k.batch, k.hidden}, 8));
  return in;
}

// gru of case k: the core backend's outputs against the reference's.
void check_gru(const NetCase& k) {
  const Results r = run_both(net_inputs(k, 3, false), [&](MLGraphBuilder& b, const Operands& o) {
    MLGruOptions opts{.bias = maybe(o, "b"),
                      .recurrentBias = maybe(o, "rb"),
                      .initialHiddenState = maybe(o, "h0"),
                      .resetAfter = k.reset_after,
                      .returnSequence = k.sequence,
                      .direction = k.dir,
                      .layout = k.alt_layout ? MLGruWeightLayout::kRzn : MLGruWeightLayout::kZrn,
                      .activations = k.acts};
    return named(b.gru(o.at("x"), o.at("w"), o.at("r"), k.steps, k.hidden, opts));
  });
  EXPECT_EQ(r.ref.size(), k.sequence ? 2u : 1u);
  expect_close(r, k.type);
}

// lstm of case k: the core backend's outputs against the reference's.
void check_lstm(const NetCase& k) {
  const Results r = run_both(net_inputs(k, 4, true), [&](MLGraphBuilder& b, const Operands& o) {
    MLLstmOptions opts{
        .bias = maybe(o, "b"),
        .recurrentBias = maybe(o, "rb"),
        .peepholeWeight = maybe(o, "p"),
        .initialHiddenState = maybe(o, "h0"),
        .initialCellState = maybe(o, "c0"),
        .returnSequence = k.sequence,
        .direction = k.dir,
        .layout = k.alt_layout ? MLLstmWeightLayout::kIfgo : MLLstmWeightLayout::kIofg,
        .activations = k.acts};
    return named(b.lstm(o.at("x"), o.at("w"), o.at("r"), k.steps, k.hidden, opts));
  });
  EXPECT_EQ(r.ref.size(), k.sequence ? 3u : 2u);
  expect_close(r, k.type);
}

TEST(DecomposeGru, DirectionsSequencesAndDefaults) {
  for (Dir dir : {Dir::kForward, Dir::kBackward, Dir::kBoth}) {
    for (bool sequence : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(dir)) + (sequence ? " seq" : ""));
      check_gru({.steps = 3, .dir = dir, .sequence = sequence});
    }
  }
}

TEST(DecomposeGru, OptionCombinations) {
  check_gru({.dir = Dir::kBoth, .sequence = true, .bias = true, .rbias = true, .initial = true});
  check_gru({.bias = true, .reset_after = false});
  check_gru({.rbias = true, .initial = true, .reset_after = false, .alt_layout = true});
  check_gru({.dir = Dir::kBackward,
             .bias = true,
             .rbias = true,
             .alt_layout = true,
             .acts = {Act::kRelu, Act::kTanh}});
  check_gru({.steps = 1,
             .batch = 1,
             .input = 1,
             .hidden = 1,
             .bias = true,
             .acts = {Act::kTanh, Act::kRelu}});
}

TEST(DecomposeGru, Float16ComputesInFloat32) {
  check_gru({.type = DT::kFloat16,
             .dir = Dir::kBoth,
             .sequence = true,
             .bias = true,
             .rbias = true,
             .initial = true});
  check_gru({.type = DT::kFloat16, .steps = 4, .reset_after = false, .alt_layout = true});
}

TEST(DecomposeLstm, DirectionsSequencesAndDefaults) {
  for (Dir dir : {Dir::kForward, Dir::kBackward, Dir::kBoth}) {
    for (bool sequence : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(dir)) + (sequence ? " seq" : ""));
      check_lstm({.steps = 3, .dir = dir, .sequence = sequence});
    }
  }
}

TEST(DecomposeLstm, OptionCombinations) {
  check_lstm({.dir = Dir::kBoth,
              .sequence = true,
              .bias = true,
              .rbias = true,
              .initial = true,
              .peephole = true});
  check_lstm({.peephole = true, .alt_layout = true});
  check_lstm({.bias = true,
              .initial = true,
              .alt_layout = true,
              .acts = {Act::kRelu, Act::kSigmoid, Act::kTanh}});
  check_lstm({.dir = Dir::kBackward,
              .rbias = true,
              .peephole = true,
              .acts = {Act::kTanh, Act::kRelu, Act::kRelu}});
}

TEST(DecomposeLstm, Float16ComputesInFloat32) {
  check_lstm({.type = DT::kFloat16,
              .steps = 4,
              .dir = Dir::kBoth,
              .sequence = true,
              .bias = true,
              .rbias = true,
              .initial = true,
              .peephole = true});
}

// The cells: one step on [B, I] with states [B, H].
Inputs cell_inputs(const NetCase& k, uint32_t gates, bool cell_state) {
  const uint32_t g = gates * k.hidden;
  Inputs in{{"x", random_tensor(k.type, {k.batch, k.input}, 11)},
            {"w", random_tensor(k.type, {g, k.input}, 12)},
            {"r", random_tensor(k.type, {g, k.hidden}, 13)},
            {"h", random_tensor(k.type, {k.batch, k.hidden}, 14)}};
  if (cell_state) in.emplace("c", random_tensor(k.type, {k.batch, k.hidden}, 15));
  if (k.bias) in.emplace("b", random_tensor(k.type, {g}, 16));
  if (k.rbias) in.emplace("rb", random_tensor(k.type, {g}, 17));
  if (k.peephole) in.emplace("p", random_tensor(k.type, {3 * k.hidden}, 18));
  return in;
}

// gruCell of case k (cell shapes) against the reference.
void check_gru_cell(const NetCase& k) {
  const Results r = run_both(cell_inputs(k, 3, false), [&](MLGraphBuilder& b, const Operands& o) {
    MLGruCellOptions opts{
        .bias = maybe(o, "b"),
        .recurrentBias = maybe(o, "rb"),
        .resetAfter = k.reset_after,
        .layout = k.alt_layout ? MLGruWeightLayout::kRzn : MLGruWeightLayout::kZrn,
        .activations = k.acts};
    return MLNamedOperands{
        {"out0", b.gruCell(o.at("x"), o.at("w"), o.at("r"), o.at("h"), k.hidden, opts)}};
  });
  expect_close(r, k.type);
}

// lstmCell of case k (cell shapes) against the reference.
void check_lstm_cell(const NetCase& k) {
  const Results r = run_both(cell_inputs(k, 4, true), [&](MLGraphBuilder& b, const Operands& o) {
    MLLstmCellOptions opts{
        .bias = maybe(o, "b"),
        .recurrentBias = maybe(o, "rb"),
        .peepholeWeight = maybe(o, "p"),
        .layout = k.alt_layout ? MLLstmWeightLayout::kIfgo : MLLstmWeightLayout::kIofg,
        .activations = k.acts};
    return named(b.lstmCell(o.at("x"), o.at("w"), o.at("r"), o.at("h"), o.at("c"), k.hidden, opts));
  });
  expect_close(r, k.type);
}

TEST(DecomposeGruCell, Options) {
  check_gru_cell({});
  check_gru_cell({.bias = true, .rbias = true, .reset_after = false});
  check_gru_cell({.batch = 3,
                  .hidden = 4,
                  .rbias = true,
                  .alt_layout = true,
                  .acts = {Act::kRelu, Act::kRelu}});
  check_gru_cell({.type = DT::kFloat16, .bias = true, .rbias = true});
}

TEST(DecomposeLstmCell, Options) {
  check_lstm_cell({});
  check_lstm_cell({.bias = true, .rbias = true, .peephole = true});
  check_lstm_cell({.batch = 3,
                   .hidden = 4,
                   .peephole = true,
                   .alt_layout = true,
                   .acts = {Act::kRelu, Act::kTanh, Act::kSigmoid}});
  check_lstm_cell({.type = DT::kFloat16, .bias = true, .peephole = true});
}

// --- Quantization: exact, on the minimal backend itself (its core plus the elementwise
// decompositions). ---

// Bytes of `values` cast to `type` (the constant cast rules).
Bytes bytes_of(DT type, const std::vector<double>& values) {
  Bytes out;
  for (double v : values) {
    switch (type) {
      case DT::kFloat32: {
        const Bytes b = to_bytes<float>({static_cast<float>(v)});
        out.insert(out.end(), b.begin(), b.end());
        break;
      }
      case DT::kFloat16: {
        const Bytes b = to_bytes(half_bits({static_cast<float>(v)}));
        out.insert(out.end(), b.begin(), b.end());
        break;
      }
      case DT::kInt8:
        out.push_back(static_cast<std::byte>(static_cast<int8_t>(v)));
        break;
      case DT::kUint8:
        out.push_back(static_cast<std::byte>(static_cast<uint8_t>(v)));
        break;
      case DT::kInt32: {
        const Bytes b = to_bytes<int32_t>({static_cast<int32_t>(v)});
        out.insert(out.end(), b.begin(), b.end());
        break;
      }
      default: {
        const Bytes b = to_bytes<uint32_t>({static_cast<uint32_t>(v)});
        out.insert(out.end(), b.begin(), b.end());
        break;
      }
    }
  }
  return out;
}

// Runs `build` on the minimal and the reference backends and expects identical bytes.
void expect_identical(const Inputs& inputs, const Build& build) {
  MLContext minimal = MLContext::create({.backend = "minimal"});
  MLContext ref = ref_context();
  const auto got = run_on(minimal, inputs, build), want = run_on(ref, inputs, build);
  for (const auto& [name, bytes] : want) EXPECT_EQ(got.at(name), bytes) << name;
}

// A quantization case: shapes, input values, scale and zeroPoint values.
struct QuantCase {
  std::vector<uint32_t> input_shape, scale_shape;
  std::vector<double> input, scale, zero_point;
};

// dequantizeLinear of q with `data` values and a `scale`-typed scale: bit-identical.
void check_dequantize(const QuantCase& q, DT data, DT scale) {
  SCOPED_TRACE(std::string(data_type_name(data)) + " " + std::string(data_type_name(scale)));
  const Inputs in{{"x", {{data, q.input_shape}, bytes_of(data, q.input)}},
                  {"s", {{scale, q.scale_shape}, bytes_of(scale, q.scale)}},
                  {"z", {{data, q.scale_shape}, bytes_of(data, q.zero_point)}}};
  expect_identical(in, [](MLGraphBuilder& b, const Operands& o) {
    return MLNamedOperands{{"y", b.dequantizeLinear(o.at("x"), o.at("s"), o.at("z"))}};
  });
}

// quantizeLinear of q with `data` input and a `zero_point`-typed zeroPoint: bit-identical.
void check_quantize(const QuantCase& q, DT data, DT zero_point) {
  SCOPED_TRACE(std::string(data_type_name(data)) + " " + std::string(data_type_name(zero_point)));
  const Inputs in{{"x", {{data, q.input_shape}, bytes_of(data, q.input)}},
                  {"s", {{data, q.scale_shape}, bytes_of(data, q.scale)}},
                  {"z", {{zero_point, q.scale_shape}, bytes_of(zero_point, q.zero_point)}}};
  expect_identical(in, [](MLGraphBuilder& b, const Operands& o) {
    return MLNamedOperands{{"y", b.quantizeLinear(o.at("x"), o.at("s"), o.at("z"))}};
  });
}

// A [4, 6] input with a [2, 3] scale: blocks of 2 x 2.
QuantCase blockwise_case() {
  QuantCase q{{4, 6}, {2, 3}, {}, {0.5, -0.25, 2, 0.125, 3, -1}, {1, 2, 3, 4, 5, 6}};
  for (int i = 0; i < 24; ++i) q.input.push_back(i * 5 % 37);
  return q;
}

TEST(DecomposeDequantizeLinear, BlockwiseLowerRankAndScalarScales) {
  for (DT data : {DT::kInt8, DT::kUint8, DT::kInt32, DT::kUint32}) {
    for (DT scale : {DT::kFloat32, DT::kFloat16}) {
      check_dequantize(blockwise_case(), data, scale);
      check_dequantize(
          {{2, 3, 4},
           {4},
           {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24},
           {0.1, 0.2, 0.3, 0.7},
           {0, 1, 2, 3}},
          data, scale);
      check_dequantize({{3}, {}, {7, 9, 100}, {0.3}, {5}}, data, scale);
      check_dequantize({{6}, {3}, {1, 2, 3, 4, 5, 6}, {1.5, 2.5, 0.01}, {2, 4, 6}}, data, scale);
    }
  }
}

TEST(DecomposeDequantizeLinear, ExtremeValuesSubtractExactly) {
  check_dequantize({{4}, {4}, {-128, 127, -128, 127}, {1, 0.5, 3, 1}, {127, -128, -1, 0}},
                   DT::kInt8, DT::kFloat32);
  check_dequantize(
      {{3}, {3}, {2147483647, -2147483648.0, 5}, {1, 0.25, 1e-3}, {-2147483648.0, 2147483647, -7}},
      DT::kInt32, DT::kFloat32);
  check_dequantize({{2}, {2}, {4294967295.0, 0}, {1, 2}, {0, 4294967295.0}}, DT::kUint32,
                   DT::kFloat32);
}

TEST(DecomposeQuantizeLinear, TiesSaturationNanAndInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const QuantCase ties{
      {12}, {}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.9, -2.9, 1e9, -1e9, inf, -inf}, {1}, {0}};
  for (DT data : {DT::kFloat32, DT::kFloat16})
    for (DT zp : {DT::kInt8, DT::kUint8, DT::kInt32, DT::kUint32}) check_quantize(ties, data, zp);
  check_quantize({{4}, {4}, {nan, 3, -7, 1e30}, {1, -2, 0.5, 1e-30}, {3, 1, 200, 7}}, DT::kFloat32,
                 DT::kUint8);
  check_quantize({{4},
                  {4},
                  {3e9, -3e9, 100, -100},
                  {1, 1, 2, 2},
                  {2147483000.0, -2147483000.0, 2147483600.0, 0}},
                 DT::kFloat32, DT::kInt32);
  check_quantize({{3}, {3}, {1e10, -5, 7.5}, {1, 1, 1}, {4294967000.0, 3, 4294967290.0}},
                 DT::kFloat32, DT::kUint32);
}

TEST(DecomposeQuantizeLinear, BlockwiseAndLowerRankScales) {
  QuantCase q = blockwise_case();
  for (double& v : q.input) v = v / 3 - 5;
  for (DT data : {DT::kFloat32, DT::kFloat16}) {
    check_quantize(q, data, DT::kInt8);
    check_quantize(q, data, DT::kUint8);
    check_quantize({{2, 2, 2}, {2}, {-3, -1, 0.2, 0.7, 1.5, 4, 9, 200}, {0.5, 2}, {1, 200}}, data,
                   DT::kUint8);
  }
}

// int4/uint4 data reaches the decomposition only through the int4 unpacking pass, which turns
// packed constants into int8/uint8 ones first: the result is the reference kernel's (the
// context's limits admit int4/uint4 for a backend with passes.unpack_int4).
TEST(DecomposeDequantizeLinear, Int4ConstantsThroughTheUnpackingPass) {
  const Inputs in{{"s", {{DT::kFloat32, {5}}, bytes_of(DT::kFloat32, {0.5, 1, 2, -1, 0.25})}}};
  for (DT packed : {DT::kInt4, DT::kUint4}) {
    SCOPED_TRACE(std::string(data_type_name(packed)));
    // Five nibbles, the low one first: int4 {-8, -1, 0, 3, 7} / uint4 {8, 15, 0, 3, 7}.
    const Bytes data = to_bytes<uint8_t>({0xF8, 0x30, 0x07});
    const Bytes zero_point = to_bytes<uint8_t>({0x21, 0x03, 0x0E});
    const Results r = run_both(
        in,
        [&](MLGraphBuilder& b, const Operands& o) {
          const MLOperand x = b.constant({packed, {5}}, data);
          const MLOperand z = b.constant({packed, {5}}, zero_point);
          return MLNamedOperands{{"y", b.dequantizeLinear(x, o.at("s"), z)}};
        },
        true);
    EXPECT_EQ(r.core.at("y"), r.ref.at("y"));
  }
}

}  // namespace
}  // namespace cppnn
