#include "src/import/gguf/gguf_model.h"

#include <cmath>
#include <limits>

namespace cppnn::gguf {
namespace {

ErrorInfo unsupported(const GgufFile& file, const std::string& what) {
  return ErrorInfo{ErrorKind::kNotSupportedError, str_cat("GGUF `", file.name(), "`: ", what)};
}

// A size key that must be a positive uint32.
Result<uint32_t> size_key(const GgufFile& file, const std::string& key,
                          std::optional<uint32_t> fallback = std::nullopt) {
  auto v = file.find_uint(key);
  if (!v) {
    const GgufValue* value = file.find(key);
    if (value != nullptr && value->type == GgufValueType::kArray)
      return unsupported(file, str_cat("key `", key,
                                       "` is an array (per-layer sizes are not "
                                       "supported)"));
    return v.error();
  }
  if (!*v) {
    if (fallback) return *fallback;
    return file.error("the key `", key, "` is missing");
  }
  if (**v == 0 || **v > std::numeric_limits<uint32_t>::max())
    return file.error("key `", key, "` is ", **v, ", outside 1..",
                      std::numeric_limits<uint32_t>::max());
  return static_cast<uint32_t>(**v);
}

Result<float> float_key(const GgufFile& file, const std::string& key,
                        std::optional<float> fallback) {
  auto v = file.find_float(key);
  if (!v) return v.error();
  if (!*v) {
    if (fallback) return *fallback;
    return file.error("the key `", key, "` is missing");
  }
  const double d = **v;
  if (!std::isfinite(d) || std::abs(d) > std::numeric_limits<float>::max())
    return file.error("key `", key, "` is ", d, ", not a finite float32");
  return static_cast<float>(d);
}

}  // namespace

Result<llm::DecoderConfig> read_decoder_config(const GgufFile& file) {
  llm::DecoderConfig c;
  auto arch = file.get_string("general.architecture");
  if (!arch) return arch.error();
  c.architecture = *arch;
  if (c.architecture != "llama" && c.architecture != "qwen2")
    return unsupported(file, str_cat("architecture ", quoted_name(c.architecture),
                                     " is not supported (supported: llama, qwen2)"));
  auto name = file.find_string("general.name");
  if (!name) return name.error();
  c.name = name->value_or(file.name());
  const std::string a = c.architecture + ".";

  auto experts = file.find_uint(a + "expert_count");
  if (!experts) return experts.error();
  if (experts->value_or(0) > 0)
    return unsupported(
        file, str_cat("mixture-of-experts models (", **experts, " experts) are not supported"));
  auto get = [&](const std::string& key, uint32_t& out,
                 std::optional<uint32_t> fallback = std::nullopt) -> Status {
    auto v = size_key(file, key, fallback);
    if (!v) return v.error();
    out = *v;
    return Ok{};
  };
  CPPNN_RETURN_IF_ERROR(get(a + "block_count", c.n_layer));
  CPPNN_RETURN_IF_ERROR(get(a + "embedding_length", c.n_embd));
  CPPNN_RETURN_IF_ERROR(get(a + "feed_forward_length", c.n_ff));
  CPPNN_RETURN_IF_ERROR(get(a + "attention.head_count", c.n_head));
  CPPNN_RETURN_IF_ERROR(get(a + "attention.head_count_kv", c.n_head_kv, c.n_head));
  CPPNN_RETURN_IF_ERROR(get(a + "context_length", c.n_ctx_train));
  if (c.n_embd % c.n_head != 0)
    return file.error("embedding_length ", c.n_embd, " is not a multiple of head_count ", c.n_head);
  CPPNN_RETURN_IF_ERROR(get(a + "attention.key_length", c.head_dim, c.n_embd / c.n_head));
  uint32_t value_length = 0;
  CPPNN_RETURN_IF_ERROR(get(a + "attention.value_length", value_length, c.head_dim));
  if (value_length != c.head_dim)
    return unsupported(
        file, str_cat("key length ", c.head_dim, " differs from value length ", value_length));
  if (c.n_head % c.n_head_kv != 0)
    return file.error("head_count ", c.n_head, " is not a multiple of head_count_kv ", c.n_head_kv);
  CPPNN_RETURN_IF_ERROR(get(a + "rope.dimension_count", c.rope_dims, c.head_dim));
  if (c.rope_dims > c.head_dim || c.rope_dims % 2 != 0)
    return file.error("rope.dimension_count ", c.rope_dims, " must be even and at most ",
                      c.head_dim);
  auto eps = float_key(file, a + "attention.layer_norm_rms_epsilon", std::nullopt);
  if (!eps) return eps.error();
  c.norm_eps = *eps;
  auto base = float_key(file, a + "rope.freq_base", 10000.0f);
  if (!base) return base.error();
  if (*base <= 0) return file.error("rope.freq_base ", *base, " must be positive");
  c.rope_base = *base;
  c.rope_mode = c.architecture == "qwen2" ? llm::RopeMode::kNeox : llm::RopeMode::kNormal;

  // Rope scaling: none or linear (a factor, or the older rope.scale_linear key).
  auto scaling = file.find_string(a + "rope.scaling.type");
  if (!scaling) return scaling.error();
  const std::string type = scaling->value_or("none");
  if (type == "linear") {
    auto factor = float_key(file, a + "rope.scaling.factor", 1.0f);
    if (!factor) return factor.error();
    if (*factor <= 0) return file.error("rope.scaling.factor ", *factor, " must be positive");
    c.rope_freq_scale = 1.0f / *factor;
  } else if (type != "none") {
    return unsupported(file, str_cat("rope scaling ", quoted_name(type), " is not supported"));
  } else {
    auto linear = float_key(file, a + "rope.scale_linear", 1.0f);
    if (!linear) return linear.error();
    if (*linear <= 0) return file.error("rope.scale_linear ", *linear, " must be positive");
    c.rope_freq_scale = 1.0f / *linear;
  }
  if (const GgufTensor* ff = file.find_tensor("rope_freqs.weight")) {
    if (ff->kind != GgufKind::kF32 || ff->element_count != c.rope_dims / 2)
      return file.error("tensor `rope_freqs.weight` must be F32 with ", c.rope_dims / 2,
                        " elements");
    auto values = dequantize(*ff);
    if (!values) return values.error();
    for (float v : *values)
      if (!(v > 0) || !std::isfinite(v))
        return file.error("tensor `rope_freqs.weight` holds ", v, ", not a positive factor");
    c.rope_freq_factors = std::move(*values);
  }

  const GgufTensor* embd = file.find_tensor("token_embd.weight");
  if (embd == nullptr) return file.error("the tensor `token_embd.weight` is missing");
  if (embd->dims.size() != 2 || embd->dims[0] != c.n_embd ||
      embd->dims[1] > std::numeric_limits<uint32_t>::max())
    return file.error("tensor `token_embd.weight` must have dims [", c.n_embd, ", vocabulary]");
  c.n_vocab = static_cast<uint32_t>(embd->dims[1]);
  c.tied_embeddings = file.find_tensor("output.weight") == nullptr;
  c.qkv_bias = file.find_tensor("blk.0.attn_q.bias") != nullptr;
  return c;
}

Result<llm::TokenizerSpec> read_tokenizer_spec(const GgufFile& file) {
  llm::TokenizerSpec s;
  auto model = file.get_string("tokenizer.ggml.model");
  if (!model) return model.error();
  s.model = *model;
  auto pre = file.find_string("tokenizer.ggml.pre");
  if (!pre) return pre.error();
  s.pre = pre->value_or("");
  auto tokens = file.get_string_array("tokenizer.ggml.tokens");
  if (!tokens) return tokens.error();
  s.tokens.assign(tokens->begin(), tokens->end());
  auto scores = file.find_float_array("tokenizer.ggml.scores");
  if (!scores) return scores.error();
  if (*scores) s.scores.assign((*scores)->begin(), (*scores)->end());
  auto types = file.find_int_array("tokenizer.ggml.token_type");
  if (!types) return types.error();
  if (*types) {
    s.token_types.reserve((*types)->size());
    for (int64_t t : **types) {
      if (t < std::numeric_limits<int32_t>::min() || t > std::numeric_limits<int32_t>::max())
        return file.error("key `tokenizer.ggml.token_type` holds ", t, ", out of range");
      s.token_types.push_back(static_cast<int32_t>(t));
    }
  }
  auto merges = file.find_string_array("tokenizer.ggml.merges");
  if (!merges) return merges.error();
  if (*merges) s.merges.assign((*merges)->begin(), (*merges)->end());
  auto id = [&](const char* key, std::optional<int64_t>& out) -> Status {
    auto v = file.find_int(key);
    if (!v) return v.error();
    out = *v;
    return Ok{};
  };
  CPPNN_RETURN_IF_ERROR(id("tokenizer.ggml.bos_token_id", s.bos_id));
  CPPNN_RETURN_IF_ERROR(id("tokenizer.ggml.eos_token_id", s.eos_id));
  CPPNN_RETURN_IF_ERROR(id("tokenizer.ggml.unknown_token_id", s.unk_id));
  CPPNN_RETURN_IF_ERROR(id("tokenizer.ggml.padding_token_id", s.pad_id));
  CPPNN_RETURN_IF_ERROR(id("tokenizer.ggml.eot_token_id", s.eot_id));
  auto flag = [&](const char* key, std::optional<bool>& out) -> Status {
    auto v = file.find_bool(key);
    if (!v) return v.error();
    out = *v;
    return Ok{};
  };
  CPPNN_RETURN_IF_ERROR(flag("tokenizer.ggml.add_bos_token", s.add_bos));
  CPPNN_RETURN_IF_ERROR(flag("tokenizer.ggml.add_eos_token", s.add_eos));
  CPPNN_RETURN_IF_ERROR(flag("tokenizer.ggml.add_space_prefix", s.add_space_prefix));
  return s;
}

Result<std::optional<std::string>> read_chat_template(const GgufFile& file) {
  return file.find_string("tokenizer.chat_template");
}

Result<const WebnnWeight*> GgufDecoderWeights::find(const std::string& name) {
  if (auto it = converted_.find(name); it != converted_.end()) return it->second.get();
  const GgufTensor* t = file_->find_tensor(name);
  if (t == nullptr) return static_cast<const WebnnWeight*>(nullptr);
  auto w = to_webnn_weight(*t);
  if (!w) return w.error();
  if (form_ != llm::WeightForm::kKeep) {
    const bool half = form_ == llm::WeightForm::kFloat16 && w->shape.size() >= 2;
    w = to_float_weight(*w, half ? MLOperandDataType::kFloat16 : MLOperandDataType::kFloat32);
    if (!w) return w.error();
  }
  auto [it, inserted] = converted_.emplace(name, std::make_unique<WebnnWeight>(std::move(*w)));
  return it->second.get();
}

std::vector<std::string> GgufDecoderWeights::unused() const {
  std::vector<std::string> names;
  for (const GgufTensor& t : file_->tensors())
    if (!converted_.count(t.name) && t.name != "rope_freqs.weight") names.push_back(t.name);
  return names;
}

}  // namespace cppnn::gguf
