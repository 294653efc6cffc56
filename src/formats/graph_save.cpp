#include "src/formats/graph_save.h"

#include <set>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "src/core/atomic_file.h"
#include "src/formats/weights_save.h"

namespace cppnn {
namespace formats {

std::vector<std::pair<OperandId, std::string>> assign_weight_refs(Graph& g, bool inline_all,
                                                                  uint64_t max_inline_bytes) {
  std::vector<std::pair<OperandId, std::string>> external;
  std::set<std::string> used;
  for (const OperandInfo& info : g.operands)
    if (!inline_all && info.kind == OperandKind::kConstant && !info.weight_ref.empty())
      used.insert(info.weight_ref);
  std::set<std::string> listed;
  uint32_t const_index = 0;
  for (size_t i = 0; i < g.operands.size(); ++i) {
    OperandInfo& info = g.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const uint32_t index = const_index++;
    if (inline_all || info.scalar_fill) {
      info.weight_ref.clear();
      continue;
    }
    if (info.weight_ref.empty()) {
      if (g.constants.at(info.producer).size() <= max_inline_bytes) continue;
      std::string want = info.name.empty() ? "const_" + std::to_string(index) : info.name;
      std::string name = want;
      for (int n = 2; used.contains(name); ++n) name = want + "_" + std::to_string(n);
      used.insert(name);
      info.weight_ref = name;
    }
    if (listed.insert(info.weight_ref).second)
      external.emplace_back(OperandId{static_cast<uint32_t>(i)}, info.weight_ref);
  }
  return external;
}

}  // namespace formats

namespace {

template <class T>
T take(Result<T> r) {
  if (!r) throw_error(r.error().kind, r.error().message);
  return std::move(*r);
}

}  // namespace

void save_graph_file(const Graph& graph, const std::filesystem::path& path,
                     const GraphFileOptions& options) {
  Graph g = graph;  // constants are shared, not copied
  const auto external = formats::assign_weight_refs(g, false, options.max_inline_bytes);
  const bool json = path.extension() == ".json";
  std::string text =
      json ? graph_to_graph_json(g, options) + "\n" : graph_to_webnn_text(g, options);
  AtomicFile graph_file = take(AtomicFile::create(path));
  take(graph_file.write(text));
  if (external.empty()) {
    take(graph_file.commit());
    return;
  }
  std::filesystem::path weights = path;
  weights.replace_extension(".safetensors");
  AtomicFile weights_file = take(AtomicFile::create(weights));
  take(formats::save_graph_weights_into(weights_file, g, external));
  take(commit_together({&graph_file, &weights_file}));
}

}  // namespace cppnn
