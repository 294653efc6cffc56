// MLGraphBuilder (webnn-spec.md §1, §2, §3): records operations, validating every call and
// inferring every output descriptor at once; build() produces an MLGraph (§3.8).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cppnn/context.h"
#include "cppnn/descriptor.h"
#include "cppnn/element_type.h"
#include "cppnn/graph.h"
#include "cppnn/graph_model.h"
#include "cppnn/number.h"
#include "cppnn/op_type.h"
#include "cppnn/operand.h"
#include "cppnn/options.h"
#include "cppnn/tensor.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// MLNamedOperands.
using MLNamedOperands = std::map<std::string, MLOperand>;

// The graph builder of one context. Copies share the same builder (like a JS object reference).
// Every method throws InvalidStateError when the builder cannot build (built already, context
// lost) and TypeError for invalid operands or options, with a message that starts with the op
// name and its label: `conv2d [stem]: ...`.
class MLGraphBuilder {
 public:
  // new MLGraphBuilder(context): InvalidStateError if the context is lost.
  explicit MLGraphBuilder(const MLContext& context);

  // input(name, descriptor): TypeError for an empty name or invalid dimensions. A name used by
  // another input is accepted here (WPT, Chromium) and a TypeError at build() when both inputs
  // are reachable.
  MLOperand input(const std::string& name, const MLOperandDescriptor& descriptor);
  // constant(descriptor, buffer): the bytes are copied; TypeError when the byte length does not
  // match the descriptor.
  MLOperand constant(const MLOperandDescriptor& descriptor, std::span<const std::byte> buffer);
  // constant(descriptor, values) with typed elements (cppnn extension, element_type.h):
  // `builder.constant({kFloat32, {2}}, std::vector<float>{1, 2})`. TypeError when the element
  // type is not the descriptor's data type or the count does not match.
  template <class T>
  requires kIsElementType<T> MLOperand constant(const MLOperandDescriptor& descriptor,
                                                std::span<const T> values) {
    return constant_typed(descriptor, typed_bytes(values));
  }
  template <class T>
  requires kIsElementType<T> MLOperand constant(const MLOperandDescriptor& descriptor,
                                                const std::vector<T>& values) {
    return constant_typed(descriptor, typed_bytes(std::span<const T>(values)));
  }
  // constant_fill(descriptor, value): every element `value` cast to the data type (cppnn
  // extension, a file's `@scalar(v)`): stored as one element, expanded only when a backend reads
  // it (ConstantData::fill).
  MLOperand constant_fill(const MLOperandDescriptor& descriptor, MLNumber value);
  // constant(dataType, value): a scalar cast from `value` by the spec's cast algorithm (§3.6).
  MLOperand constant(MLOperandDataType dataType, MLNumber value);
  // constant(tensor): a constant operand holding a constant tensor's data (no copy). TypeError
  // for a tensor of another context, a destroyed tensor or one not made by createConstantTensor.
  MLOperand constant(const MLTensor& tensor);
  // constant(descriptor, bytes kept alive by `keep_alive`), without a copy (cppnn extension for
  // mapped weight files).
  MLOperand constant_view(const MLOperandDescriptor& descriptor,
                          std::shared_ptr<const void> keep_alive, std::span<const std::byte> bytes);
  // constant(descriptor, data) as it is, without a copy (cppnn extension: a weight loader's
  // ConstantData, e.g. a view of a mapped file whose pages a backend may release once packed).
  MLOperand constant_data(const MLOperandDescriptor& descriptor, ConstantData data);

  // The typed constant() forms: checks the element type, then constant(descriptor, bytes).
  MLOperand constant_typed(const MLOperandDescriptor& descriptor, TypedBytes values);

  // build(outputs): the graph of everything the outputs reach (§3.8).
  MLGraph build(const MLNamedOperands& outputs);
  // The graph model build(outputs) would compile, without compiling it or ending the builder
  // (cppnn extension for converters and tools); the same output checks as build().
  Graph pruned_graph(const MLNamedOperands& outputs) const;

  // The 95 operations of ops.def, one method each, with the signature of their kind.
#define CPPNN_DECL_Unary(m, O) MLOperand m(const MLOperand& input, const O& options = {});
#define CPPNN_DECL_Binary(m, O) \
  MLOperand m(const MLOperand& a, const MLOperand& b, const O& options = {});
#define CPPNN_DECL_Ternary(m, O) \
  MLOperand m(const MLOperand& a, const MLOperand& b, const MLOperand& c, const O& options = {});
#define CPPNN_DECL_Axis(m, O) \
  MLOperand m(const MLOperand& input, uint32_t axis, const O& options = {});
#define CPPNN_DECL_Cast(m, O) \
  MLOperand m(const MLOperand& input, MLOperandDataType dataType, const O& options = {});
#define CPPNN_DECL_Concat(m, O) \
  MLOperand m(const std::vector<MLOperand>& inputs, uint32_t axis, const O& options = {});
#define CPPNN_DECL_Shape(m, O) \
  MLOperand m(const MLOperand& input, std::vector<uint32_t> shape, const O& options = {});
#define CPPNN_DECL_TwoLists(m, O)                                                                \
  MLOperand m(const MLOperand& input, std::vector<uint32_t> first, std::vector<uint32_t> second, \
              const O& options = {});
#define CPPNN_DECL_Split(m, O)                                                             \
  std::vector<MLOperand> m(const MLOperand& input, uint32_t count, const O& options = {}); \
  std::vector<MLOperand> m(const MLOperand& input, std::vector<uint32_t> sizes,            \
                           const O& options = {});
#define CPPNN_DECL_Recurrent(m, O)                                                                \
  std::vector<MLOperand> m(const MLOperand& input, const MLOperand& weight,                       \
                           const MLOperand& recurrentWeight, uint32_t steps, uint32_t hiddenSize, \
                           const O& options = {});
#define CPPNN_DECL_GruCell(m, O)                                                                 \
  MLOperand m(const MLOperand& input, const MLOperand& weight, const MLOperand& recurrentWeight, \
              const MLOperand& hiddenState, uint32_t hiddenSize, const O& options = {});
#define CPPNN_DECL_LstmCell(m, O)                                                          \
  std::vector<MLOperand> m(const MLOperand& input, const MLOperand& weight,                \
                           const MLOperand& recurrentWeight, const MLOperand& hiddenState, \
                           const MLOperand& cellState, uint32_t hiddenSize,                \
                           const O& options = {});
#define CPPNN_OP(E, m, S, O, F) CPPNN_DECL_##S(m, O)
#include "cppnn/ops.def"
#undef CPPNN_OP

  // Records op `type` with its positional operands and attributes (cppnn extension: the typed
  // methods above and the dynamic call in dynamic_call.h all go through here).
  std::vector<MLOperand> record(OpType type, std::span<const MLOperand> operands,
                                OpAttributes attrs);

  MLContext context() const;
  // True once build() succeeded.
  bool has_built() const;
  const std::shared_ptr<detail::BuilderState>& state() const {
    return state_;
  }

 private:
  std::shared_ptr<detail::BuilderState> state_;
};

}  // namespace cppnn

#pragma GCC visibility pop
