// Structural validation of a document (webnn-graph-format.md §6.1, `validate_graph`).
#pragma once

#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// The checks of §6.1 in order, the first failure wins (DataError): format/version,
// non-empty outputs, per node duplicate ids and references to values not defined before, then
// output references (in sorted key order). Nothing else is checked (§6.1 "Not checked").
Status validate_graph_doc(const GraphDoc& doc);

// cppnn addition to plain `validate` (which stays structural, like the reference): one warning
// per node with an option key its op does not know, "<file>:<line>:<col>: node 'y': unknown
// option 'stride' for conv2d (known: ...)". Loading such a graph is an error.
Warnings unknown_option_warnings(const GraphDoc& doc, std::string_view file_name);

}  // namespace cppnn::formats
