// The step graph of a llama-family decoder (src/llm/decoder_graph.h) driven by the step runner
// (src/llm/step_runner.h) on every compiled-in backend: prefill chunks and decode steps against
// the fixed-capacity cache give the logits of a plain double-precision forward pass
// (tiny_decoder.h); the decode step compiles once; quantized weight forms; bad models.
#include "src/llm/decoder_graph.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "src/llm/step_runner.h"
#include "tests/llm/tiny_decoder.h"

namespace cppnn::testing {
namespace {

using gguf::WebnnWeight;

// The tiny model's tensors as WebNN weight forms: float32, or (for the names in `quantized`)
// int8 blocks of 16 with float32 scales, the model's values replaced by the dequantized ones.
class TinyWeights : public llm::DecoderWeights {
 public:
  TinyWeights(TinyDecoder& m, const std::vector<std::string>& quantized) {
    for (auto& [name, t] : m.tensors) {
      WebnnWeight w;
      w.shape = t.first;
      std::vector<float>& v = t.second;
      if (std::find(quantized.begin(), quantized.end(), name) != quantized.end()) {
        w.form = WebnnWeight::Form::kBlockQuantized;
        w.q_type = MLOperandDataType::kInt8;
        w.block = 16;
        std::vector<int8_t> q(v.size());
        for (size_t b = 0; b < v.size() / 16; ++b) {
          float mx = 0;
          for (size_t i = 0; i < 16; ++i) mx = std::max(mx, std::abs(v[b * 16 + i]));
          const float s = mx > 0 ? mx / 127.0f : 1.0f;
          w.scale.push_back(s);
          for (size_t i = 0; i < 16; ++i) {
            q[b * 16 + i] = static_cast<int8_t>(std::lround(v[b * 16 + i] / s));
            v[b * 16 + i] = float(q[b * 16 + i]) * s;
          }
        }
        w.q = ConstantData::copy_of(std::as_bytes(std::span(q)));
        w.note = "int8 per 16";
      } else {
        w.float_type = MLOperandDataType::kFloat32;
        w.values = ConstantData::copy_of(std::as_bytes(std::span(v)));
      }
      weights_[name] = std::move(w);
    }
  }
  Result<const WebnnWeight*> find(const std::string& name) override {
    auto it = weights_.find(name);
    return it == weights_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, WebnnWeight> weights_;
};

struct Case {
  std::string architecture;
  std::vector<std::string> quantized;
};

class DecoderGraphTest : public ::testing::TestWithParam<std::string> {};

// Runs `tokens` through the model (prefill in chunks of `chunk`, the rest one token at a time)
// and checks the logits of each prefill chunk's last token and of every decoded position against
// the double-precision forward pass.
void check_model(const std::string& backend, const Case& c, uint32_t chunk, size_t prefill_tokens,
                 size_t total_tokens) {
  SCOPED_TRACE(backend + " " + c.architecture);
  TinyDecoder model = make_tiny_decoder(c.architecture);
  TinyWeights weights(model, c.quantized);
  std::vector<int32_t> tokens;
  for (size_t i = 0; i < total_tokens; ++i)
    tokens.push_back(static_cast<int32_t>((i * 17 + 3) % 50));
  const std::vector<double> want = tiny_decoder_logits(model, tokens);

  detail::LanguageModelState st(MLContext::create({.backend = backend}));
  MLGraphBuilder builder(st.context);
  auto step =
      llm::build_decoder_step(builder, model.config, weights, {.capacity = 16, .chunk = chunk});
  ASSERT_TRUE(step.ok()) << step.error().message;
  st.prefill = st.decode = builder.build(step->outputs);
  st.interface = step->interface;
  const uint64_t compiled_at_build = st.context.state()->compilations.load();
  EXPECT_EQ(compiled_at_build, 1u);

  std::vector<MLTensor> cache = llm::make_cache(st);
  auto prefill = llm::make_step_tensors(st, *st.prefill, chunk, cache);
  auto decode = llm::make_step_tensors(st, *st.decode, 1, cache);
  const size_t V = model.config.n_vocab;
  size_t position = 0;
  // A prefill step projects its last token alone onto the vocabulary (logits_index); asking it
  // for every position's logits is an error (the generator runs such tokens one per step).
  ASSERT_FALSE(st.interface.logits_index.empty());
  EXPECT_THROW(llm::run_step(st, *prefill, cache, std::span(tokens).subspan(0, 2), 0, true),
               DataError);
  while (position < prefill_tokens) {
    const size_t n = std::min<size_t>(chunk, prefill_tokens - position);
    std::vector<float> got =
        llm::run_step(st, *prefill, cache, std::span(tokens).subspan(position, n),
                      static_cast<uint32_t>(position), false);
    ASSERT_EQ(got.size(), V);
    EXPECT_LT(relative_l2(got, std::span(want).subspan((position + n - 1) * V, V)), 2e-5)
        << "prefill position " << position + n - 1;
    position += n;
  }
  for (; position < total_tokens; ++position) {
    std::vector<float> got =
        llm::run_step(st, *decode, cache, std::span(tokens).subspan(position, 1),
                      static_cast<uint32_t>(position), false);
    ASSERT_EQ(got.size(), V);
    EXPECT_LT(relative_l2(got, std::span(want).subspan(position * V, V)), 2e-5)
        << "decode position " << position;
  }
  // The decode size compiled once, whatever the number of decode steps.
  EXPECT_EQ(st.context.state()->compilations.load(), compiled_at_build + 1);
}

TEST_P(DecoderGraphTest, LlamaMatchesTheForwardPass) {
  check_model(GetParam(), {"llama", {}}, 4, 6, 10);
}

TEST_P(DecoderGraphTest, Qwen2WithBiasesAndNeoxRope) {
  check_model(GetParam(), {"qwen2", {}}, 3, 5, 8);
}

TEST_P(DecoderGraphTest, QuantizedWeightsAndEmbedding) {
  check_model(GetParam(),
              {"llama",
               {"token_embd.weight", "blk.0.attn_q.weight", "blk.1.ffn_down.weight",
                "blk.0.ffn_up.weight"}},
              4, 4, 7);
}

INSTANTIATE_TEST_SUITE_P(Backends, DecoderGraphTest, ::testing::ValuesIn(available_backends(false)),
                         [](const auto& info) { return info.param; });

TEST(DecoderGraph, MissingAndMisshapenTensorsAreNamed) {
  TinyDecoder model = make_tiny_decoder("llama");
  model.tensors.erase("blk.1.ffn_up.weight");
  TinyWeights weights(model, {});
  MLGraphBuilder builder(MLContext::create({.backend = "reference"}));
  auto step = llm::build_decoder_step(builder, model.config, weights, {.capacity = 8, .chunk = 2});
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().message.find("blk.1.ffn_up.weight"), std::string::npos);

  TinyDecoder bad = make_tiny_decoder("llama");
  bad.tensors["blk.0.attn_k.weight"].first = {8, 32};
  bad.tensors["blk.0.attn_k.weight"].second.resize(8 * 32);
  TinyWeights bad_weights(bad, {});
  MLGraphBuilder builder2(MLContext::create({.backend = "reference"}));
  auto step2 =
      llm::build_decoder_step(builder2, bad.config, bad_weights, {.capacity = 8, .chunk = 2});
  ASSERT_FALSE(step2.ok());
  EXPECT_NE(step2.error().message.find("blk.0.attn_k.weight"), std::string::npos);
  EXPECT_NE(step2.error().message.find("[16,32]"), std::string::npos) << step2.error().message;
}

TEST(DecoderGraph, RopeTablesFollowGgml) {
  llm::DecoderConfig c = make_tiny_decoder("llama").config;
  std::vector<float> cos_t, sin_t;
  llm::rope_tables(c, 5, cos_t, sin_t);
  // Position 3, pair 1 (dims 2 and 3): theta = 3 * base^(-2/8) in float32.
  const float theta = 3.0f * std::pow(10000.0f, -2.0f / 8.0f);
  EXPECT_FLOAT_EQ(cos_t[3 * 8 + 2], std::cos(theta));
  EXPECT_FLOAT_EQ(sin_t[3 * 8 + 3], std::sin(theta));
  // NEOX pairs (i, i + 4).
  c.rope_mode = llm::RopeMode::kNeox;
  c.rope_dims = 6;  // dims 6 and 7 are not rotated
  llm::rope_tables(c, 5, cos_t, sin_t);
  EXPECT_EQ(cos_t[2 * 8 + 0], cos_t[2 * 8 + 3]);
  EXPECT_EQ(cos_t[2 * 8 + 6], 1.0f);
  EXPECT_EQ(sin_t[2 * 8 + 7], 0.0f);
}

}  // namespace
}  // namespace cppnn::testing
