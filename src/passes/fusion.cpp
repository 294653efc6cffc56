#include "src/passes/fusion.h"

#include <cstdint>
#include <optional>
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

// One fusion found in the source graph: `root` (a convolution or matrix product), optionally the
// add of constant `bias`, then `activations`; `end` is the operand the chain produces.
struct Chain {
  uint32_t root = kNoOp;
  uint32_t bias_add = kNoOp;
  OperandId bias;
  std::vector<uint32_t> activations;
  OperandId end;
};

// Finds and rewrites the chains of one graph.
class FusionPass {
 public:
  FusionPass(const Graph& graph, const BackendDescriptor& backend)
      : g_(graph), backend_(backend), reader_(graph.operands.size(), kNoOp) {
    const std::vector<uint32_t> uses = use_counts(graph);
    // An operand's only reader, when it has exactly one use and that use is an operation's.
    for (uint32_t i = 0; i < graph.operations.size(); ++i)
      for (OperandId in : graph.operations[i].inputs)
        if (in.valid() && uses[in.value] == 1) reader_[in.value] = i;
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
      for (uint32_t a : c->activations) absorbed[a] = true;
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
    // Activations the backend runs natively, each its predecessor's only use.
    for (uint32_t j = only_reader(c.end); j != kNoOp; j = only_reader(c.end)) {
      const Operation& act = g_.operations[j];
      if (!is_activation(act.type) || !backend_.fits_natively(g_, act)) break;
      c.activations.push_back(j);
      c.end = act.outputs[0];
    }
    if (c.bias_add == kNoOp && c.activations.empty()) return std::nullopt;
    return c;
  }

  // An add of a constant right after `op` (its only use) that `op` can take as its bias: per
  // output channel for the convolutions, any shape that broadcasts to the result for gemm (as
  // `c`) and for a 2-D matmul when the backend runs gemm.
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
      case OpType::kMatmul:
        fits = out.shape.size() == 2 && g_.descriptor(op.inputs[0]).shape.size() == 2 &&
               g_.descriptor(op.inputs[1]).shape.size() == 2 && backend_.is_native(OpType::kGemm);
        break;
      default:
        break;
    }
    if (!fits) return;
    c.bias_add = j;
    c.bias = other;
    c.end = add.outputs[0];
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
        o.c = rw.value(c.bias);
        o.label = op.label();
        out = b.gemm(x, w, o);
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
    for (uint32_t a : c.activations)
      fused.activations.push_back({g_.operations[a].type, g_.operations[a].attrs});
    rw.set(c.end, out);
    return true;
  }

  const Graph& g_;
  const BackendDescriptor& backend_;
  std::vector<uint32_t> reader_;
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
