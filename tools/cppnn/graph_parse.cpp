// `cppnn parse PATH` (webnn-graph-format.md §8): .webnn text -> canonical GraphJson (§4.2) on
// stdout, plus a newline. No validation.
#include <iostream>

#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

int run_parse(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn parse PATH\n\n"
      "Parses a .webnn text graph and prints its canonical GraphJson (webnn-graph-format.md\n"
      "§4.2) and a newline on stdout. No validation. Exit: 0 ok, 1 bad input, 2 internal error.\n";
  GraphArgs a;
  if (auto rc = parse_graph_args("parse", args, {}, {}, kHelp, a)) return *rc;
  auto content = read_file(a.path);
  if (!content) return report(content.error());
  formats::Warnings warnings;
  auto doc = formats::parse_webnn_text(*content, a.path, &warnings);
  print_warnings(warnings);
  if (!doc) return report(doc.error());
  std::cout << formats::print_graph_json(*doc) << "\n";
  return 0;
}

}  // namespace cppnn::tool
