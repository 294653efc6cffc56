// Running a built graph from the command line (`cppnn run`, `cppnn bench`): input tensors
// written once, then any number of dispatch + read rounds (webnn-spec.md §4 dispatch/readTensor).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cppnn/webnn.h"

namespace cppnn::tool {

// Graph output or input name -> bytes.
using NamedBytes = std::map<std::string, std::vector<std::byte>>;

class GraphRunner {
 public:
  // Creates the input (writable) and output (readable) tensors and writes `inputs`, which must
  // hold exactly the graph's inputs with matching byte lengths (TypeError otherwise).
  GraphRunner(MLContext context, MLGraph graph, const NamedBytes& inputs);
  // The same with the inputs' descriptors given (a graph with dynamic dimensions run below their
  // maxima, docs/dynamic-dimensions.md): the output tensors take MLGraph::outputs_for().
  GraphRunner(MLContext context, MLGraph graph, const NamedBytes& inputs,
              const std::map<std::string, MLOperandDescriptor>& input_descs);
  // The descriptor of output `name` as run.
  const MLOperandDescriptor& output_desc(const std::string& name) const {
    return output_descs_.at(name);
  }
  // One dispatch followed by reading every output.
  NamedBytes run();

 private:
  MLContext context_;
  MLGraph graph_;
  MLNamedTensors inputs_, outputs_;
  std::map<std::string, MLOperandDescriptor> output_descs_;
};

// Bytes for every input of `graph`: random values or zeros (tensor_values.h).
NamedBytes generated_inputs(const MLGraph& graph, bool random, uint64_t seed);

}  // namespace cppnn::tool
