// Graph model: constant storage, pruning to what the outputs reach, and the content hash.
#include "cppnn/graph_model.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "src/graph/attr_hash.h"

namespace cppnn {

ConstantData ConstantData::copy_of(std::span<const std::byte> bytes) {
  return owned(std::vector<std::byte>(bytes.begin(), bytes.end()));
}

ConstantData ConstantData::owned(std::vector<std::byte> bytes) {
  auto holder = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  ConstantData c;
  c.data_ = holder->data();
  c.size_ = holder->size();
  c.owner_ = std::move(holder);
  return c;
}

ConstantData ConstantData::view(std::shared_ptr<const void> keep_alive,
                                std::span<const std::byte> bytes) {
  ConstantData c;
  c.owner_ = std::move(keep_alive);
  c.data_ = bytes.data();
  c.size_ = bytes.size();
  return c;
}

ConstantData ConstantData::mapped_view(std::shared_ptr<const void> keep_alive,
                                       std::span<const std::byte> bytes, PageRelease release) {
  ConstantData c = view(std::move(keep_alive), bytes);
  c.release_ = release;
  return c;
}

// A fill's expansion, made once on first use (thread-safe).
struct ConstantData::Fill {
  std::vector<std::byte> element;
  std::optional<std::byte> last_byte;
  std::once_flag once;
  std::vector<std::byte> expanded;
};

ConstantData ConstantData::fill(size_t size, std::vector<std::byte> element,
                                std::optional<std::byte> last_byte) {
  ConstantData c;
  c.fill_ = std::make_shared<Fill>();
  c.fill_->element = std::move(element);
  c.fill_->last_byte = last_byte;
  c.size_ = size;
  return c;
}

std::span<const std::byte> ConstantData::bytes() const {
  if (!fill_) return {data_, size_};
  Fill& f = *fill_;
  std::call_once(f.once, [&] {
    f.expanded.resize(size_);
    const size_t n = f.element.size();
    if (n == 0) return;
    for (size_t i = 0; i + n <= size_; i += n)
      std::memcpy(f.expanded.data() + i, f.element.data(), n);
    if (f.last_byte && size_ > 0) f.expanded.back() = *f.last_byte;
  });
  return {f.expanded.data(), f.expanded.size()};
}

std::span<const std::byte> ConstantData::fill_element() const {
  if (!fill_) return {};
  return {fill_->element.data(), fill_->element.size()};
}

const ConstantData& Graph::constant(OperandId id) const {
  const OperandInfo& info = operand(id);
  if (info.kind != OperandKind::kConstant) throw std::logic_error("operand is not a constant");
  return constants.at(info.producer);
}

Graph Graph::pruned(bool keep_unused_inputs) const {
  // Mark backwards from the outputs; operations are in topological order.
  std::vector<bool> live_operand(operands.size(), false);
  std::vector<bool> live_op(operations.size(), false);
  for (const auto& [name, id] : outputs) live_operand[id.value] = true;
  if (keep_unused_inputs)
    for (OperandId in : inputs) live_operand[in.value] = true;
  for (size_t i = operations.size(); i-- > 0;) {
    const Operation& op = operations[i];
    bool needed = false;
    for (OperandId o : op.outputs) needed = needed || live_operand[o.value];
    if (!needed) continue;
    live_op[i] = true;
    for (OperandId o : op.outputs) live_operand[o.value] = true;  // keep all outputs of a kept op
    for (OperandId in : op.inputs)
      if (in.valid()) live_operand[in.value] = true;
  }
  Graph g;
  std::vector<OperandId> remap(operands.size(), kNoOperand);
  std::vector<uint32_t> op_remap(operations.size(), 0);
  uint32_t next_op = 0;
  for (size_t i = 0; i < operations.size(); ++i)
    if (live_op[i]) op_remap[i] = next_op++;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!live_operand[i]) continue;
    OperandInfo info = operands[i];
    OperandId id{static_cast<uint32_t>(g.operands.size())};
    remap[i] = id;
    if (info.kind == OperandKind::kConstant) {
      g.constants.push_back(constants[info.producer]);
      info.producer = static_cast<uint32_t>(g.constants.size() - 1);
    } else if (info.kind == OperandKind::kOperationResult) {
      info.producer = op_remap[info.producer];
    }
    g.operands.push_back(std::move(info));
  }
  for (size_t i = 0; i < operations.size(); ++i) {
    if (!live_op[i]) continue;
    Operation op = operations[i];
    for (OperandId& in : op.inputs)
      if (in.valid()) in = remap[in.value];
    for (OperandId& out : op.outputs) out = remap[out.value];
    g.operations.push_back(std::move(op));
  }
  for (OperandId in : inputs)
    if (live_operand[in.value]) g.inputs.push_back(remap[in.value]);
  for (const auto& [name, id] : outputs) g.outputs.emplace_back(name, remap[id.value]);
  std::sort(g.outputs.begin(), g.outputs.end());
  return g;
}

uint64_t Graph::content_hash() const {
  Hasher h;
  h.add(uint64_t{operands.size()});
  for (const auto& o : operands) {
    h.add(static_cast<uint64_t>(o.kind));
    h.add(static_cast<uint64_t>(o.descriptor.dataType));
    h.add(o.descriptor.shape);
    h.add(o.name);
    h.add(uint64_t{o.dim_names.size()});
    for (const auto& d : o.dim_names) h.add(d);
    if (o.kind == OperandKind::kConstant) {
      const ConstantData& c = constants[o.producer];
      if (!c.fill_element().empty()) {  // a fill is hashed without expanding it
        h.add(uint64_t{c.size()});
        h.add_bytes(c.fill_element());
      } else {
        h.add_bytes(c.bytes());
      }
    }
  }
  h.add(uint64_t{operations.size()});
  for (const auto& op : operations) {
    h.add(static_cast<uint64_t>(op.type));
    h.add(uint64_t{op.inputs.size()});
    for (OperandId in : op.inputs) h.add(uint64_t{in.value});
    h.add(uint64_t{op.outputs.size()});
    for (OperandId out : op.outputs) h.add(uint64_t{out.value});
    hash_attributes(h, op.attrs);
    // Symbolic sizes only when present, so graphs without them hash as before.
    for (const SymbolicSize& s : op.symbolic) {
      h.add(s.field);
      h.add(uint64_t{s.index});
      h.add(s.symbol);
      h.add(static_cast<uint64_t>(s.scale));
      h.add(static_cast<uint64_t>(s.offset));
    }
  }
  for (OperandId in : inputs) h.add(uint64_t{in.value});
  for (const auto& [name, id] : outputs) {
    h.add(name);
    h.add(uint64_t{id.value});
  }
  return h.value();
}

}  // namespace cppnn
