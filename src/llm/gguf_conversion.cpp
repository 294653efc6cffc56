#include "src/llm/gguf_conversion.h"

#include <optional>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "src/core/atomic_file.h"
#include "src/formats/graph_save.h"
#include "src/formats/weights_save.h"
#include "src/import/gguf/gguf_model.h"
#include "src/llm/llm_package.h"
#include "src/llm/tokenizer.h"
#include "src/passes/rewriter.h"

namespace cppnn::llm {
namespace {

namespace fs = std::filesystem;

template <class T>
T take(Result<T> r) {
  return std::move(r).value_or_throw();
}
void check(const Status& s) {
  if (!s.ok()) throw_error(s.error().kind, s.error().message);
}

// Constants of at most this many bytes stay inline in the graph text (scalars, tiny tables).
constexpr uint64_t kMaxInlineBytes = 256;

}  // namespace

GgufConversionReport convert_gguf_file(const fs::path& gguf, const fs::path& out,
                                       const GgufConversionOptions& options) {
  GgufConversionReport report;
  report.graph = out;
  report.weights = out.parent_path() / (out.stem().string() + ".safetensors");
  report.package = llm_package_path_for(out.string());
  for (const fs::path& p : {report.graph, report.weights, report.package}) {
    const fs::path inputs[] = {gguf};
    check(check_output_is_not_input(p, inputs));
  }
  if (report.graph == report.package || report.graph == report.weights)
    throw DataError("convert-gguf: the output `" + out.string() +
                    "` would overwrite its own sidecar (name it .webnn or .json)");

  std::shared_ptr<const gguf::GgufFile> file = take(gguf::GgufFile::open(gguf));
  const DecoderConfig config = take(gguf::read_decoder_config(*file));
  LlmPackage package;
  package.tokenizer = take(gguf::read_tokenizer_spec(*file));
  package.chat_template = take(gguf::read_chat_template(*file));
  // The tokenizer is checked now, so a converted model never fails on it later.
  take(Tokenizer::from_spec(package.tokenizer));

  StepGraphOptions sizes;
  sizes.capacity =
      options.capacity != 0
          ? options.capacity
          : std::min<uint32_t>(config.n_ctx_train == 0 ? 2048 : config.n_ctx_train, 2048);
  sizes.chunk = std::min(options.chunk != 0 ? options.chunk : 32u, sizes.capacity);
  MLGraphBuilder builder = passes::pass_builder();
  gguf::GgufDecoderWeights weights(file, options.weights);
  DecoderStep step = take(build_decoder_step(builder, config, weights, sizes));
  Graph graph = builder.pruned_graph(step.outputs);

  package.name = config.name;
  package.architecture = config.architecture;
  package.layers = config.n_layer;
  package.vocabulary = config.n_vocab;
  package.notes = step.notes;
  package.interface = step.interface;

  const auto external = formats::assign_weight_refs(graph, false, kMaxInlineBytes);
  GraphFileOptions file_options;
  file_options.name = config.architecture;
  file_options.version = 2;
  file_options.max_inline_bytes = kMaxInlineBytes;
  const bool json = out.extension() == ".json";
  std::string text = json ? graph_to_graph_json(graph, file_options) + "\n"
                          : graph_to_webnn_text(graph, file_options);

  auto graph_file = take(AtomicFile::create(report.graph));
  check(graph_file.write(text));
  auto weights_file = take(AtomicFile::create(report.weights));
  check(formats::save_graph_weights_into(weights_file, graph, external));
  auto package_file = take(AtomicFile::create(report.package));
  check(package_file.write(llm_package_json(package)));
  check(commit_together({&weights_file, &package_file, &graph_file}));

  report.name = config.name;
  report.architecture = config.architecture;
  report.layers = config.n_layer;
  report.capacity = sizes.capacity;
  report.chunk = sizes.chunk;
  report.notes = step.notes;
  report.unused = weights.unused();
  report.gguf_bytes = file->file_size();
  std::error_code ec;
  report.weights_bytes = fs::file_size(report.weights, ec);
  return report;
}

}  // namespace cppnn::llm
