// `cppnn parse PATH` (webnn-graph-format.md §8): .webnn text -> canonical GraphJson (§4.2) on
// stdout, plus a newline. No validation.
#include <iostream>

#include "src/formats/doc_strings.h"
#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

int run_parse(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn parse PATH\n\n"
      "Parses a .webnn text graph and prints its canonical GraphJson (webnn-graph-format.md\n"
      "§4.2) and a newline on stdout. No validation.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec("parse"), args, kHelp, a)) return *rc;
  auto content = read_graph_file(a.path, formats::DocEncoding::kText);
  if (!content) return report(content.error());
  formats::Warnings warnings;
  auto doc = formats::parse_webnn_text(*content, a.path, &warnings);
  print_warnings(warnings);
  if (!doc) return report(in_file(doc.error(), a.path));
  if (Status s = formats::check_doc_strings(*doc, a.path); !s)  // valid UTF-8, no NUL
    return report(in_file(s.error(), a.path));
  std::cout << formats::print_graph_json(*doc) << "\n";
  return 0;
}

}  // namespace cppnn::tool
