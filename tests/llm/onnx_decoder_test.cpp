// An optimum-style ONNX decoder export as a language model (src/llm/onnx_model.h): the tiny
// decoder written as ONNX with its past/present key/value inputs and outputs, loaded with its
// Hugging Face tokenizer.json, run on every compiled-in backend against the double-precision
// forward pass: prompt logits, greedy decoding, two graphs compiled once each.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "cppnn/errors.h"
#include "cppnn/llm.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "tests/llm/tiny_onnx_decoder.h"
#include "tests/temp_dir.h"

namespace cppnn::testing {
namespace {

namespace fs = std::filesystem;

struct OnnxFixture {
  TempDir dir;
  TinyDecoder model;
  fs::path onnx;
  OnnxFixture() {
    model = make_tiny_decoder("llama", 5,
                              {.embd = 32,
                               .head_dim = 8,
                               .ff = 48,
                               .vocab = static_cast<uint32_t>(tiny_vocabulary().tokens.size())});
    model.config.rope_mode = llm::RopeMode::kNeox;  // HF's rotate_half
    onnx = dir.path() / "model.onnx";
    std::ofstream(onnx, std::ios::binary) << tiny_onnx_decoder(model);
    std::ofstream(dir.path() / "tokenizer.json") << tiny_tokenizer_json();
  }
};
const OnnxFixture& fixture() {
  static const OnnxFixture f;
  return f;
}

class OnnxDecoderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxDecoderTest, PromptLogitsAndGreedyDecodingMatchTheForwardPass) {
  LanguageModel model = LanguageModel::load(
      fixture().onnx, {.backend = GetParam(), .contextLength = 24, .prefillChunk = 4});
  EXPECT_EQ(model.info().architecture, "onnx");
  EXPECT_EQ(model.info().layers, 2u);
  const uint64_t compiled = model.context().state()->compilations.load();
  EXPECT_EQ(compiled, 2u);  // the prefill and the decode graph
  const std::vector<int32_t> prompt = model.tokenize("The capital of France is");
  ASSERT_GT(prompt.size(), 4u);
  Generator g(model);
  const std::vector<float> got = g.append(prompt, true);
  const std::vector<double> want = tiny_decoder_logits(fixture().model, prompt);
  const size_t V = model.info().vocabularySize;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < prompt.size(); ++i)
    EXPECT_LT(relative_l2(std::span(got).subspan(i * V, V), std::span(want).subspan(i * V, V)),
              1e-4)
        << "position " << i;

  Generator gen(model);
  GenerationResult r =
      gen.generate("The capital of France is", {.maxTokens = 6, .ignoreEos = true});
  ASSERT_EQ(r.tokens.size(), 6u);
  for (double gap : greedy_gaps(fixture().model, prompt, r.tokens)) EXPECT_LT(gap, 1e-3);
  EXPECT_EQ(model.context().state()->compilations.load(), compiled);
}

INSTANTIATE_TEST_SUITE_P(Backends, OnnxDecoderTest, ::testing::ValuesIn(available_backends(false)),
                         [](const auto& info) { return info.param; });

TEST(OnnxDecoder, TheTokenizerJsonAgreesWithTheGgufVocabulary) {
  TempDir dir;
  TinyDecoder tiny;
  tiny_gguf(tiny).write(dir.path() / "tiny.gguf");
  LanguageModel gguf = LanguageModel::load(dir.path() / "tiny.gguf", {.backend = "reference"});
  LanguageModel onnx = LanguageModel::load(fixture().onnx, {.backend = "reference"});
  for (const char* text : {"The capital of France is Paris.", "user 123 <|im_start|>x",
                           "  spaces\tand\nnewlines", "d\xc3\xa9j\xc3\xa0 vu 2024"}) {
    EXPECT_EQ(onnx.tokenize(text), gguf.tokenize(text)) << text;
    EXPECT_EQ(onnx.detokenize(onnx.tokenize(text)), text);
  }
}

TEST(OnnxDecoder, ModelsWithoutACacheAreRefused) {
  TempDir dir;
  OnnxModelBuilder b;
  b.input("input_ids", onnx::TensorProto_DataType_INT64, {1, 4});
  b.node("Identity", {"input_ids"}, {"logits"});
  b.output("logits");
  std::ofstream(dir.path() / "model.onnx", std::ios::binary) << b.bytes();
  std::ofstream(dir.path() / "tokenizer.json") << tiny_tokenizer_json();
  try {
    LanguageModel::load(dir.path() / "model.onnx", {.backend = "reference"});
    FAIL() << "a model without attention_mask loaded";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("attention_mask"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cppnn::testing
