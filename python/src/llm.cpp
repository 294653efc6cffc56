// LanguageModel (cppnn/llm.h) for Python: LanguageModel.load() (the GIL released while the model
// is read and compiled), its info, tokenize/detokenize, the chat template and the stop tokens.
#include "cppnn/llm.h"

#include <Python.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bindings.h"
#include "cppnn/errors.h"
#include "llm_common.h"

namespace nb = nanobind;
namespace fs = std::filesystem;

namespace cppnn::py {

nb::str utf8_str(std::string_view text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (!s) throw nb::python_error();
  return nb::steal<nb::str>(s);
}

std::vector<ChatMessage> chat_messages(nb::handle messages, std::string_view what) {
  const std::string where(what);
  if (nb::isinstance<nb::str>(messages) || !nb::isinstance<nb::sequence>(messages))
    throw TypeError(where + ": messages must be a list of {\"role\", \"content\"} dicts");
  std::vector<ChatMessage> out;
  const size_t n = nb::len(messages);
  for (size_t i = 0; i < n; ++i) {
    nb::object m = messages[i];
    const std::string at = where + ": messages[" + std::to_string(i) + "]";
    if (!nb::isinstance<nb::mapping>(m))
      throw TypeError(at + " must be a dict with \"role\" and \"content\" strings");
    ChatMessage message;
    for (const char* key : {"role", "content"}) {
      nb::mapping map = nb::borrow<nb::mapping>(m);
      if (!map.contains(key)) throw TypeError(at + " has no \"" + key + "\"");
      nb::object value = map[key];
      if (!nb::isinstance<nb::str>(value)) throw TypeError(at + "[\"" + key + "\"] must be a str");
      (std::string_view(key) == "role" ? message.role : message.content) =
          nb::cast<std::string>(value);
    }
    out.push_back(std::move(message));
  }
  return out;
}

namespace {

// LanguageModel.load(path, backend, threads, context_length, prefill_chunk, tokenizer,
// chat_template).
LanguageModel load(const fs::path& path, const std::optional<std::string>& backend,
                   uint32_t threads, uint32_t context_length, uint32_t prefill_chunk,
                   const std::optional<fs::path>& tokenizer,
                   const std::optional<fs::path>& chat_template) {
  LanguageModelOptions options;
  if (backend) options.backend = *backend;
  options.numThreads = threads;
  options.contextLength = context_length;
  options.prefillChunk = prefill_chunk;
  if (tokenizer) options.tokenizer = *tokenizer;
  if (chat_template) options.chatTemplate = *chat_template;
  nb::gil_scoped_release release;
  return LanguageModel::load(path, options);
}

std::string info_repr(const LanguageModelInfo& i) {
  return "LanguageModelInfo(name='" + i.name + "', architecture='" + i.architecture +
         "', backend='" + i.backend + "', layers=" + std::to_string(i.layers) +
         ", vocabulary_size=" + std::to_string(i.vocabularySize) +
         ", context_length=" + std::to_string(i.contextLength) +
         ", prefill_chunk=" + std::to_string(i.prefillChunk) + ")";
}

}  // namespace

void bind_llm(nb::module_& m) {
  nb::class_<LanguageModelInfo>(m, "LanguageModelInfo", "What a language model is.")
      .def_ro("name", &LanguageModelInfo::name, "GGUF general.name, else the file name.")
      .def_ro("architecture", &LanguageModelInfo::architecture, "\"llama\", \"qwen2\", \"onnx\".")
      .def_ro("backend", &LanguageModelInfo::backend, "The context's backend.")
      .def_ro("layers", &LanguageModelInfo::layers)
      .def_ro("vocabulary_size", &LanguageModelInfo::vocabularySize, "Logits per position.")
      .def_ro("context_length", &LanguageModelInfo::contextLength, "Cache positions.")
      .def_ro("prefill_chunk", &LanguageModelInfo::prefillChunk, "Tokens per prefill step.")
      .def_ro("notes", &LanguageModelInfo::notes, "How the weights were converted.")
      .def("__repr__", &info_repr);

  nb::class_<LanguageModel>(
      m, "LanguageModel",
      "A language model compiled on a context, with its tokenizer and chat template "
      "(LanguageModel.load()). Thread-safe: each Generator holds one conversation.")
      .def_static("load", &load, nb::arg("path"), nb::arg("backend") = nb::none(),
                  nb::arg("threads") = 0, nb::arg("context_length") = 0,
                  nb::arg("prefill_chunk") = 0, nb::arg("tokenizer") = nb::none(),
                  nb::arg("chat_template") = nb::none(),
                  "Loads a .gguf (llama, qwen2), a converted .webnn (MODEL.llm.json beside it) or "
                  "an .onnx model. DataError for a missing or malformed file, NotSupportedError "
                  "for an architecture or tensor kind cppnn cannot run.")
      .def_prop_ro("info", [](const LanguageModel& model) { return model.info(); })
      .def_prop_ro("context", &LanguageModel::context, "The MLContext the model runs on.")
      .def_prop_ro("stop_tokens", &LanguageModel::stopTokens,
                   "The ids that end generation (EOS, end of turn).")
      .def(
          "tokenize",
          [](const LanguageModel& model, std::string_view text, bool add_special,
             bool parse_special) { return model.tokenize(text, add_special, parse_special); },
          nb::arg("text"), nb::arg("add_special") = true, nb::arg("parse_special") = true,
          "The token ids of `text`: special tokens written in it are recognised when "
          "parse_special; the model's BOS/EOS are added when add_special and it asks for them.")
      .def(
          "detokenize",
          [](const LanguageModel& model, const std::vector<int32_t>& ids, bool skip_special) {
            return utf8_str(model.detokenize(ids, skip_special));
          },
          nb::arg("ids"), nb::arg("skip_special") = false,
          "The text of `ids` (special tokens left out when skip_special).")
      .def(
          "apply_chat_template",
          [](const LanguageModel& model, nb::handle messages, bool add_generation_prompt) {
            return utf8_str(model.applyChatTemplate(chat_messages(messages, "apply_chat_template"),
                                                    add_generation_prompt));
          },
          nb::arg("messages"), nb::arg("add_generation_prompt") = true,
          "The prompt the model's chat template (ChatML when it has none) makes of `messages` "
          "([{\"role\", \"content\"}, ...]), ending with the assistant's turn when "
          "add_generation_prompt.")
      .def("__repr__", [](const LanguageModel& model) {
        return "LanguageModel(" + info_repr(model.info()) + ")";
      });
  bind_generator(m);
}

}  // namespace cppnn::py
