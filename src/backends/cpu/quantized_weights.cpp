#include "src/backends/cpu/quantized_weights.h"

#include <algorithm>

namespace cppnn::cpu {
namespace {

using T = MLOperandDataType;
using Dims = std::vector<uint32_t>;

bool is_quantized_type(T t) {
  return t == T::kInt4 || t == T::kUint4 || t == T::kInt8 || t == T::kUint8;
}

bool is_constant(const Graph& g, OperandId id) {
  return id.valid() && g.operand(id).kind == OperandKind::kConstant;
}

// The operation producing `id`, or nullptr for an input or a constant.
const Operation* producer(const Graph& g, OperandId id) {
  const OperandInfo& info = g.operand(id);
  return info.kind == OperandKind::kOperationResult ? &g.operations[info.producer] : nullptr;
}

// True when every byte of the constant is zero (a fill of 0 is never expanded).
bool all_zero(const ConstantData& c) {
  std::span<const std::byte> bytes = c.fill_element();
  if (bytes.empty()) bytes = c.bytes();
  return std::all_of(bytes.begin(), bytes.end(), [](std::byte b) { return b == std::byte{0}; });
}

// The weight pieces of a gemm's B operand when it is a quantized weight (see the header).
struct QuantizedB {
  OperandId q, scale, offset = kNoOperand;
};

std::optional<QuantizedB> quantized_b(const Graph& g, OperandId b) {
  const Operation* reshape = producer(g, b);
  if (!reshape || reshape->type != OpType::kReshape) return std::nullopt;
  const Dims& bs = g.descriptor(b).shape;
  if (bs.size() != 2) return std::nullopt;
  OperandId x = reshape->inputs[0];
  QuantizedB r;
  const Operation* op = producer(g, x);
  if (op && op->type == OpType::kAdd) {
    const OperandId lhs = op->inputs[0], rhs = op->inputs[1];
    if (is_constant(g, rhs) && !is_constant(g, lhs)) {
      r.offset = rhs;
      x = lhs;
    } else if (is_constant(g, lhs) && !is_constant(g, rhs)) {
      r.offset = lhs;
      x = rhs;
    } else {
      return std::nullopt;
    }
    op = producer(g, x);
  }
  if (!op || op->type != OpType::kDequantizeLinear) return std::nullopt;
  r.q = op->inputs[0];
  r.scale = op->inputs[1];
  const OperandId zero = op->inputs[2];
  if (!is_constant(g, r.q) || !is_constant(g, r.scale) || !is_constant(g, zero) ||
      !all_zero(g.constant(zero)))
    return std::nullopt;
  const MLOperandDescriptor& q = g.descriptor(r.q);
  const MLOperandDescriptor& s = g.descriptor(r.scale);
  if (!is_quantized_type(q.dataType) || q.shape.size() != 3 || s.dataType != T::kFloat32 ||
      s.shape != Dims{q.shape[0], q.shape[1], 1} || g.descriptor(x).dataType != T::kFloat32)
    return std::nullopt;
  if (r.offset.valid() && g.descriptor(r.offset) != s) return std::nullopt;
  if (bs[0] != q.shape[0] || uint64_t{bs[1]} != uint64_t{q.shape[1]} * q.shape[2])
    return std::nullopt;
  return r;
}

}  // namespace

bool is_quantized_gemm(const Graph& graph, const Operation& op) {
  return op.type == OpType::kGemm && op.inputs.size() >= 4 &&
         is_quantized_type(graph.descriptor(op.inputs[1]).dataType);
}

Graph read_quantized_weights_in_gemm(const Graph& graph, bool* changed) {
  *changed = false;
  Graph g = graph;
  for (Operation& op : g.operations) {
    if (op.type != OpType::kGemm) continue;
    const auto& o = attrs_of<OpType::kGemm>(op.attrs).options;
    if (o.aTranspose || !o.bTranspose) continue;
    if (g.descriptor(op.inputs[0]).dataType != T::kFloat32) continue;
    const std::optional<QuantizedB> qb = quantized_b(g, op.inputs[1]);
    if (!qb) continue;
    const OperandId c = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
    op.inputs = {op.inputs[0], qb->q, c, qb->scale, qb->offset};
    *changed = true;
  }
  if (!*changed) return graph;
  // The dequantization ops no other operation reads go with the pruning (inputs are kept: the
  // bindings name them all).
  return g.pruned(true);
}

}  // namespace cppnn::cpu
