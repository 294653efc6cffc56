// Loading a graph file with its external weights (cppnn/formats.h, cppnn/weights.h), building
// it, and running it through MLTensor and dispatch.
#include "model.h"

#include <cppnn/formats.h>
#include <cppnn/weights.h>

#include <optional>
#include <stdexcept>

#include "file_io.h"

namespace ocr {
namespace {

// The whole graph file as text (a regular file only, so a FIFO cannot hang the program).
std::string read_text(const std::string& path) {
  const std::vector<unsigned char> bytes = read_regular_file(path, "graph", uint64_t{1} << 30);
  return {bytes.begin(), bytes.end()};
}

// The graph built from `graph_file`; weights are mapped from the sidecar on first use.
cppnn::MLGraph build_graph(cppnn::MLContext& context, const std::string& graph_file) {
  const std::string text = read_text(graph_file);
  cppnn::MLGraphBuilder builder(context);
  std::optional<cppnn::ExternalWeights> weights;
  auto loader = [&](const std::string& name, const std::string& ref,
                    const cppnn::MLOperandDescriptor& descriptor) {
    if (!weights) weights = cppnn::ExternalWeights::for_graph(graph_file);
    return weights->load(ref, descriptor, name);
  };
  const cppnn::MLNamedOperands outputs = cppnn::load_graph_file(builder, text, graph_file, loader);
  return builder.build(outputs);
}

}  // namespace

Model::Model(cppnn::MLContext context, const std::string& graph_file)
    : context_(context), graph_(build_graph(context, graph_file)) {
  if (graph_.inputs().size() != 1 || graph_.outputs().size() != 1)
    throw std::runtime_error(graph_file + ": expected one input and one output");
  const auto& [in_name, in_desc] = *graph_.inputs().begin();
  const auto& [out_name, out_desc] = *graph_.outputs().begin();
  if (in_desc.dataType != cppnn::MLOperandDataType::kFloat32 ||
      out_desc.dataType != cppnn::MLOperandDataType::kFloat32)
    throw std::runtime_error(graph_file + ": expected a float32 input and output");
  input_name_ = in_name;
  output_name_ = out_name;
  input_shape_ = in_desc.shape;
  output_shape_ = out_desc.shape;
  input_ = context_.createTensor(cppnn::MLTensorDescriptor::of(in_desc, false, true));
  output_ = context_.createTensor(cppnn::MLTensorDescriptor::of(out_desc, true, false));
}

std::vector<float> Model::run(std::span<const float> input) {
  context_.writeTensor(input_, std::as_bytes(input));
  context_.dispatch(graph_, {{input_name_, input_}}, {{output_name_, output_}});
  return context_.readTensor<float>(output_);
}

}  // namespace ocr
