// The llama-family step graph (see decoder_graph.h).
#include "src/llm/decoder_graph.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "cppnn/dynamic_dims.h"
#include "cppnn/errors.h"
#include "src/api/states.h"

namespace cppnn::llm {
namespace {

using gguf::WebnnWeight;
using D = MLOperandDataType;
using Dims = std::vector<uint32_t>;

ErrorInfo model_error(const std::string& what) {
  return ErrorInfo{ErrorKind::kDataError, what};
}

// The recorder: the builder, the token dimension's name, constants named after their tensors.
class StepRecorder {
 public:
  StepRecorder(MLGraphBuilder& b, const DecoderConfig& c, DecoderWeights& w,
               const StepGraphOptions& o)
      : b_(b), c_(c), w_(w), o_(o) {}

  Result<DecoderStep> record();

 private:
  // A name for a constant operand, so that saved graphs name their weights like the model.
  void name_constant(const MLOperand& o, const std::string& name) {
    b_.state()->graph.operands[o.id().value].name = name;
  }
  // A constant viewing bytes kept alive by `owner`.
  template <class Owner>
  MLOperand view_constant(const MLOperandDescriptor& d, std::shared_ptr<Owner> owner,
                          std::span<const std::byte> bytes, const std::string& name) {
    MLOperand o = b_.constant_view(d, std::move(owner), bytes);
    name_constant(o, name);
    return o;
  }
  MLOperand float_constant(const Dims& shape, std::vector<float> values, const std::string& name) {
    auto owner = std::make_shared<std::vector<float>>(std::move(values));
    std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(owner->data()),
                                     owner->size() * sizeof(float));
    return view_constant({D::kFloat32, shape}, owner, bytes, name);
  }
  // Marks element `index` of `field` of the operation that made `o` as `expr` of the token
  // dimension ("seq", "3*seq").
  MLOperand sym(MLOperand o, const char* field, uint32_t index, const std::string& expr) {
    set_symbolic_size(b_, o, field, index, expr);
    return o;
  }
  std::string times_seq(uint32_t k) const { return k == 1 ? kSeq : std::to_string(k) + "*" + kSeq; }
  MLOperand reshape(const MLOperand& x, Dims shape, const std::string& label,
                    std::vector<std::pair<uint32_t, uint32_t>> seq_dims) {
    MLOperand r = b_.reshape(x, std::move(shape), {.label = label});
    for (auto [index, k] : seq_dims) sym(r, "newShape", index, times_seq(k));
    return r;
  }

  Result<const WebnnWeight*> required(const std::string& name) {
    auto w = w_.find(name);
    if (!w) return w.error();
    if (*w == nullptr) return model_error(str_cat("the model has no tensor `", name, "`"));
    return *w;
  }
  static Result<Dims> dims_of(const WebnnWeight& w, const std::string& name) {
    Dims d;
    for (uint64_t v : w.shape) {
      if (v == 0 || v > std::numeric_limits<uint32_t>::max())
        return model_error(str_cat("tensor `", name, "`: dimension ", v, " is out of range"));
      d.push_back(static_cast<uint32_t>(v));
    }
    return d;
  }
  Status check_shape(const WebnnWeight& w, const std::string& name, const Dims& expected) {
    auto d = dims_of(w, name);
    if (!d) return d.error();
    if (*d != expected)
      return model_error(str_cat("tensor `", name, "` has shape ", shape_to_string(*d),
                                 ", the model's hyper-parameters need ",
                                 shape_to_string(expected)));
    return Ok{};
  }
  void note(const WebnnWeight& w) {
    if (!w.note.empty()) ++note_counts_[w.note];
  }

  // A weight as a float32 operand of its WebNN shape: floats as they are (float16 cast), block-
  // quantized ones dequantized where used: dequantizeLinear over [rows, blocks, block] with
  // per-block scales (+ the per-block offset), reshaped back.
  Result<MLOperand> weight(const std::string& name, const Dims& expected);
  // Rows `ids` ([tokens] int32) of the embedding matrix `w` [vocabulary, D] as float32
  // [tokens, D]: the integers and their blocks' scales and offsets gathered, then the same
  // arithmetic as dequantizeLinear (cast, multiply, add), so only the looked-up rows are expanded.
  Result<MLOperand> embedding_rows(const WebnnWeight& w, const std::string& name,
                                   const MLOperand& ids);
  // x [tokens, in] times weight `name` [out, in] transposed (+ bias `bias_name`): [tokens, out].
  Result<MLOperand> linear(const MLOperand& x, const std::string& name, uint32_t out, uint32_t in,
                           const std::string& bias_name = {});
  // RMSNorm over the last axis of x [tokens, D] with weight `name` [D] (ggml's rms_norm: x times
  // 1 / sqrt(mean(x^2) + eps), then the weight).
  Result<MLOperand> rms_norm(const MLOperand& x, const std::string& name, const std::string& label);
  // Rotary embedding of x [tokens, heads, head_dim]: x * cos + (x R) * sin, R the constant
  // rotation of the rope mode (exact: one +-1 per column).
  MLOperand rope(const MLOperand& x, const std::string& label);
  Status layer(uint32_t l);

  static constexpr const char* kSeq = "seq";
  MLGraphBuilder& b_;
  const DecoderConfig& c_;
  DecoderWeights& w_;
  const StepGraphOptions& o_;
  std::map<std::string, uint32_t> note_counts_;
  std::map<std::string, MLOperand> weights_;  // by tensor name: each recorded once
  // The constants of a block-quantized tensor, [rows, blocks, block] and [rows, blocks, 1], shared
  // by every use of the tensor (the tied embedding is looked up and multiplied).
  struct QuantizedPieces {
    MLOperand q, scale, offset;  // offset null when the kind has none
  };
  std::map<std::string, QuantizedPieces> pieces_;
  QuantizedPieces& pieces(const WebnnWeight& w, const std::string& name, uint32_t rows,
                          uint32_t cols);
  std::map<std::string, MLOperand> float_tables_;  // float weights by tensor name
  MLOperand float_table(const WebnnWeight& w, const std::string& name, const Dims& shape);

  MLOperand x_;  // the residual stream [tokens, D]
  MLOperand cos_, sin_, rotation_, cache_mask_, causal_, scale_;
  MLNamedOperands outputs_;
  StepInterface interface_;
};

StepRecorder::QuantizedPieces& StepRecorder::pieces(const WebnnWeight& w, const std::string& name,
                                                    uint32_t rows, uint32_t cols) {
  auto it = pieces_.find(name);
  if (it != pieces_.end()) return it->second;
  const uint32_t blocks = cols / w.block;
  const Dims s_shape = {rows, blocks, 1};
  note(w);
  QuantizedPieces p;
  auto q_owner = std::make_shared<ConstantData>(w.q);
  p.q = view_constant({w.q_type, {rows, blocks, w.block}}, q_owner, q_owner->bytes(), name + ".q");
  p.scale = float_constant(s_shape, w.scale, name + ".scale");
  if (!w.offset.empty()) p.offset = float_constant(s_shape, w.offset, name + ".offset");
  return pieces_.emplace(name, p).first->second;
}

MLOperand StepRecorder::float_table(const WebnnWeight& w, const std::string& name,
                                    const Dims& shape) {
  auto it = float_tables_.find(name);
  if (it != float_tables_.end()) return it->second;
  note(w);
  auto owner = std::make_shared<ConstantData>(w.values);
  MLOperand t = view_constant({w.float_type, shape}, owner, owner->bytes(), name);
  float_tables_.emplace(name, t);
  return t;
}

Result<MLOperand> StepRecorder::weight(const std::string& name, const Dims& expected) {
  if (auto it = weights_.find(name); it != weights_.end()) return it->second;
  auto w = required(name);
  if (!w) return w.error();
  const WebnnWeight& wt = **w;
  CPPNN_RETURN_IF_ERROR(check_shape(wt, name, expected));
  MLOperand result;
  if (wt.form == WebnnWeight::Form::kFloat) {
    result = float_table(wt, name, expected);
    if (wt.float_type != D::kFloat32) result = b_.cast(result, D::kFloat32, {.label = name});
  } else {
    const uint32_t cols = expected.back();
    if (wt.block == 0 || cols % wt.block != 0)
      return model_error(
          str_cat("tensor `", name, "`: block ", wt.block, " does not divide ", cols));
    uint64_t rows = 1;
    for (size_t i = 0; i + 1 < expected.size(); ++i) rows *= expected[i];
    const QuantizedPieces& p = pieces(wt, name, static_cast<uint32_t>(rows), cols);
    MLOperand zero = b_.constant_fill({wt.q_type, p.scale.shape()}, 0);
    result = b_.dequantizeLinear(p.q, p.scale, zero, {.label = name});
    if (!p.offset.is_null()) result = b_.add(result, p.offset, {.label = name});
    result = b_.reshape(result, expected, {.label = name});
  }
  weights_[name] = result;
  return result;
}

Result<MLOperand> StepRecorder::embedding_rows(const WebnnWeight& w, const std::string& name,
                                               const MLOperand& ids) {
  const uint32_t d = c_.n_embd;
  if (w.form == WebnnWeight::Form::kFloat) {
    MLOperand rows = b_.gather(float_table(w, name, {c_.n_vocab, d}), ids, {.label = "token_embd"});
    if (w.float_type != D::kFloat32) rows = b_.cast(rows, D::kFloat32, {.label = "token_embd"});
    return rows;
  }
  if (w.block == 0 || d % w.block != 0)
    return model_error(str_cat("tensor `", name, "`: block ", w.block, " does not divide ", d));
  const QuantizedPieces& p = pieces(w, name, c_.n_vocab, d);
  MLOperand rows =
      b_.cast(b_.gather(p.q, ids, {.label = "token_embd"}), D::kFloat32, {.label = "token_embd"});
  rows = b_.mul(rows, b_.gather(p.scale, ids, {.label = "token_embd"}), {.label = "token_embd"});
  if (!p.offset.is_null())
    rows = b_.add(rows, b_.gather(p.offset, ids, {.label = "token_embd"}), {.label = "token_embd"});
  return reshape(rows, {o_.chunk, d}, "token_embd", {{0, 1}});
}

Result<MLOperand> StepRecorder::linear(const MLOperand& x, const std::string& name, uint32_t out,
                                       uint32_t in, const std::string& bias_name) {
  auto w = weight(name, {out, in});
  if (!w) return w.error();
  MLGemmOptions options{.bTranspose = true, .label = name};
  if (!bias_name.empty()) {
    auto bias = weight(bias_name, {out});
    if (!bias) return bias.error();
    options.c = *bias;
  }
  return b_.gemm(x, *w, options);
}

Result<MLOperand> StepRecorder::rms_norm(const MLOperand& x, const std::string& name,
                                         const std::string& label) {
  auto w = weight(name, {c_.n_embd});
  if (!w) return w.error();
  MLOperand mean =
      b_.reduceMean(b_.mul(x, x, {.label = label}),
                    {.axes = std::vector<uint32_t>{1}, .keepDimensions = true, .label = label});
  MLOperand eps = b_.constant(D::kFloat32, c_.norm_eps);
  MLOperand inv = b_.reciprocal(b_.sqrt(b_.add(mean, eps, {.label = label}), {.label = label}),
                                {.label = label});
  return b_.mul(b_.mul(x, inv, {.label = label}), *w, {.label = label});
}

MLOperand StepRecorder::rope(const MLOperand& x, const std::string& label) {
  MLOperand rotated = b_.matmul(x, rotation_, {.label = label});
  return b_.add(b_.mul(x, cos_, {.label = label}), b_.mul(rotated, sin_, {.label = label}),
                {.label = label});
}

Status StepRecorder::layer(uint32_t l) {
  const std::string p = "blk." + std::to_string(l) + ".";
  const uint32_t S = o_.chunk, C = o_.capacity, hd = c_.head_dim, kv = c_.n_head_kv;
  const uint32_t nh = c_.n_head, G = c_.group_size();

  auto h = rms_norm(x_, p + "attn_norm.weight", p + "attn_norm");
  if (!h) return h.error();
  auto bias = [&](const char* what) { return c_.qkv_bias ? p + what + ".bias" : std::string(); };
  auto q = linear(*h, p + "attn_q.weight", nh * hd, c_.n_embd, bias("attn_q"));
  if (!q) return q.error();
  auto k = linear(*h, p + "attn_k.weight", kv * hd, c_.n_embd, bias("attn_k"));
  if (!k) return k.error();
  auto v = linear(*h, p + "attn_v.weight", kv * hd, c_.n_embd, bias("attn_v"));
  if (!v) return v.error();

  const std::string attn = p + "attn";
  MLOperand q3 = rope(reshape(*q, {S, nh, hd}, attn, {{0, 1}}), p + "rope_q");
  MLOperand k3 = rope(reshape(*k, {S, kv, hd}, attn, {{0, 1}}), p + "rope_k");
  MLOperand v3 = reshape(*v, {S, kv, hd}, attn, {{0, 1}});

  // Everything at rank 4 with a leading 1, so that the cache inputs are multiplied as they are
  // bound (no reshape of them). Queries grouped by their key/value head: [1, kv, G * tokens, hd]
  // (head h = kv * G + g); the step's keys transposed [1, kv, hd, tokens] and values
  // [1, kv, tokens, hd] are also the present outputs.
  MLOperand qg = reshape(b_.transpose(q3, {.permutation = Dims{1, 0, 2}, .label = attn}),
                         {1, kv, G * S, hd}, attn, {{2, G}});
  MLOperand kt = reshape(b_.transpose(k3, {.permutation = Dims{1, 2, 0}, .label = attn}),
                         {1, kv, hd, S}, attn, {{3, 1}});
  MLOperand vt = reshape(b_.transpose(v3, {.permutation = Dims{1, 0, 2}, .label = attn}),
                         {1, kv, S, hd}, attn, {{2, 1}});
  const std::string ln = std::to_string(l);
  outputs_["present." + ln + ".key"] = kt;
  outputs_["present." + ln + ".value"] = vt;

  const std::string past_k = "past_key_values." + ln + ".key";
  const std::string past_v = "past_key_values." + ln + ".value";
  MLOperand kc = b_.input(past_k, {D::kFloat32, {1, kv, hd, C}});
  MLOperand vc = b_.input(past_v, {D::kFloat32, {1, kv, C, hd}});
  interface_.cache.push_back({past_k, "present." + ln + ".key", 3, 0});
  interface_.cache.push_back({past_v, "present." + ln + ".value", 2, 0});

  // Scores against the cache [1, kv, G*S, C] and against the step's own tokens [1, kv, G*S, S],
  // each scaled by 1/sqrt(hd) and masked, then one softmax over both.
  MLOperand sc = b_.add(b_.mul(b_.matmul(qg, kc, {.label = attn}), scale_, {.label = attn}),
                        cache_mask_, {.label = attn});
  MLOperand sn =
      reshape(b_.matmul(qg, kt, {.label = attn}), {1, kv, G, S, S}, attn, {{3, 1}, {4, 1}});
  sn = b_.add(b_.mul(sn, scale_, {.label = attn}), causal_, {.label = attn});
  sn = reshape(sn, {1, kv, G * S, S}, attn, {{2, G}, {3, 1}});
  MLOperand probs = b_.softmax(b_.concat({sc, sn}, 3, {.label = attn}), 3, {.label = attn});
  MLOperand pc = sym(b_.slice(probs, {0, 0, 0, 0}, {1, kv, G * S, C}, {.label = attn}), "sizes", 2,
                     times_seq(G));
  MLOperand pn = b_.slice(probs, {0, 0, 0, C}, {1, kv, G * S, S}, {.label = attn});
  sym(pn, "sizes", 2, times_seq(G));
  sym(pn, "sizes", 3, kSeq);
  MLOperand o = b_.add(b_.matmul(pc, vc, {.label = attn}), b_.matmul(pn, vt, {.label = attn}),
                       {.label = attn});
  o = reshape(o, {nh, S, hd}, attn, {{1, 1}});
  o = reshape(b_.transpose(o, {.permutation = Dims{1, 0, 2}, .label = attn}), {S, nh * hd}, attn,
              {{0, 1}});
  auto out = linear(o, p + "attn_output.weight", c_.n_embd, nh * hd);
  if (!out) return out.error();
  x_ = b_.add(x_, *out, {.label = p + "attn_residual"});

  auto f = rms_norm(x_, p + "ffn_norm.weight", p + "ffn_norm");
  if (!f) return f.error();
  auto gate = linear(*f, p + "ffn_gate.weight", c_.n_ff, c_.n_embd);
  if (!gate) return gate.error();
  auto up = linear(*f, p + "ffn_up.weight", c_.n_ff, c_.n_embd);
  if (!up) return up.error();
  const std::string ffn = p + "ffn";
  MLOperand act =
      b_.mul(b_.mul(*gate, b_.sigmoid(*gate, {.label = ffn}), {.label = ffn}), *up, {.label = ffn});
  auto down = linear(act, p + "ffn_down.weight", c_.n_embd, c_.n_ff);
  if (!down) return down.error();
  x_ = b_.add(x_, *down, {.label = p + "ffn_residual"});
  return Ok{};
}

Result<DecoderStep> StepRecorder::record() {
  const uint32_t S = o_.chunk, C = o_.capacity, hd = c_.head_dim;
  interface_.capacity = C;
  interface_.chunk = S;

  MLOperand ids = dynamic_input(b_, interface_.input_ids, {D::kInt32, {1, S}}, {"", kSeq});
  MLOperand positions = dynamic_input(b_, interface_.position_ids, {D::kInt32, {1, S}}, {"", kSeq});
  MLOperand mask = b_.input(interface_.mask, {D::kFloat32, {1, C}});
  cache_mask_ = b_.reshape(mask, {1, 1, 1, C}, {.label = "cache_mask"});
  MLOperand flat_ids = reshape(ids, {S}, "input_ids", {{0, 1}});
  MLOperand flat_positions = reshape(positions, {S}, "position_ids", {{0, 1}});

  // Rotary tables gathered at the positions: [tokens, 1, hd], shared by every layer.
  std::vector<float> cos_table, sin_table;
  rope_tables(c_, C, cos_table, sin_table);
  MLOperand cos_all = float_constant({C, hd}, std::move(cos_table), "rope.cos");
  MLOperand sin_all = float_constant({C, hd}, std::move(sin_table), "rope.sin");
  cos_ =
      reshape(b_.gather(cos_all, flat_positions, {.label = "rope"}), {S, 1, hd}, "rope", {{0, 1}});
  sin_ =
      reshape(b_.gather(sin_all, flat_positions, {.label = "rope"}), {S, 1, hd}, "rope", {{0, 1}});
  std::vector<float> rotation(size_t{hd} * hd, 0.0f);
  const uint32_t half = c_.rope_dims / 2;
  for (uint32_t i = 0; i < half; ++i) {
    // (x R)[a] = -x[b], (x R)[b] = x[a] for the pair (a, b): R[b][a] = -1, R[a][b] = 1.
    const uint32_t a = c_.rope_mode == RopeMode::kNormal ? 2 * i : i;
    const uint32_t bb = c_.rope_mode == RopeMode::kNormal ? 2 * i + 1 : i + half;
    rotation[size_t{bb} * hd + a] = -1.0f;
    rotation[size_t{a} * hd + bb] = 1.0f;
  }
  rotation_ = float_constant({hd, hd}, std::move(rotation), "rope.rotation");

  // Causal mask among the step's tokens: [tokens, tokens] of a [chunk, chunk] constant.
  std::vector<float> causal(size_t{S} * S, 0.0f);
  for (uint32_t i = 0; i < S; ++i)
    for (uint32_t j = i + 1; j < S; ++j)
      causal[size_t{i} * S + j] = -std::numeric_limits<float>::infinity();
  causal_ = b_.slice(float_constant({S, S}, std::move(causal), "attn.causal_mask"), {0, 0}, {S, S},
                     {.label = "causal_mask"});
  sym(causal_, "sizes", 0, kSeq);
  sym(causal_, "sizes", 1, kSeq);
  scale_ = b_.constant(D::kFloat32, 1.0f / std::sqrt(static_cast<float>(hd)));

  auto embd = required("token_embd.weight");
  if (!embd) return embd.error();
  CPPNN_RETURN_IF_ERROR(check_shape(**embd, "token_embd.weight", {c_.n_vocab, c_.n_embd}));
  auto x = embedding_rows(**embd, "token_embd.weight", flat_ids);
  if (!x) return x.error();
  x_ = *x;
  for (uint32_t l = 0; l < c_.n_layer; ++l) CPPNN_RETURN_IF_ERROR(layer(l));

  auto norm = rms_norm(x_, "output_norm.weight", "output_norm");
  if (!norm) return norm.error();
  // The vocabulary projection of the row logits_index names only (the last token's):
  // [1, n_embd] -> [1, 1, vocabulary].
  interface_.logits_index = "logits_index";
  MLOperand index = b_.input(interface_.logits_index, {D::kInt32, {1}});
  MLOperand last = b_.gather(*norm, index, {.axis = 0, .label = "logits_row"});
  const std::string head = c_.tied_embeddings ? "token_embd.weight" : "output.weight";
  auto logits = linear(last, head, c_.n_vocab, c_.n_embd);
  if (!logits) return logits.error();
  outputs_[interface_.logits] = b_.reshape(*logits, {1, 1, c_.n_vocab}, {.label = "logits"});

  DecoderStep step;
  step.outputs = std::move(outputs_);
  step.interface = std::move(interface_);
  for (const auto& [text, count] : note_counts_)
    step.notes.push_back(str_cat(text, ": ", count, count == 1 ? " tensor" : " tensors"));
  return step;
}

}  // namespace

void rope_tables(const DecoderConfig& config, uint32_t capacity, std::vector<float>& cos_table,
                 std::vector<float>& sin_table) {
  const uint32_t hd = config.head_dim, n = config.rope_dims, half = n / 2;
  cos_table.assign(size_t{capacity} * hd, 1.0f);
  sin_table.assign(size_t{capacity} * hd, 0.0f);
  const float theta_scale = std::pow(config.rope_base, -2.0f / static_cast<float>(n));
  for (uint32_t p = 0; p < capacity; ++p) {
    float theta = static_cast<float>(p);
    for (uint32_t i = 0; i < half; ++i) {
      const float ff = i < config.rope_freq_factors.size() ? config.rope_freq_factors[i] : 1.0f;
      const float angle = config.rope_freq_scale * (theta / ff);
      const float c = std::cos(angle), s = std::sin(angle);
      const uint32_t a = config.rope_mode == RopeMode::kNormal ? 2 * i : i;
      const uint32_t b = config.rope_mode == RopeMode::kNormal ? 2 * i + 1 : i + half;
      for (uint32_t col : {a, b}) {
        cos_table[size_t{p} * hd + col] = c;
        sin_table[size_t{p} * hd + col] = s;
      }
      theta *= theta_scale;
    }
  }
}

Result<DecoderStep> build_decoder_step(MLGraphBuilder& builder, const DecoderConfig& config,
                                       DecoderWeights& weights, const StepGraphOptions& options) {
  if (options.capacity == 0 || options.chunk == 0 || options.chunk > options.capacity)
    return model_error(str_cat("step graph sizes: capacity ", options.capacity, " and chunk ",
                               options.chunk, " (need 1 <= chunk <= capacity)"));
  if (config.n_head_kv == 0 || config.n_head % config.n_head_kv != 0 || config.head_dim == 0 ||
      config.rope_dims > config.head_dim || config.rope_dims % 2 != 0)
    return model_error(str_cat("model `", config.name, "`: inconsistent attention sizes (",
                               config.n_head, " heads, ", config.n_head_kv, " key/value heads, ",
                               config.head_dim, " per head, ", config.rope_dims, " rotated)"));
  try {
    return StepRecorder(builder, config, weights, options).record();
  } catch (const Error& e) {
    // A builder check failed: the hyper-parameters and the tensors disagree.
    return ErrorInfo{ErrorKind::kDataError, str_cat("model `", config.name, "`: ", e.what())};
  }
}

}  // namespace cppnn::llm
