// Structural validation (webnn-graph-format.md §6.1), the reference's order and messages.
#include "src/formats/graph_validate.h"

#include <unordered_set>

namespace cppnn::formats {

Status validate_graph_doc(const GraphDoc& doc) {
  if (doc.format != kGraphJsonFormat || (doc.version != 1 && doc.version != 2))
    return data_error("unsupported format/version: ", doc.format, " v", doc.version);
  if (doc.outputs.empty()) return data_error("outputs must be non-empty");
  std::unordered_set<std::string_view> known;
  known.reserve(doc.inputs.size() + doc.consts.size() + doc.nodes.size() * 2);
  for (const auto& [name, in] : doc.inputs) known.insert(name);
  for (const auto& [name, k] : doc.consts) known.insert(name);
  std::unordered_set<std::string_view> ids;
  ids.reserve(doc.nodes.size());
  for (const DocNode& n : doc.nodes) {
    if (!ids.insert(n.id).second) return data_error("duplicate node id: ", n.id);
    for (const std::string& in : n.inputs)
      if (!known.contains(in))
        return data_error("unknown reference '", in, "' used in node '", n.id, "'");
    known.insert(n.id);
    if (n.outputs)
      for (const std::string& o : *n.outputs) known.insert(o);
  }
  for (const auto& [out, ref] : doc.outputs)
    if (!known.contains(ref))
      return data_error("output '", out, "' references unknown value '", ref, "'");
  return Ok{};
}

}  // namespace cppnn::formats
