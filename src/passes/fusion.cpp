#include "src/passes/fusion.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

constexpr uint32_t kNoOp = UINT32_MAX;

// The elementwise activations a fused op may carry (Operation::activations).
bool is_activation(OpType t) {
  using enum OpType;
  switch (t) {
    case kRelu:
    case kClamp:
    case kSigmoid:
    case kTanh:
    case kLeakyRelu:
    case kElu:
    case kHardSigmoid:
    case kHardSwish:
    case kGelu:
    case kSoftplus:
    case kLinear:
      return true;
    default:
      return false;
  }
}

// The ops that take a bias and activations.
bool is_fusion_root(OpType t) {
  using enum OpType;
  return t == kConv2d || t == kConvTranspose2d || t == kMatmul || t == kGemm;
}

// One activation of a chain: operation `op`, and for x·f(x) the mul `gate` that multiplies the
// activation's result by its input (FusedActivation::times_input).
struct Link {
  uint32_t op = kNoOp;
  uint32_t gate = kNoOp;
};

// One fusion found in the source graph: `root` (a convolution or matrix product), optionally the
// add of constant `bias`, then `activations`; `end` is the operand the chain produces.
struct Chain {
  uint32_t root = kNoOp;
  uint32_t bias_add = kNoOp;
  OperandId bias;
  std::vector<Link> activations;
  OperandId end;
};

// Finds and rewrites the chains of one graph.
class FusionPass {
 public:
  FusionPass(const Graph& graph, const BackendDescriptor& backend)
      : g_(graph),
        backend_(backend),
        reader_(graph.operands.size(), kNoOp),
        pair_(graph.operands.size(), {kNoOp, kNoOp}) {
    for (OperandId in : graph.inputs) dynamic_ = dynamic_ || !graph.operand(in).dim_names.empty();
    const std::vector<uint32_t> uses = use_counts(graph);
    // An operand's only reader, when it has exactly one use and that use is an operation's; its
    // two readers, when it has exactly two uses by two operations.
    for (uint32_t i = 0; i < graph.operations.size(); ++i)
      for (OperandId in : graph.operations[i].inputs) {
        if (!in.valid()) continue;
        if (uses[in.value] == 1) reader_[in.value] = i;
        if (uses[in.value] != 2) continue;
        auto& [first, second] = pair_[in.value];
        if (first == kNoOp) {
          first = i;
        } else if (first != i) {
          second = i;
        }
      }
  }

  // The chains: at most one per root, none overlapping (each link is its producer's only use).
  std::vector<Chain> find() const {
    std::vector<Chain> chains;
    for (uint32_t i = 0; i < g_.operations.size(); ++i)
      if (std::optional<Chain> c = chain_at(i)) chains.push_back(*c);
    return chains;
  }

  // The graph with every chain fused; chains whose fused op would not run natively stay as they
  // were. `changed` is set when any chain was fused.
  Graph rewrite(const std::vector<Chain>& chains, bool* changed) {
    GraphRewriter rw(g_);
    std::vector<const Chain*> chain_of(g_.operations.size(), nullptr);
    for (const Chain& c : chains) chain_of[c.root] = &c;
    std::vector<bool> absorbed(g_.operations.size(), false);
    for (uint32_t i = 0; i < g_.operations.size(); ++i) {
      if (absorbed[i]) continue;
      const Chain* c = chain_of[i];
      if (!c || !apply(rw, *c)) {
        rw.copy(g_.operations[i]);
        continue;
      }
      if (c->bias_add != kNoOp) absorbed[c->bias_add] = true;
      for (const Link& a : c->activations) {
        absorbed[a.op] = true;
        if (a.gate != kNoOp) absorbed[a.gate] = true;
      }
      *changed = true;
    }
    return rw.finish();
  }

 private:
  // The operation reading `x`, when it is x's only use (and x no graph output).
  uint32_t only_reader(OperandId x) const { return reader_[x.value]; }

  std::optional<Chain> chain_at(uint32_t i) const {
    const Operation& op = g_.operations[i];
    if (!is_fusion_root(op.type) || op.outputs.size() != 1) return std::nullopt;
    Chain c;
    c.root = i;
    c.end = op.outputs[0];
    if (op.activations.empty()) find_bias(op, c);
    // Activations the backend runs natively, each its predecessor's only use (or, x·sigmoid(x),
    // its predecessor's two uses).
    for (;;) {
      if (std::optional<Link> silu = silu_at(c.end)) {
        c.activations.push_back(*silu);
        c.end = g_.operations[silu->gate].outputs[0];
        continue;
      }
      const uint32_t j = only_reader(c.end);
      if (j == kNoOp) break;
      const Operation& act = g_.operations[j];
      if (!is_activation(act.type) || !backend_.fits_natively(g_, act)) break;
      c.activations.push_back({j, kNoOp});
      c.end = act.outputs[0];
    }
    if (c.bias_add == kNoOp && c.activations.empty()) return std::nullopt;
    return c;
  }

  // mul(x, sigmoid(x)) (either operand order) on float32 when the backend takes it fused
  // (PassSelection::fuse_silu): x read by exactly the sigmoid and the mul, the sigmoid's result
  // by the mul only.
  std::optional<Link> silu_at(OperandId x) const {
    if (!backend_.passes.fuse_silu || g_.descriptor(x).dataType != MLOperandDataType::kFloat32)
      return std::nullopt;
    auto [s, m] = pair_[x.value];
    if (s == kNoOp || m == kNoOp) return std::nullopt;
    if (g_.operations[s].type != OpType::kSigmoid) std::swap(s, m);
    const Operation& sig = g_.operations[s];
    const Operation& mul = g_.operations[m];
    if (sig.type != OpType::kSigmoid || mul.type != OpType::kMul || !sig.activations.empty() ||
        !mul.activations.empty() || only_reader(sig.outputs[0]) != m)
      return std::nullopt;
    const OperandId gated = sig.outputs[0];
    if (!((mul.inputs[0] == x && mul.inputs[1] == gated) ||
          (mul.inputs[0] == gated && mul.inputs[1] == x)) ||
        g_.descriptor(mul.outputs[0]) != g_.descriptor(x) || !backend_.fits_natively(g_, sig) ||
        !backend_.fits_natively(g_, mul))
      return std::nullopt;
    return Link{s, m};
  }

  // An add of a constant right after `op` (its only use) that `op` can take as its bias: per
  // output channel for the convolutions, any shape that broadcasts to the result for gemm (as
  // `c`) and for a 2-D matmul when the backend runs gemm; for a matmul of a batched left operand
  // by a matrix (a transformer's projections), one value per output column (the product then
  // runs as a gemm of the batches' rows stacked, between two reshapes), unless the graph has
  // dynamic dimensions.
  void find_bias(const Operation& op, Chain& c) const {
    const uint32_t j = only_reader(c.end);
    if (j == kNoOp || g_.operations[j].type != OpType::kAdd) return;
    const Operation& add = g_.operations[j];
    const OperandId other = add.inputs[0] == c.end ? add.inputs[1] : add.inputs[0];
    if (other == c.end || g_.operand(other).kind != OperandKind::kConstant) return;
    const MLOperandDescriptor& out = g_.descriptor(c.end);
    if (g_.descriptor(add.outputs[0]) != out) return;  // the add broadcasts the result further
    const bool has_bias = op.inputs.size() > 2 && op.inputs[2].valid();
    bool fits = false;
    switch (op.type) {
      case OpType::kConv2d:
      case OpType::kConvTranspose2d:
        fits = !has_bias && channel_bias(g_.descriptor(other).shape, out.shape, conv_layout(op));
        break;
      case OpType::kGemm:
        fits = !has_bias;
        break;
      case OpType::kMatmul: {
        const size_t a_rank = g_.descriptor(op.inputs[0]).shape.size();
        const bool matrix_b = g_.descriptor(op.inputs[1]).shape.size() == 2;
        fits = matrix_b && backend_.is_native(OpType::kGemm) &&
               ((out.shape.size() == 2 && a_rank == 2) ||
                (a_rank > 2 && out.shape.size() == a_rank && !dynamic_ &&
                 backend_.is_native(OpType::kReshape) &&
                 column_bias(g_.descriptor(other).shape, out.shape)));
        break;
      }
      default:
        break;
    }
    if (!fits) return;
    c.bias_add = j;
    c.bias = other;
    c.end = add.outputs[0];
  }

  // Whether a constant of `shape` added to a result of `out` is one value per column: every
  // dimension 1 but the last, which is 1 or out's last.
  static bool column_bias(const std::vector<uint32_t>& shape, const std::vector<uint32_t>& out) {
    if (shape.size() > out.size()) return false;
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != 1 && (i + 1 != shape.size() || shape[i] != out.back())) return false;
    return true;
  }

  // The input (and output) layout of a convolution.
  static MLInputOperandLayout conv_layout(const Operation& op) {
    if (op.type == OpType::kConv2d) return attrs_of<OpType::kConv2d>(op.attrs).options.inputLayout;
    return attrs_of<OpType::kConvTranspose2d>(op.attrs).options.inputLayout;
  }
  // The output channels of a convolution.
  uint32_t output_channels(const Operation& op) const {
    const size_t axis = conv_layout(op) == MLInputOperandLayout::kNchw ? 1 : 3;
    return g_.descriptor(op.outputs[0]).shape[axis];
  }

  // Whether a constant of `shape` added to a convolution result of `out` is one value per output
  // channel (every other dimension 1 once aligned to rank 4).
  static bool channel_bias(const std::vector<uint32_t>& shape, const std::vector<uint32_t>& out,
                           MLInputOperandLayout layout) {
    if (shape.size() > 4) return false;
    const size_t channel_axis = layout == MLInputOperandLayout::kNchw ? 1 : 3;
    const size_t lead = 4 - shape.size();
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != 1 && (i + lead != channel_axis || shape[i] != out[channel_axis]))
        return false;
    return true;
  }

  // The bias constant as a convolution takes it: [Cout], one value per channel (copied to every
  // channel when the constant holds one value).
  MLOperand channel_bias_operand(GraphRewriter& rw, OperandId bias, uint32_t channels) const {
    const MLOperandDataType type = g_.descriptor(bias).dataType;
    const auto bytes = g_.constant(bias).bytes();
    std::vector<std::byte> data(bytes.begin(), bytes.end());
    if (element_count(g_.descriptor(bias).shape) == 1)
      for (uint32_t i = 1; i < channels; ++i) data.insert(data.end(), bytes.begin(), bytes.end());
    return rw.builder().constant({type, {channels}}, data);
  }

  // The root recorded with the chain's bias, or a null operand when the result does not run
  // natively (nothing recorded is then used).
  MLOperand with_bias(GraphRewriter& rw, const Operation& op, const Chain& c) const {
    MLGraphBuilder& b = rw.builder();
    const MLOperand x = rw.value(op.inputs[0]), w = rw.value(op.inputs[1]);
    MLOperand out;
    switch (op.type) {
      case OpType::kConv2d: {
        MLConv2dOptions o = attrs_of<OpType::kConv2d>(op.attrs).options;
        o.bias = channel_bias_operand(rw, c.bias, output_channels(op));
        out = b.conv2d(x, w, o);
        break;
      }
      case OpType::kConvTranspose2d: {
        MLConvTranspose2dOptions o = attrs_of<OpType::kConvTranspose2d>(op.attrs).options;
        o.bias = channel_bias_operand(rw, c.bias, output_channels(op));
        out = b.convTranspose2d(x, w, o);
        break;
      }
      case OpType::kGemm: {
        MLGemmOptions o = attrs_of<OpType::kGemm>(op.attrs).options;
        o.c = rw.value(c.bias);
        o.beta = 1.0;  // c was absent, so beta scaled nothing
        out = b.gemm(x, w, o);
        break;
      }
      default: {  // matmul(a, b) + c == gemm(a, b, {c})
        MLGemmOptions o;
        o.label = op.label();
        const std::vector<uint32_t>& a_shape = g_.descriptor(op.inputs[0]).shape;
        if (a_shape.size() == 2) {
          o.c = rw.value(c.bias);
          out = b.gemm(x, w, o);
          break;
        }
        // [..., M, K] as [rows, K]; apply() reshapes the result back.
        uint32_t rows = 1;
        for (size_t i = 0; i + 1 < a_shape.size(); ++i) rows *= a_shape[i];
        o.c = channel_bias_operand(rw, c.bias, g_.descriptor(op.outputs[0]).shape.back());
        out = b.gemm(b.reshape(x, {rows, a_shape.back()}), w, o);
        break;
      }
    }
    if (!backend_.fits_natively(rw.graph(), rw.graph().operations.back())) return MLOperand();
    return out;
  }

  // Records chain `c` as one operation; false when it cannot run natively fused.
  bool apply(GraphRewriter& rw, const Chain& c) const {
    const Operation& op = g_.operations[c.root];
    MLOperand out;
    if (c.bias_add != kNoOp) {
      out = with_bias(rw, op, c);
      if (out.is_null()) return false;
    } else {
      rw.copy(op);
      out = rw.value(op.outputs[0]);
    }
    Operation& fused = rw.operation(rw.operation_count() - 1);
    for (const Link& a : c.activations)
      fused.activations.push_back(
          {g_.operations[a.op].type, g_.operations[a.op].attrs, a.gate != kNoOp});
    const std::vector<uint32_t>& shape = g_.descriptor(op.outputs[0]).shape;
    if (out.shape() != shape) out = rw.builder().reshape(out, shape);  // a batched matmul's gemm
    rw.set(c.end, out);
    return true;
  }

  const Graph& g_;
  const BackendDescriptor& backend_;
  std::vector<uint32_t> reader_;
  std::vector<std::pair<uint32_t, uint32_t>> pair_;  // the two readers of a twice-used operand
  bool dynamic_ = false;  // an input has dynamic dimensions (docs/dynamic-dimensions.md)
};

}  // namespace

Graph fuse(const Graph& graph, const BackendDescriptor& backend, bool* changed) {
  *changed = false;
  FusionPass pass(graph, backend);
  const std::vector<Chain> chains = pass.find();
  if (chains.empty()) return graph;
  Graph out = pass.rewrite(chains, changed);
  return *changed ? out : graph;
}

}  // namespace cppnn::passes
