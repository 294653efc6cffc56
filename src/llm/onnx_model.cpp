#include "src/llm/onnx_model.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "onnx/onnx_pb.h"
#include "src/core/input_file.h"
#include "src/llm/chat_template.h"

namespace cppnn::llm {
namespace {

namespace fs = std::filesystem;

struct OnnxSignature {
  std::string ids, mask, positions, logits;
  uint32_t kv_heads = 0, head_dim = 0;
  uint32_t layers = 0;
  std::vector<std::string> past_inputs;  // ONNX names, key then value per layer
  std::vector<std::string> present_outputs;
  std::map<std::string, int> ranks;  // ONNX input name -> rank
};

uint32_t static_dim(const onnx::ValueInfoProto& v, int axis, const std::string& model) {
  const auto& shape = v.type().tensor_type().shape();
  if (axis >= shape.dim_size() || !shape.dim(axis).has_dim_value() ||
      shape.dim(axis).dim_value() <= 0 || shape.dim(axis).dim_value() > 1 << 20)
    throw DataError("language model `" + model + "`: input `" + v.name() +
                    "` needs a static size in dimension " + std::to_string(axis));
  return static_cast<uint32_t>(shape.dim(axis).dim_value());
}

OnnxSignature read_signature(const onnx::ModelProto& proto, const std::string& model) {
  OnnxSignature s;
  const onnx::GraphProto& g = proto.graph();
  std::map<std::string, const onnx::ValueInfoProto*> inputs, outputs;
  std::set<std::string> initializers;
  for (const auto& i : g.initializer()) initializers.insert(i.name());
  for (const auto& v : g.input())
    if (!initializers.count(v.name())) inputs[v.name()] = &v;
  for (const auto& v : g.output()) outputs[v.name()] = &v;
  auto need = [&](const std::map<std::string, const onnx::ValueInfoProto*>& side,
                  const std::string& name, const char* what) {
    if (!side.count(name))
      throw DataError("language model `" + model + "`: the ONNX model has no " + what + " `" +
                      name + "` (an optimum-style decoder export is needed)");
    return name;
  };
  s.ids = need(inputs, "input_ids", "input");
  s.mask = need(inputs, "attention_mask", "input");
  if (inputs.count("position_ids")) s.positions = "position_ids";
  s.logits = need(outputs, "logits", "output");
  for (uint32_t l = 0;; ++l) {
    const std::string k = "past_key_values." + std::to_string(l) + ".key";
    if (!inputs.count(k)) break;
    const std::string v = "past_key_values." + std::to_string(l) + ".value";
    need(inputs, v, "input");
    s.past_inputs.push_back(k);
    s.past_inputs.push_back(v);
    s.present_outputs.push_back(need(outputs, "present." + std::to_string(l) + ".key", "output"));
    s.present_outputs.push_back(need(outputs, "present." + std::to_string(l) + ".value", "output"));
    s.layers = l + 1;
  }
  if (s.layers == 0)
    throw DataError("language model `" + model +
                    "`: the ONNX model has no input `past_key_values.0.key` (export it with "
                    "its key/value cache, e.g. optimum's text-generation-with-past)");
  const onnx::ValueInfoProto& k0 = *inputs[s.past_inputs[0]];
  if (k0.type().tensor_type().shape().dim_size() != 4)
    throw DataError("language model `" + model + "`: `" + k0.name() + "` must have rank 4");
  s.kv_heads = static_dim(k0, 1, model);
  s.head_dim = static_dim(k0, 3, model);
  for (const auto& [name, v] : inputs) {
    const bool known =
        name == s.ids || name == s.mask || name == s.positions ||
        std::find(s.past_inputs.begin(), s.past_inputs.end(), name) != s.past_inputs.end();
    if (!known)
      throw DataError("language model `" + model + "`: the ONNX input `" + name +
                      "` is not one of a decoder's (input_ids, attention_mask, position_ids, "
                      "past_key_values.N.key/value)");
    s.ranks[name] = v->type().tensor_type().shape().dim_size();
  }
  return s;
}

// Imports the model with every size fixed for steps of `tokens` tokens.
MLGraph import_step(const MLContext& context, const fs::path& path, const OnnxSignature& s,
                    uint32_t capacity, uint32_t tokens, OnnxImportResult& result) {
  OnnxImportOptions options;
  options.inputShapes[s.ids] = {1, tokens};
  options.inputShapes[s.mask] = {1, capacity + tokens};
  if (!s.positions.empty()) options.inputShapes[s.positions] = {1, tokens};
  for (const std::string& p : s.past_inputs)
    options.inputShapes[p] = {1, s.kv_heads, capacity, s.head_dim};
  MLGraphBuilder builder(context);
  result = import_onnx(builder, path, options);
  return builder.build(result.outputs);
}

std::string webnn_name(const std::vector<std::pair<std::string, std::string>>& names,
                       const std::string& onnx_name) {
  for (const auto& [from, to] : names)
    if (from == onnx_name) return to;
  throw DataError("language model: the ONNX value `" + onnx_name + "` was not imported");
}

// A tokenizer_config.json token entry: "text" or {"content": "text"}.
std::optional<std::string> config_token(const nlohmann::json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
    return (*it)["content"].get<std::string>();
  return std::nullopt;
}

}  // namespace

void load_onnx_model(cppnn::detail::LanguageModelState& st, const fs::path& path,
                     const LanguageModelOptions& options) {
  const std::string model = path.string();
  auto content = read_input_file(path, static_cast<uint64_t>(INT32_MAX));
  if (!content) throw_error(content.error().kind, content.error().message);
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(content->data(), static_cast<int>(content->size())) ||
      !proto.has_graph())
    throw DataError("language model `" + model + "`: not an ONNX model");
  const OnnxSignature s = read_signature(proto, model);
  content->clear();

  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const fs::path tokenizer_path =
      options.tokenizer.empty() ? folder / "tokenizer.json" : options.tokenizer;
  const std::string tokenizer_json =
      std::move(read_input_file(tokenizer_path, 256ull << 20)).value_or_throw();
  Tokenizer tokenizer =
      std::move(Tokenizer::from_hf_json(tokenizer_json, tokenizer_path.string())).value_or_throw();
  // tokenizer_config.json: the chat template, BOS and EOS.
  std::optional<std::string> chat_template;
  if (fs::exists(folder / "tokenizer_config.json")) {
    const std::string text =
        std::move(read_input_file(folder / "tokenizer_config.json", 64ull << 20)).value_or_throw();
    nlohmann::json config;
    try {
      config = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw DataError("tokenizer_config.json error: " +
                      (folder / "tokenizer_config.json").string() + ": " + e.what());
    }
    if (config.is_object()) {
      if (auto it = config.find("chat_template"); it != config.end() && it->is_string())
        chat_template = it->get<std::string>();
      SpecialTokenIds ids = tokenizer.special_ids();
      if (auto t = config_token(config, "bos_token"))
        if (auto id = tokenizer.token_id(*t)) ids.bos = *id;
      if (auto t = config_token(config, "eos_token"))
        if (auto id = tokenizer.token_id(*t)) ids.eos = *id;
      tokenizer = std::move(tokenizer.with_special_ids(ids)).value_or_throw();
    }
  }
  if (!options.chatTemplate.empty())
    chat_template = std::move(read_input_file(options.chatTemplate, 16ull << 20)).value_or_throw();
  st.tokenizer = std::move(tokenizer);
  if (chat_template) {
    auto t = ChatTemplate::parse(*chat_template);
    if (t) {
      st.chat_template = std::make_shared<const llm::ChatTemplate>(std::move(*t));
    } else {
      st.template_error = t.error().message;
    }
  }

  const uint32_t capacity = options.contextLength != 0 ? options.contextLength : 2048;
  const uint32_t chunk = std::min(options.prefillChunk != 0 ? options.prefillChunk : 32u, capacity);
  OnnxImportResult prefill_result, decode_result;
  st.prefill = import_step(st.context, path, s, capacity, chunk, prefill_result);
  st.decode =
      chunk == 1 ? st.prefill : import_step(st.context, path, s, capacity, 1, decode_result);

  StepInterface& in = st.interface;
  in.capacity = capacity;
  in.chunk = chunk;
  in.token_dim.clear();
  in.logits_index.clear();
  in.mask_kind = MaskKind::kAttentionMask;
  const auto& names = prefill_result.inputNames;
  in.input_ids = webnn_name(names, s.ids);
  in.mask = webnn_name(names, s.mask);
  in.position_ids = s.positions.empty() ? std::string() : webnn_name(names, s.positions);
  in.logits = webnn_name(prefill_result.outputNames, s.logits);
  in.cache.clear();
  for (size_t i = 0; i < s.past_inputs.size(); ++i)
    in.cache.push_back({webnn_name(names, s.past_inputs[i]),
                        webnn_name(prefill_result.outputNames, s.present_outputs[i]), 2, capacity});
  const auto& logits = st.prefill->outputs().at(in.logits);
  if (logits.shape.size() != 3 || logits.shape[1] != chunk)
    throw DataError("language model `" + model + "`: logits must be [1, tokens, vocabulary], not " +
                    shape_to_string(logits.shape));
  for (const CacheBinding& b : in.cache) {
    const auto& present = st.prefill->outputs().at(b.present);
    const std::vector<uint32_t> expected = {1, s.kv_heads, capacity + chunk, s.head_dim};
    if (present.shape != expected)
      throw DataError("language model `" + model + "`: output `" + b.present + "` is " +
                      shape_to_string(present.shape) +
                      ", the past keys and values concatenated "
                      "with the step's need " +
                      shape_to_string(expected));
  }
  st.info.architecture = "onnx";
  st.info.name = path.stem().string();
  st.info.layers = s.layers;
  st.info.vocabularySize = logits.shape[2];
}

}  // namespace cppnn::llm
