// Reading a graph file of either encoding (webnn-graph-format.md §8 auto-detection).
#include "src/formats/graph_io.h"

#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"

namespace cppnn::formats {

Result<DocEncoding> detect_encoding(std::string_view content) {
  size_t i = 0;
  while (i < content.size()) {
    const char c = content[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#') {  // cppnn: a leading comment is accepted (§11, §10 row 17)
      while (i < content.size() && content[i] != '\n') ++i;
    } else {
      break;
    }
  }
  const std::string_view rest = content.substr(i);
  if (rest.starts_with("webnn_graph")) return DocEncoding::kText;
  if (rest.starts_with("{")) return DocEncoding::kJson;
  return data_error(
      "Unknown format: file must be .webnn text (starts with 'webnn_graph') or JSON (starts with "
      "'{')");
}

Result<GraphDoc> read_graph_doc(std::string_view content, std::string_view file_name,
                                Warnings* warnings) {
  Result<DocEncoding> enc = detect_encoding(content);
  if (!enc) return enc.error();
  if (*enc == DocEncoding::kText) return parse_webnn_text(content, file_name, warnings);
  return parse_graph_json(content, file_name);
}

}  // namespace cppnn::formats
