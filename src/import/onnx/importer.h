// The importer: walks an ONNX graph in order, keeps every ONNX value as a host tensor (known at
// conversion time) or an operand of the model's builder, and runs each node's handler, folding
// nodes whose inputs are all known: the handler records on a scratch builder without a backend
// and the reference kernels compute the result (passes::evaluate_constant_graph).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cppnn/onnx_import.h"
#include "onnx/onnx_pb.h"
#include "src/import/onnx/host_tensor.h"
#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// One ONNX value.
struct Value {
  std::string name;                  // the ONNX name
  MLOperandDescriptor desc;          // also for empty host tensors
  std::optional<HostTensor> host;    // known value
  std::optional<MLOperand> operand;  // in the model's builder (materialized lazily for host)
  bool graph_input = false;          // a graph input of the model (run-time value)
  // The graph inputs a run-time value is computed from (sorted; only while small).
  std::vector<std::string> depends_on;
};

class Importer {
 public:
  Importer(MLGraphBuilder& builder, const OnnxImportOptions& options,
           std::filesystem::path base_dir);
  OnnxImportResult run(const onnx::ModelProto& model);

  int64_t opset() const { return opset_; }
  // The value as an operand of the model's builder (host tensors become named constants).
  MLOperand materialize(Value& value);
  void warn(const std::string& message) { result_.warnings.push_back(message); }

  // --- subgraphs (If branches, Loop and Scan bodies; subgraph.cpp) ---
  // The value named `name` in the innermost scope that defines it (ONNX lexical scoping: a
  // subgraph sees the values of every enclosing graph); nullptr when none does.
  std::shared_ptr<Value> find_value(const std::string& name) const;
  // Imports `graph` once in a new scope whose graph inputs are bound to `inputs` (in order) and
  // returns its outputs. Initializers and input-less nodes (Constant) of a subgraph are imported
  // once per importer and shared by every import of it (no duplicated weights when a body is
  // unrolled). Errors are prefixed with `where` ("then_branch", "body iteration 3").
  std::vector<std::shared_ptr<Value>> import_subgraph(
      const onnx::GraphProto& graph, const std::vector<std::shared_ptr<Value>>& inputs,
      const std::string& where);
  // The model's builder (control-flow handlers record on it directly).
  MLGraphBuilder& builder() { return builder_; }
  // Nodes imported so far by unrolled Loop/Scan iterations (the unroll limit, ops_control.cpp).
  int64_t& unrolled_nodes() { return unrolled_nodes_; }

 private:
  // Opsets kMinOnnxOpset to kMaxOnnxOpset; anything else is refused.
  void check_opset(const onnx::ModelProto& model) const;
  // Every value has one producer (an initializer, a graph input or one node output).
  void check_single_assignment(const onnx::GraphProto& graph) const;
  // Warnings for free-dimension, input-shape and input-value overrides that name nothing.
  void warn_unused_overrides(const onnx::GraphProto& graph);
  void check_supported(const onnx::GraphProto& graph) const;
  void add_initializers(const onnx::GraphProto& graph);
  void add_inputs(const onnx::GraphProto& graph);
  void reserve_output_names(const onnx::GraphProto& graph);
  void add_outputs(const onnx::GraphProto& graph);
  void convert_node(const onnx::NodeProto& node, size_t index);
  bool try_fold(const onnx::NodeProto& node, size_t index, std::vector<Value*>& inputs);
  void store_outputs(const onnx::NodeProto& node, NodeContext& context);
  std::string unique_name(const std::string& onnx_name);
  // Defines `value` in the innermost scope (the model's graph when no subgraph is open).
  void define_value(std::shared_ptr<Value> value, const std::string& name);

  MLGraphBuilder& builder_;
  OnnxImportOptions options_;
  std::filesystem::path base_dir_;
  int64_t opset_ = 1;
  std::map<std::string, std::shared_ptr<Value>> values_;  // the model's graph
  // The scopes of the subgraphs being imported, innermost last (subgraph.cpp).
  std::vector<std::map<std::string, std::shared_ptr<Value>>> scopes_;
  // Subgraph initializers and input-less nodes' outputs, imported once (subgraph.cpp).
  std::map<const void*, std::vector<std::shared_ptr<Value>>> shared_values_;
  int64_t unrolled_nodes_ = 0;
  std::set<std::string> used_names_;
  std::set<std::string> free_dims_seen_;  // the model's free dimension names (add_inputs)
  std::map<std::string, std::string> output_names_;  // graph output (ONNX) -> reserved name
  OnnxImportResult result_;
};

// The ai.onnx opsets the importer reads (README): 1 (ONNX's own node tests use opsets 1 and 6,
// and the handlers implement the old forms: legacy broadcast, attribute shapes, ...) to 21, the
// newest whose operator changes the handlers know (Gelu 20, Pad wrap 19, ...).
inline constexpr int64_t kMinOnnxOpset = 1;
inline constexpr int64_t kMaxOnnxOpset = 21;

// The ai.onnx opset a model imports (1 when none is listed).
int64_t onnx_opset_of(const onnx::ModelProto& model);

// The node has a GRAPH or GRAPHS attribute (If, Loop, Scan; subgraph.cpp).
bool has_subgraph(const onnx::NodeProto& node);
// Counts the operators of `graph` and of its subgraphs that the importer lacks, by name
// ("<domain>.<OpType>" outside ai.onnx) (subgraph.cpp).
void count_unsupported(const onnx::GraphProto& graph, std::map<std::string, int>& missing);

}  // namespace cppnn::onnx_import
