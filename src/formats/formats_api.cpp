// The public graph-file API (include/cppnn/formats.h): thin wrappers that turn the internal
// Results into the cppnn exceptions.
#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "src/formats/graph_convert.h"
#include "src/formats/graph_io.h"
#include "src/formats/graph_json.h"
#include "src/formats/graph_validate.h"
#include "src/formats/webnn_text.h"

namespace cppnn {
namespace {

template <class T>
T take(Result<T> r) {
  return std::move(r).value_or_throw();
}
void check(const Status& s) {
  if (!s) throw_error(s.error().kind, s.error().message);
}

// A WeightsSource over the public callback.
class CallbackWeights : public formats::WeightsSource {
 public:
  explicit CallbackWeights(const WeightLoader& f) : f_(f) {}
  Result<ConstantData> load(const std::string& name, const std::string& ref,
                            const MLOperandDescriptor& descriptor) override {
    try {
      return f_(name, ref, descriptor);
    } catch (const Error& e) {
      return ErrorInfo{e.kind(), e.what()};
    } catch (const std::exception& e) {
      return ErrorInfo{ErrorKind::kDataError, e.what()};
    }
  }

 private:
  const WeightLoader& f_;
};

formats::GraphToDocOptions doc_options(const GraphFileOptions& o) {
  formats::GraphToDocOptions d;
  d.name = o.name;
  d.version = o.version;
  d.quantized = o.quantized;
  d.max_inline_bytes = o.max_inline_bytes;
  return d;
}

}  // namespace

std::string webnn_text_to_json(std::string_view text, std::string_view file_name,
                               FormatWarnings* warnings) {
  return formats::print_graph_json(take(formats::parse_webnn_text(text, file_name, warnings)));
}

std::string graph_json_to_webnn_text(std::string_view json, std::string_view file_name,
                                     bool force_quantized, FormatWarnings* warnings) {
  return take(formats::print_webnn_text(take(formats::parse_graph_json(json, file_name)),
                                        force_quantized, warnings));
}

std::string format_webnn_text(std::string_view content, std::string_view file_name,
                              FormatWarnings* warnings) {
  return take(formats::print_webnn_text(take(formats::read_graph_doc(content, file_name, warnings)),
                                        false, warnings));
}

std::string format_graph_json(std::string_view content, std::string_view file_name,
                              FormatWarnings* warnings) {
  return formats::print_graph_json(take(formats::read_graph_doc(content, file_name, warnings)));
}

void validate_graph_file(std::string_view content, std::string_view file_name,
                         FormatWarnings* warnings) {
  const formats::GraphDoc doc = take(formats::read_graph_doc(content, file_name, warnings));
  check(formats::validate_graph_doc(doc));
  if (warnings)
    for (std::string& w : formats::unknown_option_warnings(doc, file_name))
      warnings->push_back(std::move(w));
}

MLNamedOperands load_graph_file(MLGraphBuilder& builder, std::string_view content,
                                std::string_view file_name, const WeightLoader& weights,
                                FormatWarnings* warnings) {
  const formats::GraphDoc doc = take(formats::read_graph_doc(content, file_name, warnings));
  CallbackWeights source(weights);
  return take(formats::record_graph_doc(doc, builder, weights ? &source : nullptr, file_name));
}

std::string graph_to_webnn_text(const Graph& graph, const GraphFileOptions& options,
                                FormatWarnings* warnings) {
  return take(formats::print_webnn_text(take(formats::graph_to_doc(graph, doc_options(options))),
                                        false, warnings));
}

std::string graph_to_graph_json(const Graph& graph, const GraphFileOptions& options) {
  return formats::print_graph_json(take(formats::graph_to_doc(graph, doc_options(options))));
}

}  // namespace cppnn
