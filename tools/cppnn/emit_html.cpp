// `cppnn emit-html`'s page (webnn-graph-format.md §9, emit.h): the compact GraphJson in the
// visualizer template tools/cppnn/emit_html_template.html (embedded at build time), at its
// `{{GRAPH_DATA}}` placeholder.
#include <string>
#include <string_view>

#include "src/formats/graph_json.h"
#include "tools/cppnn/emit.h"

namespace cppnn::tool {
namespace {

// The page template, verbatim (NUL-terminated by the embedding).
constexpr char kTemplate[] = {
#include "emit_html_template.html.inc"
};

constexpr std::string_view kPlaceholder = "{{GRAPH_DATA}}";
static_assert(std::string_view(kTemplate, sizeof kTemplate - 1).find(kPlaceholder) !=
                  std::string_view::npos,
              "emit_html_template.html has no {{GRAPH_DATA}}");

// JSON made safe inside a <script> element: `</` (the start of `</script>`, in any case) becomes
// `<\/`, and `<!--` (which would open the script's "escaped" state) `<\u0021--`. Both can only
// occur inside JSON strings, where the escapes mean the same characters.
std::string script_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 16);
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && json.substr(i + 1, 1) == "/") {
      out += "<\\/";
      ++i;
    } else if (json[i] == '<' && json.substr(i + 1, 3) == "!--") {
      out += "<\\u0021--";
      i += 3;
    } else {
      out += json[i];
    }
  }
  return out;
}

}  // namespace

std::string compact_graph_json(const formats::GraphDoc& doc) {
  // The canonical pretty JSON has whitespace only between tokens: strings escape every control
  // character, so dropping spaces and newlines outside strings leaves the same JSON.
  const std::string pretty = formats::print_graph_json(doc);
  std::string out;
  out.reserve(pretty.size());
  bool in_string = false, escaped = false;
  for (char c : pretty) {
    if (in_string) {
      out += c;
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n') {
      out += c;
    }
  }
  return out;
}

std::string emit_html_page(const formats::GraphDoc& doc) {
  const std::string_view page(kTemplate, sizeof kTemplate - 1);
  const size_t at = page.find(kPlaceholder);
  std::string out(page.substr(0, at));
  out += script_safe(compact_graph_json(doc));
  out += page.substr(at + kPlaceholder.size());
  return out;
}

}  // namespace cppnn::tool
