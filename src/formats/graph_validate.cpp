// Structural validation (webnn-graph-format.md §6.1), the reference's order and messages.
#include "src/formats/graph_validate.h"

#include <unordered_set>

#include "src/formats/op_params.h"

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

Warnings unknown_option_warnings(const GraphDoc& doc, std::string_view file_name) {
  Warnings out;
  for (size_t i = 0; i < doc.nodes.size(); ++i) {
    const DocNode& n = doc.nodes[i];
    OpType type;
    if (n.op.empty() || !op_from_name(n.op, type)) continue;
    auto unknown = unknown_option_message(type, n.options);
    if (!unknown) continue;
    const std::string place = n.pos.line ? str_cat(file_name, ":", n.pos.line, ":", n.pos.column)
                                         : str_cat(file_name, ": nodes[", i, "]");
    out.push_back(str_cat(place, ": node '", n.id, "': ", *unknown));
  }
  return out;
}

}  // namespace cppnn::formats
