#include "src/formats/weights_save.h"

#include <vector>

#include "src/formats/safetensors_writer.h"

namespace cppnn::formats {

namespace {

Result<std::vector<WeightToWrite>> weights_of(
    const Graph& graph, std::span<const std::pair<OperandId, std::string>> constants) {
  std::vector<WeightToWrite> weights;
  weights.reserve(constants.size());
  for (const auto& [id, name] : constants) {
    if (id.value >= graph.operands.size() ||
        graph.operands[id.value].kind != OperandKind::kConstant ||
        graph.operands[id.value].producer >= graph.constants.size())
      return type_error("save weights: operand ", id.value, " (weight `", name,
                        "`) is not a constant of the graph");
    const OperandInfo& info = graph.operands[id.value];
    weights.push_back({name, info.descriptor, graph.constants[info.producer].bytes()});
  }
  return weights;
}

}  // namespace

Status save_graph_weights(const Graph& graph,
                          std::span<const std::pair<OperandId, std::string>> constants,
                          const std::filesystem::path& dest) {
  auto weights = weights_of(graph, constants);
  if (!weights) return weights.error();
  return write_weights_safetensors(dest, *weights);
}

Status save_graph_weights_into(AtomicFile& file, const Graph& graph,
                               std::span<const std::pair<OperandId, std::string>> constants) {
  auto weights = weights_of(graph, constants);
  if (!weights) return weights.error();
  return write_weights_into(file, *weights);
}

}  // namespace cppnn::formats
