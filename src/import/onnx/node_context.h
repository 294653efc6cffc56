// What an ONNX operator handler sees of one node: its inputs (operands, or host tensors when their
// value is known), attributes with ONNX defaults, and where to put its outputs. A handler records
// WebNN ops on builder(); the importer runs it on the model's builder, or on a scratch builder
// when every input is known, and then folds the result into a host tensor (constant folding).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/graph_builder.h"
#include "onnx/onnx_pb.h"
#include "src/import/onnx/host_tensor.h"

namespace cppnn::onnx_import {

class Importer;
struct Value;

class NodeContext {
 public:
  NodeContext(Importer& importer, const onnx::NodeProto& node, size_t index,
              std::vector<Value*> inputs, MLGraphBuilder& builder, bool folding);

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  // The model's ai.onnx opset version (handlers switch on it where semantics changed).
  int64_t opset() const;
  // The builder to record ops on (the model's, or a scratch one while folding).
  MLGraphBuilder& builder() { return builder_; }
  // True while the node is being folded (every input known).
  bool folding() const { return folding_; }
  // "<node name>" or "<OpType>#<index>" when unnamed: the label given to recorded ops.
  const std::string& label() const { return label_; }
  // Options of type O with the label set.
  template <class O>
  O opts() const {
    O o;
    o.label = label_;
    return o;
  }

  // --- inputs ---
  size_t input_count() const { return inputs_.size(); }
  // Input i exists and is not an omitted optional input (empty name).
  bool has_input(size_t i) const;
  // Input i as an operand of builder() (known values become constants). NotSupportedError for a
  // missing input or an empty (zero-sized) tensor, which WebNN cannot hold.
  MLOperand input(size_t i);
  // Descriptor of input i (also for empty host tensors).
  const MLOperandDescriptor& input_desc(size_t i) const;
  const std::vector<uint32_t>& input_shape(size_t i) const { return input_desc(i).shape; }
  MLOperandDataType input_type(size_t i) const { return input_desc(i).dataType; }
  size_t input_rank(size_t i) const { return input_desc(i).shape.size(); }
  // Input i's value is known at conversion time.
  bool is_constant(size_t i) const;
  // Every present input is known.
  bool all_constant() const;
  // The known value of input i; NotSupportedError "input i (<what>) must be a constant" if not.
  const HostTensor& constant(size_t i, const char* what = "") const;
  // A known integer input as int64 values (axes, shapes, pads, sizes...).
  std::vector<int64_t> ints(size_t i, const char* what = "") const;

  // --- attributes (ONNX defaults passed by the caller) ---
  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback = "") const;
  std::vector<int64_t> attr_ints(const std::string& name,
                                 const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> attr_floats(const std::string& name,
                                 const std::vector<float>& fallback = {}) const;
  // A TENSOR attribute as a host tensor.
  HostTensor attr_tensor(const std::string& name) const;
  const onnx::AttributeProto* attr(const std::string& name) const;

  // --- outputs ---
  size_t output_count() const { return static_cast<size_t>(node_.output_size()); }
  // Output i is consumed (present with a non-empty name).
  bool wants_output(size_t i) const;
  // Sets output i to an operand of builder().
  void set_output(size_t i, const MLOperand& value);
  // Sets output i to a value computed on the host (may be empty).
  void set_output(size_t i, HostTensor value);

  // --- helpers ---
  // A host tensor as a constant of builder() (TypeError when it is empty).
  MLOperand constant_operand(const HostTensor& t);
  // A scalar constant of `type` on builder().
  MLOperand scalar(MLOperandDataType type, double value);
  // A constant of `type` shaped [values.size()] (or scalar when `scalar_shape`).
  MLOperand constant_ints(const std::vector<int64_t>& values, MLOperandDataType type);
  // NotSupportedError naming the node: `what` cannot be expressed in WebNN / is not implemented.
  [[noreturn]] void unsupported(const std::string& what) const;
  // DataError naming the node: the model is inconsistent.
  [[noreturn]] void invalid(const std::string& what) const;
  // A non-fatal finding, reported in OnnxImportResult::warnings.
  void warn(const std::string& what) const;
  // The importer (control-flow handlers import subgraphs through it).
  Importer& importer() { return importer_; }
  // Sets output i to an existing value of a subgraph, shared rather than copied (control flow).
  void set_output_alias(size_t i, std::shared_ptr<Value> value);

  // Set outputs (the importer's side).
  struct Output {
    std::optional<MLOperand> operand;
    std::optional<HostTensor> host;
    std::shared_ptr<Value> alias;  // set_output_alias
  };
  std::vector<Output>& outputs() { return outputs_; }

 private:
  // DataError for an integer attribute value outside int32 (see node_context.cpp).
  void check_attribute_value(const std::string& name, int64_t v) const;

  Importer& importer_;
  const onnx::NodeProto& node_;
  std::vector<Value*> inputs_;
  MLGraphBuilder& builder_;
  bool folding_;
  std::string label_;
  std::vector<std::optional<MLOperand>> scratch_inputs_;
  std::vector<Output> outputs_;
};

// One ONNX operator handler.
using OpHandler = void (*)(NodeContext&);

}  // namespace cppnn::onnx_import
