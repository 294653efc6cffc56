// The backend-neutral graph model (cppnn extension, used by backends, converters and tools):
// operands in a vector addressed by OperandId, operations in topological order with typed
// attributes, constants as owned bytes or as views that keep a shared buffer alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/number.h"
#include "cppnn/op_type.h"
#include "cppnn/operand.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// Where an operand comes from.
enum class OperandKind : uint8_t {
  kInput,
  kConstant,
  kOperationResult,  // produced by an operation (a graph output or an intermediate)
};

// Bytes of a constant: either owned by this object or a view into a buffer that `keep_alive`
// holds (a mapped weight file, an MLTensor's storage). Immutable once made.
class ConstantData {
 public:
  ConstantData() = default;
  // Copies `bytes` into owned storage.
  static ConstantData copy_of(std::span<const std::byte> bytes);
  // Takes ownership of `bytes`.
  static ConstantData owned(std::vector<std::byte> bytes);
  // A view of `bytes` kept valid by `keep_alive` (no copy).
  static ConstantData view(std::shared_ptr<const void> keep_alive,
                           std::span<const std::byte> bytes);
  // Drops the resident pages wholly inside a range of a read-only file mapping (they are read
  // back from the file if touched again).
  using PageRelease = void (*)(std::span<const std::byte>);
  // A view of bytes of a read-only file mapping that `keep_alive` holds: release_pages() may
  // take its pages out of resident memory.
  static ConstantData mapped_view(std::shared_ptr<const void> keep_alive,
                                  std::span<const std::byte> bytes, PageRelease release);
  // `size` bytes repeating `element` (a scalar fill, `@scalar(v)`; for 4-bit types the packed
  // byte, with `last_byte` for an odd element count). Expanded on the first bytes() or data()
  // call only, so a fill no backend reads never takes memory (docs/security.md "Memory").
  static ConstantData fill(size_t size, std::vector<std::byte> element,
                           std::optional<std::byte> last_byte = std::nullopt);

  std::span<const std::byte> bytes() const;
  const std::byte* data() const { return bytes().data(); }
  size_t size() const { return size_; }
  // For a fill: the repeated element's bytes (no expansion); empty otherwise.
  std::span<const std::byte> fill_element() const;
  // Says the bytes will not be read again soon (a backend that keeps its own packed copy of a
  // weight): a mapped view's whole pages leave the process's resident memory, read back from the
  // file if touched again; nothing for owned bytes, plain views and fills.
  void release_pages() const {
    if (release_ != nullptr) release_({data_, size_});
  }

 private:
  struct Fill;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<Fill> fill_;
  PageRelease release_ = nullptr;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// One operand of a graph.
struct OperandInfo {
  MLOperandDescriptor descriptor;
  OperandKind kind = OperandKind::kOperationResult;
  // The input name (inputs); for constants and operation outputs the value's name in a graph
  // file, empty when unnamed (cppnn extension: set by the file loaders, kept for printing).
  std::string name;
  uint32_t producer = 0;  // operation index (kOperationResult) or constant index (kConstant)
  // Inputs only (cppnn extension, format v2 `dyn("batch", 8)`): per dimension the name of a
  // dynamic dimension, empty for a static one; the descriptor's shape holds its maximum. Empty
  // when every dimension is static.
  std::vector<std::string> dim_names;
  // Constants loaded from a graph file (cppnn extension, so that printing writes the same
  // declaration back): the `@weights("ref")` ref, or the `@scalar(n)` number.
  std::string weight_ref;
  std::optional<MLNumber> scalar_fill;
};

// One recorded operation. `inputs` holds the positional operands in order (every element of the
// list for concat), then the operand-valued options in the order of the options struct's fields
// (kNoOperand where an optional operand is absent). `outputs` holds 1 operand, or several for
// split, gru, lstm and lstmCell.
// An activation fused into the operation before it (cppnn extension, set only by the fusion pass
// for backends that opt in, src/passes/fusion.h): an elementwise op (relu, clamp, sigmoid, ...)
// with its attributes, applied to the operation's single output in place. `times_input`: the
// activation's result multiplied by its input, x·f(x) (the exporters' SiLU, mul(x, sigmoid(x)),
// float32 only: each value rounded as the two ops round it).
struct FusedActivation {
  OpType type = OpType::kRelu;
  OpAttributes attrs;
  bool times_input = false;
};

// A size in an operation's attributes that follows a dynamic dimension (cppnn extension,
// docs/dynamic-dimensions.md): element `index` of attribute `field` (a positional parameter such
// as reshape's `newShape` or slice's `sizes`, or an option such as slice's `strides`) equals
// `scale * symbol + offset`, `symbol` naming a dynamic dimension of the graph's inputs. The
// recorded value is the one at the dimensions' maxima; dispatch at smaller sizes recomputes it.
struct SymbolicSize {
  std::string field;
  uint32_t index = 0;
  std::string symbol;
  int64_t scale = 1;
  int64_t offset = 0;
  friend bool operator==(const SymbolicSize&, const SymbolicSize&) = default;
};

struct Operation {
  OpType type = OpType::kIdentity;
  std::vector<OperandId> inputs;
  std::vector<OperandId> outputs;
  OpAttributes attrs;
  // Activations applied to outputs[0] after the op, in order (empty unless fused by a pass).
  std::vector<FusedActivation> activations;
  // The attribute sizes that follow dynamic dimensions (empty for almost every operation).
  std::vector<SymbolicSize> symbolic;
  const std::string& label() const { return label_of(attrs); }
};

// A graph: immutable after MLGraphBuilder::build().
class Graph {
 public:
  std::vector<OperandInfo> operands;
  std::vector<Operation> operations;  // topological order
  std::vector<ConstantData> constants;
  std::vector<OperandId> inputs;                           // graph inputs in creation order
  std::vector<std::pair<std::string, OperandId>> outputs;  // named outputs, sorted by name

  const OperandInfo& operand(OperandId id) const { return operands.at(id.value); }
  const MLOperandDescriptor& descriptor(OperandId id) const { return operand(id).descriptor; }
  // The constant bytes of a kConstant operand.
  const ConstantData& constant(OperandId id) const;

  // A copy holding only what `outputs` reach (operations, constants, inputs), with operand ids
  // renumbered densely in the original order. `keep_unused_inputs` keeps every input (the passes
  // keep a graph's inputs as they are).
  Graph pruned(bool keep_unused_inputs = false) const;
  // A stable 64-bit content hash of structure, descriptors, attributes and constant bytes (the
  // same graph always hashes the same, across runs and machines).
  uint64_t content_hash() const;
};

}  // namespace cppnn

#pragma GCC visibility pop
