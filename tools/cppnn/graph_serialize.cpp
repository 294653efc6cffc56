// `cppnn serialize PATH [--quantized]` (webnn-graph-format.md §8): GraphJson -> canonical .webnn
// text (§5.1) on stdout. What text cannot express (§5.3, e.g. output aliases) is an error.
#include <iostream>

#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

int run_serialize(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn serialize PATH [--quantized]\n\n"
      "Reads a GraphJson graph and prints it as canonical .webnn text (webnn-graph-format.md\n"
      "§5.1). --quantized writes @quantized in the header. Documents that text cannot express\n"
      "(output aliases, invalid names, ...) are rejected. Exit: 0 ok, 1 bad input, 2 internal.\n";
  GraphArgs a;
  if (auto rc = parse_graph_args("serialize", args, {"quantized"}, {}, kHelp, a)) return *rc;
  auto content = read_file(a.path);
  if (!content) return report(content.error());
  auto doc = formats::parse_graph_json(*content, a.path);
  if (!doc) return report(doc.error());
  formats::Warnings warnings;
  auto text = formats::print_webnn_text(*doc, a.has("quantized"), &warnings);
  print_warnings(warnings);
  if (!text) return report(text.error());
  std::cout << *text;
  return 0;
}

}  // namespace cppnn::tool
