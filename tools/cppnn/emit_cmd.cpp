// `cppnn emit-js PATH` and `cppnn emit-html PATH` (webnn-graph-format.md §8, §9): a .webnn text
// or GraphJson graph (auto-detected), checked as §6.1 says, printed as a JavaScript ES module
// over the WebNN API or as a standalone HTML page that draws it (emit.h).
#include <functional>
#include <iostream>

#include "tools/cppnn/commands.h"
#include "tools/cppnn/emit.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {
namespace {

// Reads and checks the graph, then prints what `emit` makes of it.
int emit(const std::string& command, const std::vector<std::string>& args, const char* help,
         const std::function<std::string(const formats::GraphDoc&, formats::Warnings*)>& make) {
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec(command), args, help, a)) return *rc;
  return run_command(command, [&] {
    auto content = read_graph_file(a.path);
    if (!content) return report(content.error());
    formats::Warnings warnings;
    auto doc = load_emit_doc(*content, a.path, &warnings);
    print_warnings(warnings);
    if (!doc) return report(doc.error());
    warnings.clear();
    const std::string text = make(*doc, &warnings);
    print_warnings(warnings);
    std::cout << text;
    std::cout.flush();
    if (!std::cout) return report({ErrorKind::kDataError, "cannot write to standard output"});
    return 0;
  });
}

}  // namespace

int run_emit_js(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn emit-js PATH\n\n"
      "Reads a .webnn text or GraphJson graph (auto-detected), checks it like `validate`\n"
      "(webnn-graph-format.md §6.1) and prints it as a JavaScript ES module over the WebNN API\n"
      "(§9): `export class WeightsFile` (WeightsFile.load(weightsUrl, manifestUrl) reads a WGWT\n"
      "weights file and its v1 manifest, as written by pack-weights or extract-weights), an\n"
      "empty line, then `export async function buildGraph(context, weights)`, which returns\n"
      "the built MLGraph. Unlike the reference, positional parameters (axis, newShape, ...) and\n"
      "operand options (bias, ...) are passed the way the WebNN API takes them, so the module\n"
      "runs on a WebNN implementation (a browser, or Node with `require('cppnn')\n"
      ".installPolyfill()`); a node with no inputs is `builder[\"op\"]({})`.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  return emit("emit-js", args, kHelp, [](const formats::GraphDoc& doc, formats::Warnings* w) {
    return emit_js_module(doc, w);
  });
}

int run_emit_html(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn emit-html PATH\n\n"
      "Reads a .webnn text or GraphJson graph (auto-detected), checks it like `validate`\n"
      "(webnn-graph-format.md §6.1) and prints a standalone HTML page that draws it\n"
      "(§9): inputs, one box per node (operator, value names, constants read), outputs, and\n"
      "the edges between them, in layers; drag to pan, wheel to zoom, click a box for its\n"
      "options. The page needs no network access.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  return emit("emit-html", args, kHelp,
              [](const formats::GraphDoc& doc, formats::Warnings*) { return emit_html_page(doc); });
}

}  // namespace cppnn::tool
