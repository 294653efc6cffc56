// The name rule of every graph document (docs/security.md "Names"): each name and string it
// holds (graph name, input, dimension, constant and output names, weight refs, node ids, ops,
// operand references, option keys and string values) is valid UTF-8 without NUL bytes. Run on
// every document a reader returns (read_graph_doc and the format converters).
#pragma once

#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// A DataError naming the file, the place (node line:column, or the document field) and the
// offending name shown escaped, for the first name that breaks the rule.
Status check_doc_strings(const GraphDoc& doc, std::string_view file_name);

}  // namespace cppnn::formats
