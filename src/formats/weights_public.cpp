// The public external-weights API (include/cppnn/weights.h) over src/formats.
#include "cppnn/weights.h"
#include "src/formats/safetensors_writer.h"
#include "src/formats/weights_resolver.h"
#include "src/formats/weights_save.h"

namespace cppnn {

ExternalWeights ExternalWeights::open(const std::filesystem::path& file,
                                      const std::optional<std::filesystem::path>& manifest) {
  return ExternalWeights(formats::open_weights_file(file, manifest).value_or_throw());
}

ExternalWeights ExternalWeights::for_graph(const std::filesystem::path& graph_file,
                                           const std::optional<std::filesystem::path>& weights,
                                           const std::optional<std::filesystem::path>& manifest) {
  return ExternalWeights(
      formats::open_graph_weights(graph_file, weights, manifest).value_or_throw());
}

ConstantData ExternalWeights::load(const std::string& ref, const MLOperandDescriptor& declared,
                                   const std::string& constant_name) const {
  return provider_->load(ref, constant_name.empty() ? ref : constant_name, declared)
      .value_or_throw();
}

MLOperand ExternalWeights::constant(MLGraphBuilder& builder, const std::string& ref,
                                    const MLOperandDescriptor& declared) const {
  return builder.constant_data(declared, load(ref, declared));
}

std::vector<std::string> ExternalWeights::names() const {
  return provider_->names();
}

const std::filesystem::path& ExternalWeights::path() const {
  return provider_->path();
}

void write_safetensors(const std::filesystem::path& dest, std::span<const NamedWeight> weights) {
  std::vector<formats::WeightToWrite> list;
  list.reserve(weights.size());
  for (const NamedWeight& w : weights) list.push_back({w.name, w.descriptor, w.bytes});
  formats::write_weights_safetensors(dest, list).value_or_throw();
}

void save_graph_weights(const Graph& graph,
                        std::span<const std::pair<OperandId, std::string>> constants,
                        const std::filesystem::path& dest) {
  formats::save_graph_weights(graph, constants, dest).value_or_throw();
}

}  // namespace cppnn
