// libFuzzer target: the .webnn text parser (webnn-graph-format.md §3) and the printers. A parsed
// document must validate or fail cleanly (§6.1), survive GraphJson printing and re-reading
// to the same canonical JSON (§4.2), and, where the text printer accepts it and it has no alias
// node, re-read from its canonical text unchanged (§5.3).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

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
  Warnings warnings;
  auto doc = parse_webnn_text(text, "fuzz.webnn", &warnings);
  if (!doc.ok()) return 0;
  (void)validate_graph_doc(*doc);
  const std::string json = print_graph_json(*doc);
  auto from_json = parse_graph_json(json, "printed.json");
  CHECK(from_json.ok());
  CHECK(print_graph_json(*from_json) == json);  // canonical: object keys sorted
  auto printed = print_webnn_text(*doc);
  if (printed.ok() && !has_alias(*doc)) {
    auto again = parse_webnn_text(*printed, "printed.webnn");
    CHECK(again.ok());
    CHECK(print_graph_json(*again) == json);
  }
  return 0;
}
