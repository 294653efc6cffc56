#include "src/passes/int4_unpacking.h"

#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "cppnn/int4.h"
#include "src/api/states.h"
#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

using DT = MLOperandDataType;

// The 8-bit type an int4/uint4 value is unpacked to.
DT wider(DT t) {
  return t == DT::kInt4 ? DT::kInt8 : DT::kUint8;
}

// Whether some native role of `backend` lists `type` (then it keeps the packed form).
bool lists_natively(const BackendDescriptor& backend, DT type) {
  for (const auto& limits : backend.native) {
    if (!limits) continue;
    for (const RoleLimits& r : limits->inputs)
      if (mask_has(r.allowed, type)) return true;
    for (const RoleLimits& r : limits->outputs)
      if (mask_has(r.allowed, type)) return true;
  }
  return false;
}

// The `count` values of packed bytes of `type` (int4/uint4), one byte each (include/cppnn/int4.h).
std::vector<std::byte> unpacked_bytes(DT type, std::span<const std::byte> packed, size_t count) {
  std::vector<std::byte> out(count);
  if (type == DT::kInt4) {
    const std::vector<int8_t> v = cppnn::unpack_int4(packed, count);
    std::memcpy(out.data(), v.data(), count);
  } else {
    const std::vector<uint8_t> v = cppnn::unpack_uint4(packed, count);
    std::memcpy(out.data(), v.data(), count);
  }
  return out;
}

// The rewrite: the int8/uint8 stand-ins of the packed operands (constants unpacked once,
// quantizeLinear results computed in 8 bits) and the operations re-recorded on them.
class Unpacker {
 public:
  Unpacker(const Graph& graph, DataTypeMask packed)
      : rw_(graph), packed_(packed), wide_(graph.operands.size()) {}

  // Whether `id` is an operand of a type this pass unpacks.
  bool packed(OperandId id) const {
    return id.valid() && mask_has(packed_, rw_.source().descriptor(id).dataType);
  }

  // Copies `op` or re-records it on the stand-ins of its packed operands.
  void convert(const Operation& op) {
    if (op.type == OpType::kDequantizeLinear && packed(op.inputs.at(0)))
      dequantize(op);
    else if (op.type == OpType::kQuantizeLinear && packed(op.inputs.at(2)))
      quantize(op);
    else
      rw_.copy(op);
  }

  bool changed() const { return changed_; }
  Graph finish() { return rw_.finish(); }

 private:
  // The int8/uint8 stand-in of packed operand `id`: a constant unpacked on first use, the 8-bit
  // result recorded for its operation, nullopt for a graph input (unpacked at dispatch only).
  std::optional<MLOperand> wide(OperandId id) {
    std::optional<MLOperand>& w = wide_.at(id.value);
    const OperandInfo& info = rw_.source().operand(id);
    if (w || info.kind != OperandKind::kConstant) return w;
    const std::span<const std::byte> bytes = rw_.source().constant(id).bytes();
    const size_t count = element_count(info.descriptor.shape);
    const MLOperandDescriptor desc{wider(info.descriptor.dataType), info.descriptor.shape};
    w = rw_.builder().constant(desc, unpacked_bytes(info.descriptor.dataType, bytes, count));
    // The name and a scalar fill still describe the value; a weight ref names the packed bytes.
    OperandInfo& added = rw_.builder().state()->graph.operands.at(w->id().value);
    added.name = info.name;
    added.scalar_fill = info.scalar_fill;
    return w;
  }

  // dequantizeLinear of a packed input and zeroPoint (same type): the same op on their stand-ins
  // (dequantizeLinear accepts int8/uint8), with the same float output.
  void dequantize(const Operation& op) {
    const std::optional<MLOperand> x = wide(op.inputs[0]), zero_point = wide(op.inputs[2]);
    if (!x || !zero_point) return rw_.copy(op);
    const MLOperand ops[] = {*x, rw_.value(op.inputs[1]), *zero_point};
    rw_.set(op.outputs.at(0), rw_.builder().record(op.type, ops, op.attrs).at(0));
    changed_ = true;
  }

  // quantizeLinear to a packed zeroPoint type: the op is kept for the packed result (removed if
  // unread), and its 8-bit stand-in is quantizeLinear to int8/uint8 clamped to the 4-bit range
  // (saturating to 8 bits first gives the same values), for the dequantizeLinear reading it.
  void quantize(const Operation& op) {
    rw_.copy(op);
    const std::optional<MLOperand> zero_point = wide(op.inputs[2]);
    if (!zero_point) return;
    const MLOperand ops[] = {rw_.value(op.inputs[0]), rw_.value(op.inputs[1]), *zero_point};
    const MLOperand q = rw_.builder().record(op.type, ops, op.attrs).at(0);
    const bool is_signed = rw_.source().descriptor(op.inputs[2]).dataType == DT::kInt4;
    wide_.at(op.outputs.at(0).value) = rw_.builder().clamp(
        q, {.minValue = is_signed ? -8 : 0, .maxValue = is_signed ? 7 : 15, .label = op.label()});
    changed_ = true;
  }

  GraphRewriter rw_;
  DataTypeMask packed_;
  std::vector<std::optional<MLOperand>> wide_;
  bool changed_ = false;
};

}  // namespace

Graph unpack_int4(const Graph& graph, const BackendDescriptor& backend, bool* changed) {
  *changed = false;
  DataTypeMask packed = 0;
  for (DT t : {DT::kInt4, DT::kUint4})
    if (!lists_natively(backend, t)) packed |= mask_of(t);
  bool any = false;
  for (const OperandInfo& info : graph.operands)
    any = any || mask_has(packed, info.descriptor.dataType);
  if (!any) return graph;
  Unpacker u(graph, packed);
  for (const Operation& op : graph.operations) u.convert(op);
  if (!u.changed()) return graph;
  *changed = true;
  return u.finish();
}

}  // namespace cppnn::passes
