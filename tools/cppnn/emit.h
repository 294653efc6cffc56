// The artifacts of `cppnn emit-js` and `cppnn emit-html` (webnn-graph-format.md §9): a graph
// document as a JavaScript ES module over the WebNN API, and as a standalone HTML page that draws
// it. Both take a document that passed §6.1 (load_emit_doc).
#pragma once

#include <string>
#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::tool {

// Reads a graph of either encoding (§8 auto-detection) and runs the structural checks of §6.1:
// what both emit commands accept. Errors name `file` (DataError); reader warnings go to
// `warnings`.
Result<formats::GraphDoc> load_emit_doc(std::string_view content, const std::string& file,
                                        formats::Warnings* warnings);

// The ES module of §9: `export class WeightsFile` (the WGWT + v1 manifest loader), an empty line,
// then `export async function buildGraph(context, weights)`. cppnn deviations, so the module
// runs on a WebNN implementation: a node's positional parameters (axis, newShape, splits...) go
// in the call's positional slots and its operand options (bias, scale...) as `env.get(...)`;
// concat takes its inputs as an array; a zero-input node is `builder["op"]({})` (§10 row 42); an
// alias node `y = x;` is `env.set("y", env.get("x"))`; a scalar constant with a non-empty shape
// is expanded to it; an integer beyond 2^53 is a BigInt literal. Warnings: unknown ops (emitted
// as the reference does).
std::string emit_js_module(const formats::GraphDoc& doc, formats::Warnings* warnings = nullptr);

// The standalone visualizer page of §9: the compact GraphJson of `doc` in the template
// tools/cppnn/emit_html_template.html at `{{GRAPH_DATA}}`, every `</` written `<\/` (so
// `</script>` becomes `<\/script>`) and `<!--` written `<\u0021--`. No network access.
std::string emit_html_page(const formats::GraphDoc& doc);

// The compact GraphJson of `doc` (the canonical JSON of §4.2 without the whitespace).
std::string compact_graph_json(const formats::GraphDoc& doc);

}  // namespace cppnn::tool
