// libFuzzer target: the GraphJson reader (webnn-graph-format.md §4.1) and the printers. A parsed
// document must print canonically (§4.2) and read back to the same canonical JSON; where the text
// printer accepts it and it has no alias node, its text must read back to it too (§5.3).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/formats/graph_io.h"
#include "src/formats/graph_json.h"
#include "src/formats/graph_validate.h"
#include "src/formats/webnn_text.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace cppnn;
using namespace cppnn::formats;

bool has_alias(const GraphDoc& doc) {
  for (const DocNode& n : doc.nodes)
    if (n.op.empty()) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)read_graph_doc(text, "fuzz");  // auto-detection in front of both parsers
  auto doc = parse_graph_json(text, "fuzz.json");
  if (!doc.ok()) return 0;
  (void)validate_graph_doc(*doc);
  const std::string json = print_graph_json(*doc);
  auto again = parse_graph_json(json, "printed.json");
  CHECK(again.ok());
  CHECK(print_graph_json(*again) == json);  // canonical: object keys sorted
  auto printed = print_webnn_text(*doc);
  if (printed.ok() && !has_alias(*doc)) {
    auto from_text = parse_webnn_text(*printed, "printed.webnn");
    CHECK(from_text.ok());
    GraphDoc named = *doc;  // text always carries a name: a missing one is written as "graph"
    if (!named.name) named.name = "graph";
    CHECK(print_graph_json(*from_text) == print_graph_json(named));
  }
  return 0;
}
