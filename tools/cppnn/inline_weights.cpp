// cppnn inline-weights (webnn-graph-format.md §8): replaces every `@weights` constant of a graph
// by the bytes a WGWT weights file + manifest hold for it, and writes the graph as JSON.
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

int run_inline_weights(const std::vector<std::string>& args) {
  static const std::string kHelp =
      "usage: cppnn inline-weights --input G --weights W --manifest M --output O\n\n"
      "Reads the graph G (.webnn text or GraphJson, detected from its content) and turns each\n"
      "@weights(\"<ref>\") constant into inline bytes: the manifest entry named exactly <ref>\n"
      "gives the range [byteOffset, byteOffset + byteLength) of the WGWT file W (header\n"
      "`WGWT`, version 1; a headerless blob is rejected). The graph is written to O as pretty\n"
      "GraphJson, atomically. Unlike the reference, a manifest byteLength that does not fit\n"
      "the constant's declaration is an error (nothing is written); O must not be an input.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  Flags f;
  if (auto stop = parse_flags("inline-weights", args, kHelp, f)) return *stop;
  if (auto s = check_outputs({f["output"]}, {f["input"], f["weights"], f["manifest"]}); !s)
    return report_error(s.error());
  auto text = read_graph_file(f["input"]);
  if (!text) return report_error(text.error());
  formats::Warnings warnings;
  auto doc = formats::read_graph_doc(*text, f["input"], &warnings);
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  if (!doc) return report_error(in_file(doc.error(), f["input"]));
  auto n = formats::inline_weights(*doc, f["weights"], f["manifest"]);
  if (!n) return report_error(reading(n.error(), {f["input"], f["weights"], f["manifest"]}));
  if (auto s = write_file_atomically(f["output"], formats::print_graph_json(*doc)); !s)
    return report_error(s.error());
  std::cerr << "Wrote graph with inline weights to: " << f["output"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
