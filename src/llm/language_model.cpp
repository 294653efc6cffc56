// LanguageModel (include/cppnn/llm.h): loading a GGUF file, a converted graph or an ONNX export
// onto a context, and the model's tokenizer and chat template.
#include <algorithm>
#include <cctype>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/llm.h"
#include "cppnn/weights.h"
#include "src/core/input_file.h"
#include "src/import/gguf/gguf_model.h"
#include "src/llm/chat_template.h"
#include "src/llm/decoder_graph.h"
#include "src/llm/llm_package.h"
#include "src/llm/model_state.h"
#include "src/llm/onnx_model.h"
#include "src/llm/step_runner.h"

namespace cppnn {
namespace {

namespace fs = std::filesystem;
using detail::LanguageModelState;

template <class T>
T value_or_throw(Result<T> r) {
  return std::move(r).value_or_throw();
}

std::string lower_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// The step sizes for a model converted when loaded.
llm::StepGraphOptions step_sizes(const LanguageModelOptions& options, uint32_t trained) {
  llm::StepGraphOptions s;
  s.capacity = options.contextLength != 0 ? options.contextLength
                                          : std::min<uint32_t>(trained == 0 ? 2048 : trained, 2048);
  s.chunk = std::min(options.prefillChunk != 0 ? options.prefillChunk : 32u, s.capacity);
  return s;
}

// Tokenizer and chat template from their descriptions; the template's parse error is kept for
// applyChatTemplate (generation without a chat works without it).
void set_text_side(LanguageModelState& st, llm::TokenizerSpec spec,
                   const std::optional<std::string>& chat_template) {
  st.tokenizer = value_or_throw(llm::Tokenizer::from_spec(std::move(spec)));
  if (chat_template) {
    auto t = llm::ChatTemplate::parse(*chat_template);
    if (t) {
      st.chat_template = std::make_shared<const llm::ChatTemplate>(std::move(*t));
    } else {
      st.template_error = t.error().message;
    }
  }
}

void load_gguf(LanguageModelState& st, const fs::path& path, const LanguageModelOptions& options) {
  std::shared_ptr<const gguf::GgufFile> file = value_or_throw(gguf::GgufFile::open(path));
  const llm::DecoderConfig config = value_or_throw(gguf::read_decoder_config(*file));
  set_text_side(st, value_or_throw(gguf::read_tokenizer_spec(*file)),
                value_or_throw(gguf::read_chat_template(*file)));
  MLGraphBuilder builder(st.context);
  gguf::GgufDecoderWeights weights(file);
  llm::DecoderStep step = value_or_throw(
      llm::build_decoder_step(builder, config, weights, step_sizes(options, config.n_ctx_train)));
  st.prefill = st.decode = builder.build(step.outputs);
  st.interface = std::move(step.interface);
  st.info = {.name = config.name,
             .architecture = config.architecture,
             .layers = config.n_layer,
             .vocabularySize = config.n_vocab,
             .notes = std::move(step.notes)};
}

void load_converted(LanguageModelState& st, const fs::path& path,
                    const LanguageModelOptions& options) {
  const std::string package_path = llm::llm_package_path_for(path.string());
  const std::string package_text = value_or_throw(read_input_file(package_path, 256ull << 20));
  llm::LlmPackage package = value_or_throw(llm::parse_llm_package(package_text, package_path));
  if (options.contextLength != 0 && options.contextLength != package.interface.capacity)
    throw TypeError("LanguageModel::load: `" + path.string() + "` was converted for a context of " +
                    std::to_string(package.interface.capacity) + " tokens, not " +
                    std::to_string(options.contextLength) + " (convert it again with --context)");
  if (options.prefillChunk != 0 && options.prefillChunk != package.interface.chunk)
    throw TypeError("LanguageModel::load: `" + path.string() + "` was converted with a " +
                    "prefill chunk of " + std::to_string(package.interface.chunk) + " tokens");
  set_text_side(st, std::move(package.tokenizer), package.chat_template);
  const std::string text = value_or_throw(read_input_file(path));
  MLGraphBuilder builder(st.context);
  std::optional<ExternalWeights> weights;
  WeightLoader loader = [&](const std::string& name, const std::string& ref,
                            const MLOperandDescriptor& d) {
    if (!weights) weights = ExternalWeights::for_graph(path);
    return weights->load(ref, d, name);
  };
  MLNamedOperands outputs = load_graph_file(builder, text, path.string(), loader);
  st.prefill = st.decode = builder.build(outputs);
  st.interface = std::move(package.interface);
  st.info = {.name = package.name,
             .architecture = package.architecture,
             .layers = package.layers,
             .vocabularySize = package.vocabulary,
             .notes = std::move(package.notes)};
}

// The tokens that end generation: EOS, EOT, and control tokens that chat models end a turn with
// (llama.cpp's end-of-generation list).
std::vector<int32_t> stop_tokens_of(const llm::Tokenizer& t) {
  static const std::vector<std::string_view> kEndOfTurn = {
      "<|eot_id|>", "<|im_end|>", "<|end|>",         "<end_of_turn>", "<|endoftext|>",
      "<|eom_id|>", "<EOT>",      "<|end_of_text|>", "</s>"};
  std::vector<int32_t> ids;
  if (t.eos_id()) ids.push_back(*t.eos_id());
  if (t.eot_id()) ids.push_back(*t.eot_id());
  for (int32_t id = 0; id < t.vocab_size(); ++id) {
    if (!t.is_control(id)) continue;
    const std::string text = t.token_text(id);
    if (std::find(kEndOfTurn.begin(), kEndOfTurn.end(), text) != kEndOfTurn.end())
      ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

namespace detail {

std::string apply_chat_template(const LanguageModelState& model,
                                const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt) {
  std::vector<llm::ChatMessage> list;
  for (const ChatMessage& m : messages) list.push_back({m.role, m.content});
  const std::map<std::string, std::string> variables = {{"bos_token", model.bos_text},
                                                        {"eos_token", model.eos_text}};
  if (!model.chat_template) {
    if (!model.template_error.empty())
      throw NotSupportedError("applyChatTemplate: the model's chat template cannot be used: " +
                              model.template_error);
    static const llm::ChatTemplate chatml =
        std::move(llm::ChatTemplate::parse(llm::chatml_template())).value_or_throw();
    return std::move(chatml.render(list, add_generation_prompt, variables)).value_or_throw();
  }
  return std::move(model.chat_template->render(list, add_generation_prompt, variables))
      .value_or_throw();
}

std::vector<int32_t> tokenize(const LanguageModelState& model, std::string_view text,
                              bool add_special, bool parse_special) {
  return model.tokenizer->encode(
      text, llm::EncodeOptions{.parse_special = parse_special, .add_special = add_special});
}

}  // namespace detail

LanguageModel LanguageModel::load(const fs::path& path, const LanguageModelOptions& options) {
  auto st = std::make_shared<LanguageModelState>(MLContext::create(
      {.backend = options.backend, .numThreads = options.numThreads, .profile = options.profile}));
  const std::string ext = lower_extension(path);
  if (ext == ".gguf") {
    load_gguf(*st, path, options);
  } else if (ext == ".onnx") {
    llm::load_onnx_model(*st, path, options);
  } else {
    load_converted(*st, path, options);
  }
  const llm::Tokenizer& t = *st->tokenizer;
  if (static_cast<uint32_t>(t.vocab_size()) > st->info.vocabularySize)
    throw DataError("LanguageModel::load: `" + path.string() + "`: the tokenizer has " +
                    std::to_string(t.vocab_size()) + " tokens, the model's logits " +
                    std::to_string(st->info.vocabularySize));
  if (t.bos_id()) st->bos_text = t.token_text(*t.bos_id());
  if (t.eos_id()) st->eos_text = t.token_text(*t.eos_id());
  st->stop_tokens = stop_tokens_of(t);
  llm::check_step_graph(*st, *st->prefill, path.string());
  if (st->decode->state() != st->prefill->state())
    llm::check_step_graph(*st, *st->decode, path.string());
  if (st->info.name.empty()) st->info.name = path.stem().string();
  st->info.backend = st->context.backend();
  st->info.contextLength = st->interface.capacity;
  st->info.prefillChunk = st->interface.chunk;
  return LanguageModel(std::move(st));
}

LanguageModelProfile LanguageModel::profile() const {
  const LanguageModelState& m = *state_;
  return {.prefill = m.prefill->profile_for(llm::step_inputs(m, *m.prefill, m.interface.chunk)),
          .decode = m.decode->profile_for(llm::step_inputs(m, *m.decode, 1))};
}

const LanguageModelInfo& LanguageModel::info() const {
  return state_->info;
}
MLContext LanguageModel::context() const {
  return state_->context;
}

std::vector<int32_t> LanguageModel::tokenize(std::string_view text, bool addSpecial,
                                             bool parseSpecial) const {
  return detail::tokenize(*state_, text, addSpecial, parseSpecial);
}

std::string LanguageModel::detokenize(std::span<const int32_t> tokens, bool skipSpecial) const {
  return state_->tokenizer->decode(tokens, llm::DecodeOptions{.skip_special = skipSpecial});
}

std::string LanguageModel::applyChatTemplate(const std::vector<ChatMessage>& messages,
                                             bool addGenerationPrompt) const {
  return detail::apply_chat_template(*state_, messages, addGenerationPrompt);
}

std::vector<int32_t> LanguageModel::stopTokens() const {
  return state_->stop_tokens;
}

}  // namespace cppnn
