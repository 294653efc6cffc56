// A tiny language model as a GGUF file, for the tests of the whole path (GGUF reader, step
// graph, tokenizer, chat template, generation) and for the Python, Node and C tests through the
// `cppnn_make_tiny_gguf` fixture program: the llama architecture (2 layers, hidden 256, 4 query
// heads over 2 key/value heads of 64, feed-forward 512), every tensor kind cppnn reads (Q8_0,
// Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, F16, BF16, F32) with random blocks of moderate
// scales, a byte-level BPE vocabulary (the 256 byte tokens, some English merges, ChatML's special
// tokens) and SmolLM2's chat template. The tensors' dequantized values are kept in a TinyDecoder
// for the double-precision reference forward pass.
#pragma once

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cppnn/float16.h"
#include "src/import/gguf/gguf_kind.h"
#include "src/import/gguf/gguf_quant.h"
#include "tests/llm/gguf_writer.h"
#include "tests/llm/tiny_decoder.h"

namespace cppnn::testing {

// GPT-2's bytes_to_unicode: the printable character standing for byte `b` in byte-level BPE.
inline std::string gpt2_byte_char(uint8_t b) {
  uint32_t cp = b;
  if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174))) {
    uint32_t n = 0;
    for (uint32_t x = 0; x < b; ++x)
      if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174))) ++n;
    cp = 256 + n;
  }
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// The tiny model's vocabulary: <|endoftext|>, <|im_start|>, <|im_end|> (ids 0-2, control), the
// 256 byte tokens, then one token per merge.
struct TinyVocabulary {
  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  std::vector<std::string> merges;
};

inline TinyVocabulary tiny_vocabulary() {
  TinyVocabulary v;
  for (const char* s : {"<|endoftext|>", "<|im_start|>", "<|im_end|>"}) {
    v.tokens.push_back(s);
    v.types.push_back(3);
  }
  for (int b = 0; b < 256; ++b) {
    v.tokens.push_back(gpt2_byte_char(static_cast<uint8_t>(b)));
    v.types.push_back(1);
  }
  const std::string G = gpt2_byte_char(' ');
  const std::vector<std::pair<std::string, std::string>> merges = {
      {G, "t"},        {"h", "e"}, {G, "a"},   {"i", "n"},     {G + "t", "he"}, {"e", "r"},
      {"o", "n"},      {G, "s"},   {"r", "e"}, {"a", "t"},     {G, "c"},        {"e", "n"},
      {"o", "r"},      {G, "w"},   {"a", "n"}, {"i", "s"},     {G, "p"},        {"e", "s"},
      {"a", "r"},      {G, "f"},   {G, "o"},   {"i", "t"},     {G + "a", "n"},  {"l", "l"},
      {G, "b"},        {G, "i"},   {"o", "u"}, {G + "o", "f"}, {G, "m"},        {"u", "s"},
      {"s", "er"},     {G, "F"},   {"F", "r"}, {"c", "e"},     {"an", "ce"},    {G, "P"},
      {G + "P", "ar"}, {"is", "?"}};
  for (const auto& [a, b] : merges) {
    v.merges.push_back(a + " " + b);
    v.tokens.push_back(a + b);
    v.types.push_back(1);
  }
  return v;
}

inline const char* kSmolLm2Template =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ "
    "'<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|im_start|>assistant\n' }}{% endif %}";

// Random blocks of `kind` for `count` elements with float16 scales set to `scales` (in the
// kind's order: d, then m/dmin where it has one) and every other byte random.
inline std::vector<std::byte> tiny_blocks(gguf::GgufKind kind, uint64_t count,
                                          std::vector<float> scales, std::mt19937& rng) {
  const gguf::GgufKindInfo& info = gguf::kind_info(kind);
  const uint64_t blocks = count / info.block;
  std::vector<std::byte> out(blocks * info.block_bytes);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::byte& b : out) b = static_cast<std::byte>(byte(rng));
  std::vector<size_t> fields;
  switch (kind) {
    case gguf::GgufKind::kQ6_K:
      fields = {208};
      break;
    case gguf::GgufKind::kQ4_1:
    case gguf::GgufKind::kQ5_1:
    case gguf::GgufKind::kQ4_K:
    case gguf::GgufKind::kQ5_K:
      fields = {0, 2};
      break;
    default:
      fields = {0};
  }
  for (uint64_t k = 0; k < blocks; ++k)
    for (size_t f = 0; f < fields.size(); ++f) {
      const uint16_t h = float_to_half_bits(scales[f]);
      std::memcpy(out.data() + k * info.block_bytes + fields[f], &h, 2);
    }
  return out;
}

// The tiny model (make_tiny_decoder with the sizes above and the vocabulary's size) written to a
// GGUF writer; `model` receives the config and the tensors' dequantized values.
inline gguf::testing::GgufWriter tiny_gguf(TinyDecoder& model, uint32_t seed = 11) {
  using gguf::GgufKind;
  const TinyVocabulary vocab = tiny_vocabulary();
  model = make_tiny_decoder("llama", seed,
                            {.embd = 256,
                             .head_dim = 64,
                             .ff = 512,
                             .vocab = static_cast<uint32_t>(vocab.tokens.size())});
  const llm::DecoderConfig& c = model.config;
  gguf::testing::GgufWriter w;
  w.add_string("general.architecture", "llama")
      .add_string("general.name", "tiny-llama")
      .add_uint32("llama.block_count", c.n_layer)
      .add_uint32("llama.context_length", 256)
      .add_uint32("llama.embedding_length", c.n_embd)
      .add_uint32("llama.feed_forward_length", c.n_ff)
      .add_uint32("llama.attention.head_count", c.n_head)
      .add_uint32("llama.attention.head_count_kv", c.n_head_kv)
      .add_float32("llama.rope.freq_base", c.rope_base)
      .add_float32("llama.attention.layer_norm_rms_epsilon", c.norm_eps)
      .add_uint32("llama.rope.dimension_count", c.rope_dims)
      .add_string("tokenizer.ggml.model", "gpt2")
      .add_string("tokenizer.ggml.pre", "smollm")
      .add("tokenizer.ggml.tokens", gguf::testing::GgufWriteValue::strings(vocab.tokens))
      .add("tokenizer.ggml.token_type", gguf::testing::GgufWriteValue::int32s(vocab.types))
      .add("tokenizer.ggml.merges", gguf::testing::GgufWriteValue::strings(vocab.merges))
      .add_uint32("tokenizer.ggml.bos_token_id", 1)
      .add_uint32("tokenizer.ggml.eos_token_id", 2)
      .add_uint32("tokenizer.ggml.unknown_token_id", 0)
      .add_uint32("tokenizer.ggml.padding_token_id", 2)
      .add_bool("tokenizer.ggml.add_bos_token", false)
      .add_string("tokenizer.chat_template", kSmolLm2Template);
  // The kind of each tensor: every kind at least once.
  const std::map<std::string, GgufKind> kinds = {
      {"token_embd.weight", GgufKind::kQ8_0},        {"blk.0.attn_q.weight", GgufKind::kQ4_0},
      {"blk.0.attn_k.weight", GgufKind::kQ4_1},      {"blk.0.attn_v.weight", GgufKind::kQ5_0},
      {"blk.0.attn_output.weight", GgufKind::kQ5_1}, {"blk.0.ffn_gate.weight", GgufKind::kQ4_K},
      {"blk.0.ffn_up.weight", GgufKind::kQ5_K},      {"blk.0.ffn_down.weight", GgufKind::kQ6_K},
      {"blk.1.attn_q.weight", GgufKind::kF16},       {"blk.1.attn_k.weight", GgufKind::kBF16},
      {"blk.1.attn_v.weight", GgufKind::kF32},       {"blk.1.attn_output.weight", GgufKind::kQ8_0},
      {"blk.1.ffn_gate.weight", GgufKind::kQ4_1},    {"blk.1.ffn_up.weight", GgufKind::kQ4_1},
      {"blk.1.ffn_down.weight", GgufKind::kQ4_0}};
  // Scales giving weights of about +-0.3 for each kind (d, then m or dmin).
  const std::map<GgufKind, std::vector<float>> scales = {
      {GgufKind::kQ8_0, {0.003f}},           {GgufKind::kQ4_0, {0.04f}},
      {GgufKind::kQ4_1, {0.04f, -0.3f}},     {GgufKind::kQ5_0, {0.02f}},
      {GgufKind::kQ5_1, {0.02f, -0.3f}},     {GgufKind::kQ4_K, {0.0006f, 0.0004f}},
      {GgufKind::kQ5_K, {0.0003f, 0.0004f}}, {GgufKind::kQ6_K, {0.00008f}}};
  std::mt19937 rng(seed);
  for (auto& [name, tensor] : model.tensors) {
    auto& [shape, values] = tensor;
    std::vector<uint64_t> dims(shape.rbegin(), shape.rend());  // ggml order
    auto it = kinds.find(name);
    const GgufKind kind = it == kinds.end() ? GgufKind::kF32 : it->second;
    if (kind == GgufKind::kF32) {
      w.add_tensor_f32(name, dims, values);
    } else if (kind == GgufKind::kF16) {
      for (float& v : values) v = half_bits_to_float(float_to_half_bits(v));
      w.add_tensor_f16(name, dims, values);
    } else if (kind == GgufKind::kBF16) {
      gguf::testing::GgufBytes b;
      for (float& v : values) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        bits &= 0xFFFF0000u;  // truncated: exactly representable in bfloat16
        std::memcpy(&v, &bits, 4);
        b.u16(static_cast<uint16_t>(bits >> 16));
      }
      w.add_tensor(name, dims, 30, b.bytes());
    } else {
      std::vector<std::byte> blocks = tiny_blocks(kind, values.size(), scales.at(kind), rng);
      const Status s = gguf::dequantize_blocks(kind, blocks, values);
      if (!s.ok()) throw std::runtime_error(s.error().message);
      w.add_tensor(name, dims, static_cast<uint32_t>(kind), std::move(blocks));
    }
  }
  return w;
}

}  // namespace cppnn::testing
