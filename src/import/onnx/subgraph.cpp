// The importer's subgraph machinery (importer.h): scopes for ONNX's lexical scoping of If
// branches and Loop/Scan bodies, and initializers shared by every import of a subgraph.
#include "cppnn/errors.h"
#include "src/import/onnx/importer.h"
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

// Pops the innermost scope when the subgraph's import ends (also by an error).
class ScopeGuard {
 public:
  explicit ScopeGuard(std::vector<std::map<std::string, std::shared_ptr<Value>>>& scopes)
      : scopes_(scopes) {
    scopes_.emplace_back();
  }
  ~ScopeGuard() { scopes_.pop_back(); }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  std::vector<std::map<std::string, std::shared_ptr<Value>>>& scopes_;
};

// A node whose outputs are the same at every import of its subgraph: no inputs (Constant) and
// no subgraph of its own.
bool input_less(const onnx::NodeProto& node) {
  return node.input_size() == 0 && !has_subgraph(node);
}

}  // namespace

bool has_subgraph(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute())
    if (a.type() == onnx::AttributeProto_AttributeType_GRAPH ||
        a.type() == onnx::AttributeProto_AttributeType_GRAPHS || a.has_g() || a.graphs_size() > 0)
      return true;
  return false;
}

void count_unsupported(const onnx::GraphProto& graph, std::map<std::string, int>& missing) {
  for (const auto& node : graph.node()) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    if (!default_domain)
      ++missing[node.domain() + "." + node.op_type()];
    else if (!find_handler(node.op_type()))
      ++missing[node.op_type()];
    for (const auto& a : node.attribute()) {
      if (a.has_g()) count_unsupported(a.g(), missing);
      for (const auto& g : a.graphs()) count_unsupported(g, missing);
    }
  }
}

std::shared_ptr<Value> Importer::find_value(const std::string& name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
    if (auto it = scope->find(name); it != scope->end()) return it->second;
  auto it = values_.find(name);
  return it != values_.end() ? it->second : nullptr;
}

void Importer::define_value(std::shared_ptr<Value> value, const std::string& name) {
  (scopes_.empty() ? values_ : scopes_.back())[name] = std::move(value);
}

std::vector<std::shared_ptr<Value>> Importer::import_subgraph(
    const onnx::GraphProto& graph, const std::vector<std::shared_ptr<Value>>& inputs,
    const std::string& where) {
  try {
    if (static_cast<size_t>(graph.input_size()) != inputs.size())
      throw DataError("the subgraph has " + std::to_string(graph.input_size()) + " inputs where " +
                      std::to_string(inputs.size()) + " are bound");
    if (graph.sparse_initializer_size() > 0)
      throw NotSupportedError("sparse initializers are not supported");
    ScopeGuard guard(scopes_);
    // Not a reference: nested subgraphs push scopes and may move this one.
    const size_t depth = scopes_.size() - 1;
    auto bind = [&](const std::string& name, std::shared_ptr<Value> v) {
      scopes_[depth][name] = std::move(v);
    };
    for (const auto& init : graph.initializer()) {
      auto& shared = shared_values_[&init];
      if (shared.empty()) {
        auto v = std::make_shared<Value>();
        v->name = init.name();
        v->host = host_tensor_of(init, base_dir_, "initializer '" + init.name() + "'");
        v->desc = v->host->desc;
        shared.push_back(std::move(v));
      }
      bind(init.name(), shared.front());
    }
    for (int i = 0; i < graph.input_size(); ++i) bind(graph.input(i).name(), inputs[i]);
    for (int i = 0; i < graph.node_size(); ++i) {
      const onnx::NodeProto& node = graph.node(i);
      if (!input_less(node)) {
        convert_node(node, static_cast<size_t>(i));
        continue;
      }
      auto& shared = shared_values_[&node];
      if (shared.empty()) {
        convert_node(node, static_cast<size_t>(i));
        for (const std::string& out : node.output())
          shared.push_back(out.empty() ? nullptr : find_value(out));
      }
      for (int k = 0; k < node.output_size(); ++k)
        if (shared[k]) bind(node.output(k), shared[k]);
    }
    std::vector<std::shared_ptr<Value>> outputs;
    for (const auto& out : graph.output()) {
      auto v = find_value(out.name());
      if (!v) throw DataError("subgraph output '" + out.name() + "' is not produced by any node");
      outputs.push_back(std::move(v));
    }
    return outputs;
  } catch (const Error& e) {
    throw_error(e.kind(), where + ": " + e.what());
  }
}

}  // namespace cppnn::onnx_import
