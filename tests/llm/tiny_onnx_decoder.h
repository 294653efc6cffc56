// The tiny decoder of tiny_decoder.h written as an optimum-style ONNX export (the layout of
// Hugging Face optimum / transformers.js decoders with past): inputs input_ids [1, tokens],
// attention_mask [1, past + tokens], position_ids [1, tokens] (int64) and
// past_key_values.N.key/value [1, kv_heads, past, head_dim]; outputs logits and
// present.N.key/value (past and new keys concatenated). Written as an exporter writes a llama:
// RMSNorm from Pow/ReduceMean, rotate_half rotary embedding over cos/sin caches gathered by
// position, key/value heads repeated with Expand, the causal and padding mask built from Range,
// Shape and the attention mask, float32 min for masked scores. Plus a Hugging Face
// tokenizer.json of the tiny byte-level vocabulary (tiny_gguf.h).
#pragma once

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/import/onnx_model_builder.h"
#include "tests/llm/tiny_gguf.h"

namespace cppnn::testing {

// The model as ONNX bytes (the decoder's rope mode must be kNeox: rotate_half pairs i, i + n/2).
inline std::string tiny_onnx_decoder(const TinyDecoder& m) {
  const llm::DecoderConfig& c = m.config;
  const int64_t D = c.n_embd, hd = c.head_dim, H = c.n_head, KV = c.n_head_kv, G = H / KV;
  OnnxModelBuilder b(17);
  const int32_t kI64 = onnx::TensorProto_DataType_INT64, kF32 = onnx::TensorProto_DataType_FLOAT;
  b.input("input_ids", kI64, {1, -1}, {"", "sequence_length"});
  b.input("attention_mask", kI64, {1, -1}, {"", "total_sequence_length"});
  b.input("position_ids", kI64, {1, -1}, {"", "sequence_length"});
  for (uint32_t l = 0; l < c.n_layer; ++l)
    for (const char* kv : {"key", "value"})
      b.input("past_key_values." + std::to_string(l) + "." + kv, kF32, {1, KV, -1, hd},
              {"", "", "past_sequence_length", ""});
  // Weights: [out, in] transposed to MatMul's [in, out].
  auto transposed = [&](const std::string& name, const std::string& as) {
    const auto& [shape, v] = m.tensors.at(name);
    const size_t out = shape[0], in = shape[1];
    std::vector<float> t(v.size());
    for (size_t o = 0; o < out; ++o)
      for (size_t i = 0; i < in; ++i) t[i * out + o] = v[o * in + i];
    b.initializer_f32(as, t, {int64_t(in), int64_t(out)});
  };
  auto plain = [&](const std::string& name, const std::string& as) {
    const auto& [shape, v] = m.tensors.at(name);
    std::vector<int64_t> dims(shape.begin(), shape.end());
    b.initializer_f32(as, v, dims);
  };
  int counter = 0;
  auto tmp = [&] { return "t" + std::to_string(counter++); };
  auto op = [&](const std::string& type, std::vector<std::string> in) {
    const std::string out = tmp();
    b.node(type, in, {out});
    return out;
  };
  b.initializer_i64("axes_last", {-1}, {1});
  b.initializer_f32("two", {2.0f}, {});
  b.initializer_f32("eps", {c.norm_eps}, {});
  b.initializer_f32("inv_sqrt_hd", {1.0f / std::sqrt(float(hd))}, {});
  b.initializer_f32("zero_f", {0.0f}, {});
  b.initializer_f32("min_f", {std::numeric_limits<float>::lowest()}, {});
  b.initializer_i64("zero_i", {0}, {});
  b.initializer_i64("one_i", {1}, {});
  b.initializer_i64("idx1", {1}, {1});
  b.initializer_i64("idx2", {2}, {1});
  b.initializer_i64("shape_q", {1, -1, H, hd}, {4});
  b.initializer_i64("shape_kv", {1, -1, KV, hd}, {4});
  b.initializer_i64("shape_out", {1, -1, H * hd}, {3});
  b.initializer_i64("shape_rep", {1, H, -1, hd}, {4});
  b.initializer_i64("half_start", {0}, {1});
  b.initializer_i64("half_mid", {hd / 2}, {1});
  b.initializer_i64("half_end", {hd}, {1});
  // rotate_half's caches [positions, hd] (HF: emb = cat(freqs, freqs)).
  const int64_t positions = 256;
  std::vector<float> cosv(positions * hd), sinv(positions * hd);
  for (int64_t p = 0; p < positions; ++p)
    for (int64_t i = 0; i < hd / 2; ++i) {
      const double theta = double(p) * std::pow(double(c.rope_base), -2.0 * i / double(hd));
      cosv[p * hd + i] = cosv[p * hd + i + hd / 2] = float(std::cos(theta));
      sinv[p * hd + i] = sinv[p * hd + i + hd / 2] = float(std::sin(theta));
    }
  b.initializer_f32("cos_cache", cosv, {positions, hd});
  b.initializer_f32("sin_cache", sinv, {positions, hd});

  auto rms = [&](const std::string& x, const std::string& weight) {
    const std::string ms = tmp();
    auto& rm = b.node("ReduceMean", {op("Pow", {x, "two"})}, {ms});
    OnnxModelBuilder::attr_ints(rm, "axes", {-1});
    const std::string inv = op("Reciprocal", {op("Sqrt", {op("Add", {ms, "eps"})})});
    return op("Mul", {op("Mul", {x, inv}), weight});
  };
  auto unsqueeze = [&](const std::string& x, int64_t axis) {
    const std::string out = tmp(), axes = "axes_" + tmp();
    b.initializer_i64(axes, {axis}, {1});
    b.node("Unsqueeze", {x, axes}, {out});
    return out;
  };
  auto transpose = [&](const std::string& x, std::vector<int64_t> perm) {
    const std::string out = tmp();
    OnnxModelBuilder::attr_ints(b.node("Transpose", {x}, {out}), "perm", perm);
    return out;
  };
  auto slice_last = [&](const std::string& x, const char* from, const char* to) {
    return op("Slice", {x, from, to, "axes_last"});
  };
  // cos/sin [1, 1, tokens, hd] at the positions.
  const std::string cos = unsqueeze(op("Gather", {"cos_cache", "position_ids"}), 1);
  const std::string sin = unsqueeze(op("Gather", {"sin_cache", "position_ids"}), 1);
  auto rope = [&](const std::string& x) {
    const std::string x1 = slice_last(x, "half_start", "half_mid");
    const std::string x2 = slice_last(x, "half_mid", "half_end");
    const std::string rotated = tmp();
    OnnxModelBuilder::attr_int(b.node("Concat", {op("Neg", {x2}), x1}, {rotated}), "axis", -1);
    return op("Add", {op("Mul", {x, cos}), op("Mul", {rotated, sin})});
  };
  // The mask [1, 1, tokens, total]: key j visible to query i when j <= past + i and the
  // attention mask is 1 there.
  const std::string total = op("Gather", {op("Shape", {"attention_mask"}), "one_i"});
  const std::string tokens = op("Gather", {op("Shape", {"input_ids"}), "one_i"});
  const std::string past = op("Sub", {total, tokens});
  const std::string key_pos = unsqueeze(op("Range", {"zero_i", total, "one_i"}), 0);
  const std::string query_pos =
      unsqueeze(op("Add", {op("Range", {"zero_i", tokens, "one_i"}), past}), 1);
  const std::string causal = op("LessOrEqual", {key_pos, query_pos});
  const std::string padding = tmp();
  OnnxModelBuilder::attr_int(b.node("Cast", {"attention_mask"}, {padding}), "to",
                             onnx::TensorProto_DataType_BOOL);
  const std::string allowed = unsqueeze(unsqueeze(op("And", {causal, padding}), 0), 0);
  const std::string bias = op("Where", {allowed, "zero_f", "min_f"});

  plain("token_embd.weight", "embed");
  std::string x = op("Gather", {"embed", "input_ids"});
  for (uint32_t l = 0; l < c.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".", ln = std::to_string(l);
    plain(p + "attn_norm.weight", p + "ln1");
    plain(p + "ffn_norm.weight", p + "ln2");
    for (const char* w :
         {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"})
      transposed(p + w + ".weight", p + w);
    const std::string h = rms(x, p + "ln1");
    const std::string q =
        transpose(op("Reshape", {op("MatMul", {h, p + "attn_q"}), "shape_q"}), {0, 2, 1, 3});
    const std::string k =
        transpose(op("Reshape", {op("MatMul", {h, p + "attn_k"}), "shape_kv"}), {0, 2, 1, 3});
    const std::string v =
        transpose(op("Reshape", {op("MatMul", {h, p + "attn_v"}), "shape_kv"}), {0, 2, 1, 3});
    const std::string qr = rope(q), kr = rope(k);
    const std::string present_k = "present." + ln + ".key", present_v = "present." + ln + ".value";
    OnnxModelBuilder::attr_int(
        b.node("Concat", {"past_key_values." + ln + ".key", kr}, {present_k}), "axis", 2);
    OnnxModelBuilder::attr_int(
        b.node("Concat", {"past_key_values." + ln + ".value", v}, {present_v}), "axis", 2);
    // repeat_kv: [1, KV, T, hd] -> [1, KV, G, T, hd] -> [1, H, T, hd].
    auto repeat_kv = [&](const std::string& t) {
      const std::string shape5 = tmp();
      OnnxModelBuilder::attr_int(
          b.node("Concat", {"one_i_1", "kv_1", "g_1", unsqueeze(total, 0), "hd_1"}, {shape5}),
          "axis", 0);
      return op("Reshape", {op("Expand", {unsqueeze(t, 2), shape5}), "shape_rep"});
    };
    const std::string k_rep = repeat_kv(present_k), v_rep = repeat_kv(present_v);
    const std::string scores =
        op("Add",
           {op("Mul", {op("MatMul", {qr, transpose(k_rep, {0, 1, 3, 2})}), "inv_sqrt_hd"}), bias});
    const std::string probs = tmp();
    OnnxModelBuilder::attr_int(b.node("Softmax", {scores}, {probs}), "axis", -1);
    const std::string attn =
        op("Reshape", {transpose(op("MatMul", {probs, v_rep}), {0, 2, 1, 3}), "shape_out"});
    x = op("Add", {x, op("MatMul", {attn, p + "attn_output"})});
    const std::string f = rms(x, p + "ln2");
    const std::string gate = op("MatMul", {f, p + "ffn_gate"});
    const std::string act =
        op("Mul", {op("Mul", {gate, op("Sigmoid", {gate})}), op("MatMul", {f, p + "ffn_up"})});
    x = op("Add", {x, op("MatMul", {act, p + "ffn_down"})});
    b.output(present_k).output(present_v);
  }
  b.initializer_i64("one_i_1", {1}, {1});
  b.initializer_i64("kv_1", {KV}, {1});
  b.initializer_i64("g_1", {G}, {1});
  b.initializer_i64("hd_1", {hd}, {1});
  plain("output_norm.weight", "ln_f");
  transposed(c.tied_embeddings ? "token_embd.weight" : "output.weight", "lm_head");
  b.node("MatMul", {rms(x, "ln_f"), "lm_head"}, {"logits"});
  b.output("logits");
  (void)D;
  return b.bytes();
}

// A Hugging Face tokenizer.json of the tiny vocabulary: byte-level BPE with SmolLM's
// pre-tokenizer (digits split, then GPT-2's), the three control tokens as special added tokens.
inline std::string tiny_tokenizer_json() {
  const TinyVocabulary v = tiny_vocabulary();
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (size_t i = 0; i < v.tokens.size(); ++i) vocab[v.tokens[i]] = i;
  nlohmann::ordered_json added = nlohmann::ordered_json::array();
  for (int i = 0; i < 3; ++i)
    added.push_back({{"id", i},
                     {"content", v.tokens[size_t(i)]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  nlohmann::ordered_json j = {{"version", "1.0"},
                              {"truncation", nullptr},
                              {"padding", nullptr},
                              {"added_tokens", added},
                              {"normalizer", nullptr},
                              {"pre_tokenizer",
                               {{"type", "Sequence"},
                                {"pretokenizers",
                                 {{{"type", "Digits"}, {"individual_digits", true}},
                                  {{"type", "ByteLevel"},
                                   {"add_prefix_space", false},
                                   {"trim_offsets", true},
                                   {"use_regex", true}}}}}},
                              {"post_processor", nullptr},
                              {"decoder",
                               {{"type", "ByteLevel"},
                                {"add_prefix_space", true},
                                {"trim_offsets", true},
                                {"use_regex", true}}},
                              {"model",
                               {{"type", "BPE"},
                                {"dropout", nullptr},
                                {"unk_token", nullptr},
                                {"continuing_subword_prefix", nullptr},
                                {"end_of_word_suffix", nullptr},
                                {"fuse_unk", false},
                                {"byte_fallback", false},
                                {"vocab", vocab},
                                {"merges", v.merges}}}};
  return j.dump();
}

}  // namespace cppnn::testing
