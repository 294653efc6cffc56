// A tiny llama-family decoder for the language-model tests: a config, random float weights by
// llama.cpp's tensor names (in WebNN shapes, [out, in]), and a straightforward forward pass in
// double precision, written from the model's definition independently of the step graph
// (src/llm/decoder_graph.h), which the tests compare with it.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "src/llm/decoder_config.h"

namespace cppnn::testing {

struct TinyDecoder {
  llm::DecoderConfig config;
  // Tensor name -> {WebNN shape, values}.
  std::map<std::string, std::pair<std::vector<uint64_t>, std::vector<float>>> tensors;
};

// The sizes of a tiny model.
struct TinySizes {
  uint32_t embd = 32, head_dim = 8, ff = 48, vocab = 50;
};

// A random model: 2 layers, 4 query heads over 2 key/value heads of `head_dim`.
inline TinyDecoder make_tiny_decoder(const std::string& architecture = "llama", uint32_t seed = 7,
                                     TinySizes sizes = {}) {
  TinyDecoder m;
  llm::DecoderConfig& c = m.config;
  c.architecture = architecture;
  c.name = "tiny-" + architecture;
  c.n_layer = 2;
  c.n_embd = sizes.embd;
  c.n_head = 4;
  c.n_head_kv = 2;
  c.head_dim = sizes.head_dim;
  c.n_ff = sizes.ff;
  c.n_vocab = sizes.vocab;
  c.n_ctx_train = 64;
  c.norm_eps = 1e-5f;
  c.rope_mode = architecture == "qwen2" ? llm::RopeMode::kNeox : llm::RopeMode::kNormal;
  c.rope_dims = sizes.head_dim;
  c.rope_base = 10000.0f;
  c.tied_embeddings = architecture == "llama";
  c.qkv_bias = architecture == "qwen2";
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto add = [&](const std::string& name, std::vector<uint64_t> shape, float scale, float mean) {
    uint64_t n = 1;
    for (uint64_t d : shape) n *= d;
    std::vector<float> v(n);
    for (float& x : v) x = mean + scale * normal(rng);
    m.tensors[name] = {std::move(shape), std::move(v)};
  };
  const uint64_t D = c.n_embd, hd = c.head_dim;
  add("token_embd.weight", {c.n_vocab, D}, 0.5f, 0.0f);
  for (uint32_t l = 0; l < c.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", {D}, 0.1f, 1.0f);
    add(p + "attn_q.weight", {c.n_head * hd, D}, 0.2f, 0.0f);
    add(p + "attn_k.weight", {c.n_head_kv * hd, D}, 0.2f, 0.0f);
    add(p + "attn_v.weight", {c.n_head_kv * hd, D}, 0.2f, 0.0f);
    if (c.qkv_bias) {
      add(p + "attn_q.bias", {c.n_head * hd}, 0.1f, 0.0f);
      add(p + "attn_k.bias", {c.n_head_kv * hd}, 0.1f, 0.0f);
      add(p + "attn_v.bias", {c.n_head_kv * hd}, 0.1f, 0.0f);
    }
    add(p + "attn_output.weight", {D, c.n_head * hd}, 0.2f, 0.0f);
    add(p + "ffn_norm.weight", {D}, 0.1f, 1.0f);
    add(p + "ffn_gate.weight", {c.n_ff, D}, 0.2f, 0.0f);
    add(p + "ffn_up.weight", {c.n_ff, D}, 0.2f, 0.0f);
    add(p + "ffn_down.weight", {D, c.n_ff}, 0.2f, 0.0f);
  }
  add("output_norm.weight", {D}, 0.1f, 1.0f);
  if (!c.tied_embeddings) add("output.weight", {c.n_vocab, D}, 0.2f, 0.0f);
  return m;
}

// sqrt(sum (got - want)^2 / sum want^2): how far a run's logits are from the reference's.
inline double relative_l2(std::span<const float> got, std::span<const double> want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

// The logits [tokens.size(), vocabulary] of the model on `tokens` at positions 0.., each
// position attending to itself and the ones before it; double precision throughout, angles
// p * base^(-2i/n) for the rotated pairs of the rope mode.
inline std::vector<double> tiny_decoder_logits(const TinyDecoder& m,
                                               const std::vector<int32_t>& tokens) {
  const llm::DecoderConfig& c = m.config;
  const size_t T = tokens.size(), D = c.n_embd, hd = c.head_dim, H = c.n_head, KV = c.n_head_kv,
               G = H / KV, F = c.n_ff, V = c.n_vocab;
  auto w = [&](const std::string& name) -> const std::vector<float>& {
    return m.tensors.at(name).second;
  };
  // y[o] = sum_i W[o][i] x[i] (+ b[o]).
  auto linear = [&](const std::vector<double>& x, const std::string& name, size_t out,
                    const std::string& bias) {
    const std::vector<float>& W = w(name);
    const size_t in = x.size();
    std::vector<double> y(out, 0.0);
    for (size_t o = 0; o < out; ++o) {
      double s = bias.empty() ? 0.0 : w(bias)[o];
      for (size_t i = 0; i < in; ++i) s += double(W[o * in + i]) * x[i];
      y[o] = s;
    }
    return y;
  };
  auto rms = [&](const std::vector<double>& x, const std::string& name) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double inv = 1.0 / std::sqrt(ss / double(x.size()) + c.norm_eps);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * w(name)[i];
    return y;
  };
  auto rope = [&](std::vector<double>& v, size_t heads, size_t pos) {
    const size_t half = c.rope_dims / 2;
    for (size_t h = 0; h < heads; ++h)
      for (size_t i = 0; i < half; ++i) {
        const double theta = double(pos) * std::pow(double(c.rope_base), -2.0 * i / c.rope_dims);
        const size_t a = c.rope_mode == llm::RopeMode::kNormal ? 2 * i : i;
        const size_t b = c.rope_mode == llm::RopeMode::kNormal ? 2 * i + 1 : i + half;
        const double x0 = v[h * hd + a], x1 = v[h * hd + b];
        v[h * hd + a] = x0 * std::cos(theta) - x1 * std::sin(theta);
        v[h * hd + b] = x0 * std::sin(theta) + x1 * std::cos(theta);
      }
  };
  std::vector<std::vector<double>> x(T, std::vector<double>(D));
  for (size_t t = 0; t < T; ++t)
    for (size_t i = 0; i < D; ++i) x[t][i] = w("token_embd.weight")[size_t(tokens[t]) * D + i];
  for (uint32_t l = 0; l < c.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    auto b = [&](const char* what) { return c.qkv_bias ? p + what + ".bias" : std::string(); };
    std::vector<std::vector<double>> q(T), k(T), v(T);
    for (size_t t = 0; t < T; ++t) {
      const std::vector<double> h = rms(x[t], p + "attn_norm.weight");
      q[t] = linear(h, p + "attn_q.weight", H * hd, b("attn_q"));
      k[t] = linear(h, p + "attn_k.weight", KV * hd, b("attn_k"));
      v[t] = linear(h, p + "attn_v.weight", KV * hd, b("attn_v"));
      rope(q[t], H, t);
      rope(k[t], KV, t);
    }
    for (size_t t = 0; t < T; ++t) {
      std::vector<double> o(H * hd, 0.0);
      for (size_t h = 0; h < H; ++h) {
        const size_t g = h / G;
        std::vector<double> s(t + 1);
        double mx = -1e300;
        for (size_t j = 0; j <= t; ++j) {
          double d = 0;
          for (size_t i = 0; i < hd; ++i) d += q[t][h * hd + i] * k[j][g * hd + i];
          s[j] = d / std::sqrt(double(hd));
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (size_t j = 0; j <= t; ++j)
          for (size_t i = 0; i < hd; ++i) o[h * hd + i] += s[j] / sum * v[j][g * hd + i];
      }
      const std::vector<double> a = linear(o, p + "attn_output.weight", D, "");
      for (size_t i = 0; i < D; ++i) x[t][i] += a[i];
      const std::vector<double> h = rms(x[t], p + "ffn_norm.weight");
      const std::vector<double> gate = linear(h, p + "ffn_gate.weight", F, "");
      const std::vector<double> up = linear(h, p + "ffn_up.weight", F, "");
      std::vector<double> act(F);
      for (size_t i = 0; i < F; ++i) act[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
      const std::vector<double> down = linear(act, p + "ffn_down.weight", D, "");
      for (size_t i = 0; i < D; ++i) x[t][i] += down[i];
    }
  }
  std::vector<double> logits;
  const std::string head = c.tied_embeddings ? "token_embd.weight" : "output.weight";
  for (size_t t = 0; t < T; ++t) {
    const std::vector<double> h = rms(x[t], "output_norm.weight");
    const std::vector<double> y = linear(h, head, V, "");
    logits.insert(logits.end(), y.begin(), y.end());
  }
  return logits;
}

// How far greedy decoding strayed from the forward pass: for each of `generated` (continuing
// `context`) that is not the reference's most likely token, the gap between the two tokens'
// reference logits (0 where the token is the most likely one).
inline std::vector<double> greedy_gaps(const TinyDecoder& m, std::vector<int32_t> context,
                                       const std::vector<int32_t>& generated) {
  std::vector<double> gaps;
  const size_t V = m.config.n_vocab;
  for (int32_t token : generated) {
    const std::vector<double> logits = tiny_decoder_logits(m, context);
    const double* last = logits.data() + logits.size() - V;
    const double best = *std::max_element(last, last + V);
    gaps.push_back(best - last[static_cast<size_t>(token)]);
    context.push_back(token);
  }
  return gaps;
}

}  // namespace cppnn::testing
