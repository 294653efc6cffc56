// cppnn extract-weights (webnn-graph-format.md §8): moves every `inlineBytes` constant of a graph
// (.webnn text or GraphJson) into a WGWT weights file + manifest and writes the graph as JSON.
#include <iostream>

#include "src/core/atomic_file.h"
#include "src/formats/graph_io.h"
#include "src/formats/graph_json.h"
#include "src/formats/weights_doc_tools.h"
#include "src/formats/weights_io.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/weights_cli.h"

namespace cppnn::tool {

int run_extract_weights(const std::vector<std::string>& args) {
  static const std::string kHelp =
      "usage: cppnn extract-weights --input G --output-dir D --weights W --manifest M\n"
      "                             --output-graph O\n\n"
      "Reads the graph G (.webnn text or GraphJson, detected from its content). Each constant\n"
      "with inline bytes (@bytes / inlineBytes), in name order, is written to "
      "D/tensors/<name>.bin\n"
      "and packed into the WGWT file W, indexed by the manifest M (keyed by the constant name,\n"
      "offsets from 8, layout row-major), and becomes @weights(\"<name>\"). The graph is written\n"
      "to O as pretty GraphJson, whatever O's extension. Byte counts must equal numel x element\n"
      "size (int4/uint4: ceil(n/2), or n). Outputs are written atomically; none may be G.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  Flags f;
  if (auto stop = parse_flags("extract-weights", args, kHelp, f)) return *stop;
  auto text = read_graph_file(f["input"]);
  if (!text) return report_error(text.error());
  formats::Warnings warnings;
  auto doc = formats::read_graph_doc(*text, f["input"], &warnings);
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  if (!doc) return report_error(in_file(doc.error(), f["input"]));
  std::vector<std::filesystem::path> outputs = {f["weights"], f["manifest"], f["output-graph"]};
  for (const auto& [name, c] : doc->consts)
    if (c.init.kind == formats::DocInit::Kind::kInlineBytes)
      outputs.push_back(std::filesystem::path(f["output-dir"]) / "tensors" / (name + ".bin"));
  if (auto s = check_outputs(outputs, {f["input"]}); !s) return report_error(s.error());
  auto n = formats::extract_weights(*doc, f["output-dir"], f["weights"], f["manifest"]);
  if (!n) return report_error(reading(n.error(), {f["input"]}));
  if (auto s = write_file_atomically(f["output-graph"], formats::print_graph_json(*doc)); !s)
    return report_error(s.error());
  std::cerr << "Wrote graph with weight references to: " << f["output-graph"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
