#include "src/passes/constant_folding.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/backends/reference/kernel.h"
#include "src/passes/rewriter.h"

namespace cppnn::passes {
namespace {

// A zero-filled buffer of `size` bytes (at least 64), 64-byte aligned like the reference
// backend's arena and tensors.
std::shared_ptr<std::byte> aligned_buffer(uint64_t size) {
  const size_t rounded = (std::max<uint64_t>(size, 1) + 63) / 64 * 64;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
  if (!p)
    throw OperationError("constant folding: cannot allocate " + std::to_string(size) + " bytes");
  std::memset(p, 0, rounded);
  return std::shared_ptr<std::byte>(p, [](std::byte* q) { std::free(q); });
}

// Whether the result of `op` is its first input's bytes unchanged (identity, reshape): folding it
// shares them instead of running a kernel.
bool is_alias(const Operation& op) {
  return op.activations.empty() && (op.type == OpType::kIdentity || op.type == OpType::kReshape);
}

// The values known at build of a graph's operands (its constants and the results computed so
// far) and the slot table the reference kernels read and write them through.
class ConstantValues {
 public:
  explicit ConstantValues(const Graph& graph)
      : graph_(graph), values_(graph.operands.size()), slots_(graph.operands.size(), nullptr) {}

  // The value of `id` when known (a constant or a computed result), else null.
  const ConstantData* find(OperandId id) {
    std::optional<ConstantData>& v = values_.at(id.value);
    if (!v && graph_.operand(id).kind == OperandKind::kConstant) set(id, graph_.constant(id));
    return v ? &*v : nullptr;
  }

  // Whether every present input of `op` is known.
  bool inputs_known(const Operation& op) {
    for (OperandId in : op.inputs)
      if (in.valid() && !find(in)) return false;
    return true;
  }

  // The bytes of the known inputs of `op` together.
  uint64_t input_bytes(const Operation& op) {
    uint64_t total = 0;
    for (OperandId in : op.inputs)
      if (in.valid()) total += find(in)->size();
    return total;
  }

  // Computes the outputs of `op` by its reference kernel and its fused activations, or shares the
  // input's bytes for an alias. Throws OperationError for an unknown input, else what the kernel
  // throws.
  void evaluate(const Operation& op) {
    if (!inputs_known(op))
      throw OperationError(std::string(op_name(op.type)) + " reads a value that is not constant");
    if (is_alias(op)) {
      set(op.outputs.at(0), *find(op.inputs.at(0)));
      return;
    }
    const ref::KernelContext kc{graph_};
    const ref::Kernel kernel = ref::compile_kernel(kc, op);
    std::vector<ConstantData> results;
    for (OperandId out : op.outputs) {
      const uint64_t bytes = byte_length(graph_.descriptor(out));
      std::shared_ptr<std::byte> buffer = aligned_buffer(bytes);
      slots_[out.value] = buffer.get();
      results.push_back(ConstantData::view(buffer, {buffer.get(), static_cast<size_t>(bytes)}));
    }
    kernel(slots_);
    for (const FusedActivation& a : op.activations)
      ref::compile_fused_activation(kc, op, a)(slots_);
    for (size_t i = 0; i < results.size(); ++i) set(op.outputs[i], std::move(results[i]));
  }

  // evaluate(), with every failure (a kernel's, an allocation) as false instead of an exception.
  bool try_evaluate(const Operation& op) noexcept {
    try {
      evaluate(op);
      return true;
    } catch (const std::exception&) {
      for (OperandId out : op.outputs) slots_[out.value] = nullptr;
      return false;
    }
  }

  // The value of an operand known to be known.
  const ConstantData& at(OperandId id) { return *find(id); }

 private:
  void set(OperandId id, ConstantData data) {
    slots_[id.value] = const_cast<std::byte*>(data.data());
    values_[id.value] = std::move(data);
  }

  const Graph& graph_;
  std::vector<std::optional<ConstantData>> values_;
  std::vector<std::byte*> slots_;
};

// FoldOptions: whether folding `op` (every input known) is worth its outputs' bytes.
bool worth_folding(const Graph& graph, const Operation& op, ConstantValues& values,
                   const FoldOptions& options) {
  // A folded graph output is written by an identity, which takes no 4-bit data (§2): keep an
  // int4/uint4 output computed.
  for (OperandId out : op.outputs) {
    const MLOperandDataType t = graph.descriptor(out).dataType;
    if (t != MLOperandDataType::kInt4 && t != MLOperandDataType::kUint4) continue;
    for (const auto& named : graph.outputs)
      if (named.second == out) return false;
  }
  if (is_alias(op)) return true;
  const uint64_t inputs = values.input_bytes(op);
  for (OperandId out : op.outputs) {
    const uint64_t bytes = byte_length(graph.descriptor(out));
    if (bytes > options.max_output_bytes) return false;
    if (bytes > options.small_bytes && bytes > inputs) return false;
  }
  return true;
}

// Records the folded value of source operand `out` as a constant of the new graph: the source
// value's name, a scalar fill kept through an alias, no weight ref (other bytes than the file's).
MLOperand folded_constant(GraphRewriter& rw, const Operation& op, OperandId out,
                          const ConstantData& data) {
  // As it is: an alias of a mapped weight stays a mapped view (ConstantData::release_pages).
  MLOperand c = rw.builder().constant_data(rw.source().descriptor(out), data);
  OperandInfo& info = rw.builder().state()->graph.operands.at(c.id().value);
  info.name = rw.source().operand(out).name;
  if (is_alias(op)) info.scalar_fill = rw.source().operand(op.inputs.at(0)).scalar_fill;
  return c;
}

}  // namespace

Graph fold_constants(const Graph& graph, const FoldOptions& options, bool* changed) {
  *changed = false;
  ConstantValues values(graph);
  GraphRewriter rw(graph);
  for (const Operation& op : graph.operations) {
    if (!values.inputs_known(op) || !worth_folding(graph, op, values, options) ||
        !values.try_evaluate(op)) {
      rw.copy(op);
      continue;
    }
    for (OperandId out : op.outputs) rw.set(out, folded_constant(rw, op, out, values.at(out)));
    *changed = true;
  }
  return *changed ? rw.finish() : graph;
}

std::vector<ConstantData> evaluate_constant_graph(const Graph& graph) {
  if (!graph.inputs.empty())
    throw OperationError("constant evaluation: the graph has " +
                         std::to_string(graph.inputs.size()) + " inputs");
  ConstantValues values(graph);
  for (const Operation& op : graph.operations) {
    try {
      values.evaluate(op);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw OperationError("constant evaluation: " + std::string(op_name(op.type)) + ": " +
                           e.what());
    }
  }
  std::vector<ConstantData> outputs;
  outputs.reserve(graph.outputs.size());
  for (const auto& [name, id] : graph.outputs) {
    const ConstantData* v = values.find(id);
    if (!v) throw OperationError("constant evaluation: output \"" + name + "\" is not computed");
    outputs.push_back(*v);
  }
  return outputs;
}

}  // namespace cppnn::passes
