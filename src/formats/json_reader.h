// A strict RFC 8259 JSON reader into DocValue (used by the GraphJson reader,
// webnn-graph-format.md §4.1). Objects keep every member in source order, repeated keys
// included, so that the schema layer can tell a repeated top-level field (an error) from a
// repeated map key (the last wins).
#pragma once

#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// Parses one JSON value filling the whole input (surrounding whitespace allowed). Integers that
// fit int64 are kInt, larger ones that fit uint64 kUint, everything else kFloat (finite). Errors
// (DataError): "JSON error: <file>:<line>:<col>: <what>". Nesting deeper than 256 is an error.
Result<DocValue> read_json(std::string_view json, std::string_view file_name);

}  // namespace cppnn::formats
