// The GraphJson encoding (webnn-graph-format.md §4): reader and canonical printer.
#pragma once

#include <string>
#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// Parses GraphJson (§4.1 reading rules: unknown fields ignored, repeated keys inside maps keep
// the last value, a repeated top-level field is an error). Syntax errors are DataErrors
// "JSON error: <file>:<line>:<col>: <what>"; schema errors name the JSON path:
// "JSON error: <file>: nodes[3].options: must be an object".
Result<GraphDoc> parse_graph_json(std::string_view json, std::string_view file_name);

// The canonical pretty JSON of §4.2 (2-space indent, fixed field order, sorted maps, §5.2
// numbers), without a trailing newline.
std::string print_graph_json(const GraphDoc& doc);

// Writes `v` as compact JSON (no spaces; object keys in the given order, sorted when
// `sort_keys`), numbers per §5.2.
void append_compact_json(std::string& out, const DocValue& v, bool sort_keys);
// Appends `s` as a JSON string literal (§4.2 escapes, non-ASCII raw).
void append_json_string(std::string& out, std::string_view s);
// Appends a number per §5.2 (integers in decimal; floats shortest round-trip, `.0` kept,
// exponent form outside 1e-5 <= |x| < 1e16).
void append_number(std::string& out, const DocValue& v);

}  // namespace cppnn::formats
