// The external-weights resolver (webnn-graph-format.md §7.1): finds a graph's sidecar (explicit
// paths relative to the graph's folder, else discovery), opens it by its extension, and serves
// every `kind: "weights"` constant from it.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "src/formats/graph_doc.h"
#include "src/formats/weights_provider.h"

namespace cppnn::formats {

// §7.1 step 2: the sidecar of `graph_path`. An explicit `weights` path is used as is when
// absolute, else joined to the graph's folder, and must exist ("[weights] weights path `<p>` does
// not exist"). Otherwise the first existing of <stem>.safetensors, <stem>.weights,
// model.safetensors, model.weights beside the graph ("[weights] no weights file found next to
// `<graph>`; expected ..."). Steps 3-4: a `.safetensors`/`.safetensor` extension (any case) opens a
// SafeTensors archive and ignores `manifest`; any other file is a raw blob whose manifest is the
// explicit one (resolved like `weights`, must exist: "[weights] manifest path `<p>` does not
// exist"), else <stem>.manifest.json, else manifest.json ("[weights] weights blob `<w>` requires a
// manifest; ...").
Result<std::shared_ptr<const WeightsProvider>> open_graph_weights(
    const std::filesystem::path& graph_path,
    const std::optional<std::filesystem::path>& weights = std::nullopt,
    const std::optional<std::filesystem::path>& manifest = std::nullopt);

// Opens one sidecar by its extension: SafeTensors, or a raw blob with `manifest` (required).
Result<std::shared_ptr<const WeightsProvider>> open_weights_file(
    const std::filesystem::path& weights,
    const std::optional<std::filesystem::path>& manifest = std::nullopt);

// True for a `.safetensors` or `.safetensor` extension, in any case (§7.1 step 3).
bool is_safetensors_path(const std::filesystem::path& path);

// Resolves every declaration, in const-name order (the first error aborts). A SafeTensors archive
// that lacks some refs reports them all first: "[safetensors] `<p>` did not provide all tensors
// referenced by the graph (<n> still missing: ...)". The result is in the order of
// `declarations`.
Result<std::vector<ConstantData>> resolve_declared_weights(
    const WeightsProvider& provider, std::span<const DeclaredWeight> declarations);

// The §7.1 resolver for a graph file, opened on first use only, so a graph without external
// weights never touches the file system (§7.1 step 1). Thread-safe.
class LazyGraphWeights {
 public:
  LazyGraphWeights(std::filesystem::path graph_path,
                   std::optional<std::filesystem::path> weights = std::nullopt,
                   std::optional<std::filesystem::path> manifest = std::nullopt);
  // The bytes of one external constant (see WeightsProvider::load).
  Result<ConstantData> load(std::string_view ref, std::string_view const_name,
                            const MLOperandDescriptor& declared) const;
  // The opened sidecar (opening it now if needed).
  Result<std::shared_ptr<const WeightsProvider>> provider() const;

 private:
  std::filesystem::path graph_path_;
  std::optional<std::filesystem::path> weights_, manifest_;
  mutable std::mutex mutex_;
  mutable std::optional<Result<std::shared_ptr<const WeightsProvider>>> opened_;
};

// The F1 document loader's WeightsSource served by the §7.1 resolver of a graph file.
class ResolverWeightsSource final : public WeightsSource {
 public:
  explicit ResolverWeightsSource(std::filesystem::path graph_path,
                                 std::optional<std::filesystem::path> weights = std::nullopt,
                                 std::optional<std::filesystem::path> manifest = std::nullopt)
      : lazy_(std::move(graph_path), std::move(weights), std::move(manifest)) {}
  Result<ConstantData> load(const std::string& name, const std::string& ref,
                            const MLOperandDescriptor& descriptor) override {
    return lazy_.load(ref, name, descriptor);
  }

 private:
  LazyGraphWeights lazy_;
};

// A WeightsSource over an already opened sidecar.
class ProviderWeightsSource final : public WeightsSource {
 public:
  explicit ProviderWeightsSource(std::shared_ptr<const WeightsProvider> provider)
      : provider_(std::move(provider)) {}
  Result<ConstantData> load(const std::string& name, const std::string& ref,
                            const MLOperandDescriptor& descriptor) override {
    return provider_->load(ref, name, descriptor);
  }

 private:
  std::shared_ptr<const WeightsProvider> provider_;
};

}  // namespace cppnn::formats
