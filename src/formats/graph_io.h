// Reading a graph file of either encoding (webnn-graph-format.md §8 format auto-detection).
#pragma once

#include <string_view>

#include "src/formats/graph_doc.h"

namespace cppnn::formats {

enum class DocEncoding : uint8_t { kText, kJson };

// §8 auto-detection: skip whitespace and `#` comments (cppnn also accepts a leading comment,
// §11); `webnn_graph` means text, `{` means JSON. A BOM or anything else is the DataError
// "Unknown format: file must be .webnn text (starts with 'webnn_graph') or JSON (starts with
// '{')".
Result<DocEncoding> detect_encoding(std::string_view content);

// Detects the encoding and parses `content` (no validation).
Result<GraphDoc> read_graph_doc(std::string_view content, std::string_view file_name,
                                Warnings* warnings = nullptr);

}  // namespace cppnn::formats
