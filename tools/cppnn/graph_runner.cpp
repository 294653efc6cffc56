// Input binding and dispatch rounds of `cppnn run` and `cppnn bench`.
#include "tools/cppnn/graph_runner.h"

#include "cppnn/errors.h"
#include "tools/cppnn/tensor_values.h"

namespace cppnn::tool {

GraphRunner::GraphRunner(MLContext context, MLGraph graph, const NamedBytes& inputs)
    : GraphRunner(std::move(context), graph, inputs, graph.inputs()) {}

GraphRunner::GraphRunner(MLContext context, MLGraph graph, const NamedBytes& inputs,
                         const std::map<std::string, MLOperandDescriptor>& input_descs)
    : context_(std::move(context)), graph_(std::move(graph)) {
  for (const auto& [name, graph_desc] : graph_.inputs()) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw TypeError("input '" + name + "' has no value");
    auto d = input_descs.find(name);
    const MLOperandDescriptor& desc = d != input_descs.end() ? d->second : graph_desc;
    MLTensor t = context_.createTensor(MLTensorDescriptor::of(desc, false, true));
    context_.writeTensor(t, it->second);
    inputs_.emplace(name, t);
  }
  output_descs_ = graph_.outputs_for(input_descs);
  for (const auto& [name, desc] : output_descs_)
    outputs_.emplace(name, context_.createTensor(MLTensorDescriptor::of(desc, true, false)));
}

NamedBytes GraphRunner::run() {
  context_.dispatch(graph_, inputs_, outputs_);
  NamedBytes out;
  for (const auto& [name, t] : outputs_) out.emplace(name, context_.readTensor(t));
  return out;
}

NamedBytes generated_inputs(const MLGraph& graph, bool random, uint64_t seed) {
  NamedBytes out;
  uint64_t salt = 0;
  for (const auto& [name, desc] : graph.inputs())
    out.emplace(name, generated_bytes(desc, random, seed, salt++));
  return out;
}

}  // namespace cppnn::tool
