// `cppnn fmt PATH [--json] [--check]`: a .webnn text or GraphJson graph (auto-detected, §8)
// rewritten as canonical .webnn text (§5.1), or canonical GraphJson with --json (§4.2).
#include <iostream>

#include "src/formats/graph_io.h"
#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

int run_fmt(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn fmt PATH [--json] [--check]\n\n"
      "Prints a .webnn text or GraphJson graph (auto-detected) in canonical .webnn text\n"
      "(webnn-graph-format.md §5.1), or canonical GraphJson with --json (§4.2). --check prints\n"
      "nothing and exits 1 when the file is not already canonical.\n"
      "Exit status: 0 success, 1 bad input or not canonical, 2 usage or internal error.\n";
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec("fmt"), args, kHelp, a)) return *rc;
  auto content = read_graph_file(a.path);
  if (!content) return report(content.error());
  formats::Warnings warnings;
  auto doc = formats::read_graph_doc(*content, a.path, &warnings);
  if (!doc) {
    print_warnings(warnings);
    return report(in_file(doc.error(), a.path));
  }
  std::string out;
  if (a.has("json")) {
    out = formats::print_graph_json(*doc) + "\n";
  } else {
    auto text = formats::print_webnn_text(*doc, false, &warnings);
    if (!text) {
      print_warnings(warnings);
      return report(in_file(text.error(), a.path));
    }
    out = std::move(*text);
  }
  print_warnings(warnings);
  if (a.has("check")) {
    if (out == *content) return 0;
    std::cerr << a.path << ": not in canonical form\n";
    return 1;
  }
  std::cout << out;
  return 0;
}

}  // namespace cppnn::tool
