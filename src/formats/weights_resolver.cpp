#include "src/formats/weights_resolver.h"

#include <algorithm>
#include <cctype>

#include "src/formats/manifest_weights.h"
#include "src/formats/safetensors_reader.h"

namespace cppnn::formats {
namespace {

namespace fs = std::filesystem;

template <class... A>
ErrorInfo fail(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("[weights] ", a...)};
}

fs::path folder_of(const fs::path& graph) {
  return graph.has_parent_path() ? graph.parent_path() : fs::path(".");
}

fs::path relative_to_graph(const fs::path& graph, const fs::path& p) {
  return p.is_absolute() ? p : folder_of(graph) / p;
}

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

std::string quoted_list(const std::vector<fs::path>& paths) {
  std::string s;
  for (size_t i = 0; i < paths.size(); ++i)
    s +=
        str_cat(i == 0 ? "" : (i + 1 == paths.size() ? " or " : ", "), "`", paths[i].string(), "`");
  return s;
}

template <class T>
Result<std::shared_ptr<const WeightsProvider>> as_provider(Result<std::shared_ptr<const T>> r) {
  if (!r) return r.error();
  return std::shared_ptr<const WeightsProvider>(std::move(*r));
}

}  // namespace

bool is_safetensors_path(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".safetensors" || ext == ".safetensor";
}

Result<std::shared_ptr<const WeightsProvider>> open_weights_file(
    const fs::path& weights, const std::optional<fs::path>& manifest) {
  if (is_safetensors_path(weights)) return as_provider(SafeTensorsFile::open(weights));
  if (!manifest) return fail("weights blob `", weights.string(), "` requires a manifest");
  return as_provider(ManifestWeights::open(weights, *manifest));
}

Result<std::shared_ptr<const WeightsProvider>> open_graph_weights(
    const fs::path& graph_path, const std::optional<fs::path>& weights,
    const std::optional<fs::path>& manifest) {
  const fs::path dir = folder_of(graph_path);
  const std::string stem = graph_path.stem().string();
  fs::path chosen;
  if (weights) {
    chosen = relative_to_graph(graph_path, *weights);
    if (!path_exists(chosen)) return fail("weights path `", chosen.string(), "` does not exist");
  } else {
    const std::vector<fs::path> candidates = {dir / (stem + ".safetensors"),
                                              dir / (stem + ".weights"), dir / "model.safetensors",
                                              dir / "model.weights"};
    const auto it = std::find_if(candidates.begin(), candidates.end(), path_exists);
    if (it == candidates.end())
      return fail("no weights file found next to `", graph_path.string(), "`; expected ",
                  quoted_list(candidates));
    chosen = *it;
  }
  if (is_safetensors_path(chosen)) return open_weights_file(chosen);  // any manifest is ignored
  fs::path manifest_path;
  if (manifest) {
    manifest_path = relative_to_graph(graph_path, *manifest);
    if (!path_exists(manifest_path))
      return fail("manifest path `", manifest_path.string(), "` does not exist");
  } else {
    const std::vector<fs::path> candidates = {dir / (stem + ".manifest.json"),
                                              dir / "manifest.json"};
    const auto it = std::find_if(candidates.begin(), candidates.end(), path_exists);
    if (it == candidates.end())
      return fail("weights blob `", chosen.string(), "` requires a manifest; expected ",
                  quoted_list(candidates), ", or pass one explicitly");
    manifest_path = *it;
  }
  return open_weights_file(chosen, manifest_path);
}

Result<std::vector<ConstantData>> resolve_declared_weights(
    const WeightsProvider& provider, std::span<const DeclaredWeight> declarations) {
  std::vector<size_t> order(declarations.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return declarations[a].const_name < declarations[b].const_name;
  });
  if (dynamic_cast<const SafeTensorsFile*>(&provider) != nullptr) {
    std::vector<std::string> missing;
    for (size_t i : order) {
      auto found = provider.find(declarations[i].ref);
      if (found && !*found) missing.push_back(str_cat("`", declarations[i].ref, "`"));
    }
    if (!missing.empty()) {
      std::string list;
      for (size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
      return ErrorInfo{ErrorKind::kDataError,
                       str_cat("[safetensors] `", provider.path().string(),
                               "` did not provide all tensors referenced by the graph (",
                               missing.size(), " still missing: ", list, ")")};
    }
  }
  std::vector<ConstantData> out(declarations.size());
  for (size_t i : order) {
    const DeclaredWeight& d = declarations[i];
    auto data = provider.load(d.ref, d.const_name, d.descriptor);
    if (!data) return data.error();
    out[i] = std::move(*data);
  }
  return out;
}

LazyGraphWeights::LazyGraphWeights(fs::path graph_path, std::optional<fs::path> weights,
                                   std::optional<fs::path> manifest)
    : graph_path_(std::move(graph_path)),
      weights_(std::move(weights)),
      manifest_(std::move(manifest)) {}

Result<std::shared_ptr<const WeightsProvider>> LazyGraphWeights::provider() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!opened_) opened_ = open_graph_weights(graph_path_, weights_, manifest_);
  return *opened_;
}

Result<ConstantData> LazyGraphWeights::load(std::string_view ref, std::string_view const_name,
                                            const MLOperandDescriptor& declared) const {
  auto p = provider();
  if (!p) return p.error();
  return (*p)->load(ref, const_name, declared);
}

}  // namespace cppnn::formats
