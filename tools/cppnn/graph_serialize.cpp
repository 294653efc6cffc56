// `cppnn serialize PATH [--quantized]` (webnn-graph-format.md §8): GraphJson -> canonical .webnn
// text (§5.1) on stdout. What text cannot express (§5.3, e.g. output aliases) is an error.
#include <iostream>

#include "src/formats/doc_strings.h"
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
      "(output aliases, invalid names, ...) are rejected.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec("serialize"), args, kHelp, a)) return *rc;
  auto content = read_graph_file(a.path, formats::DocEncoding::kJson);
  if (!content) return report(content.error());
  auto doc = formats::parse_graph_json(*content, a.path);
  if (!doc) return report(in_file(doc.error(), a.path));
  if (Status s = formats::check_doc_strings(*doc, a.path); !s)  // valid UTF-8, no NUL
    return report(in_file(s.error(), a.path));
  formats::Warnings warnings;
  auto text = formats::print_webnn_text(*doc, a.has("quantized"), &warnings);
  print_warnings(warnings);
  if (!text) return report(in_file(text.error(), a.path));
  std::cout << *text;
  return 0;
}

}  // namespace cppnn::tool
