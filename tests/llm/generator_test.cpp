// Text generation end to end (include/cppnn/llm.h) on the tiny GGUF model of tiny_gguf.h (every
// tensor kind): logits against the double-precision forward pass on every compiled-in backend,
// greedy decoding, one compile per step size, streaming, stop strings, cancelling, chat turns
// that reuse the cache, a full context, and the converted model (convert-gguf) giving the same
// logits as the GGUF file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cppnn/errors.h"
#include "cppnn/llm.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "src/llm/gguf_conversion.h"
#include "src/llm/sampler.h"
#include "tests/llm/tiny_gguf.h"
#include "tests/temp_dir.h"

namespace cppnn::testing {
namespace {

namespace fs = std::filesystem;

// The tiny model written once per test binary.
struct TinyFixture {
  TempDir dir;
  TinyDecoder model;
  fs::path gguf;
  TinyFixture() {
    gguf = dir.path() / "tiny.gguf";
    tiny_gguf(model).write(gguf);
  }
};
const TinyFixture& fixture() {
  static const TinyFixture f;
  return f;
}

class GeneratorTest : public ::testing::TestWithParam<std::string> {
 protected:
  LanguageModel load(LanguageModelOptions o = {}) {
    o.backend = GetParam();
    return LanguageModel::load(fixture().gguf, o);
  }
};

TEST_P(GeneratorTest, LogitsMatchTheForwardPassForEveryTensorKind) {
  LanguageModel model = load({.contextLength = 64, .prefillChunk = 8});
  EXPECT_EQ(model.info().architecture, "llama");
  EXPECT_EQ(model.info().layers, 2u);
  EXPECT_EQ(model.info().contextLength, 64u);
  Generator g(model);
  const std::vector<int32_t> prompt = model.tokenize("The capital of France is Paris, is it?");
  ASSERT_GT(prompt.size(), 8u);  // two prefill chunks
  const std::vector<float> got = g.append(prompt, true);
  const std::vector<double> want = tiny_decoder_logits(fixture().model, prompt);
  const size_t V = model.info().vocabularySize;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < prompt.size(); ++i)
    EXPECT_LT(relative_l2(std::span(got).subspan(i * V, V), std::span(want).subspan(i * V, V)),
              1e-4)
        << "position " << i;
  EXPECT_EQ(g.tokens(), prompt);
}

TEST_P(GeneratorTest, GreedyDecodingFollowsTheForwardPassAndCompilesOncePerStepSize) {
  LanguageModel model = load({.contextLength = 64, .prefillChunk = 8});
  const uint64_t built = model.context().state()->compilations.load();
  Generator g(model);
  GenerationResult r = g.generate("The capital of France is", {.maxTokens = 12, .ignoreEos = true});
  EXPECT_EQ(r.finishReason, FinishReason::kMaxTokens);
  ASSERT_EQ(r.tokens.size(), 12u);
  EXPECT_EQ(r.stats.generatedTokens, 12u);
  // One more compile: the graph at 1 token per step, whatever the number of steps.
  EXPECT_EQ(model.context().state()->compilations.load(), built + 1);
  // Each generated token is the reference's most likely one (or a near tie).
  for (double gap :
       greedy_gaps(fixture().model, model.tokenize("The capital of France is"), r.tokens))
    EXPECT_LT(gap, 1e-3);
  // A second generator of the same model shares the compiled graphs.
  Generator g2(model);
  GenerationResult r2 =
      g2.generate("The capital of France is", {.maxTokens = 12, .ignoreEos = true});
  EXPECT_EQ(r2.tokens, r.tokens);
  EXPECT_EQ(model.context().state()->compilations.load(), built + 1);
}

// LanguageModelOptions::profile: the prefill and decode steps' per-operation timings, kept apart
// (two sizes of one dynamic graph), on the backends that time operations.
TEST_P(GeneratorTest, ProfilesThePrefillAndDecodeSteps) {
  LanguageModel model = load({.contextLength = 64, .prefillChunk = 8, .profile = true});
  const bool times = GetParam() == "cpu" || GetParam() == "reference";
  EXPECT_EQ(model.profile().decode.available, times);
  Generator g(model);
  const std::string prompt = "The capital of France is Paris, is it?";
  const size_t chunks = (model.tokenize(prompt).size() + 7) / 8;
  ASSERT_GE(chunks, 2u);
  GenerationResult r = g.generate(prompt, {.maxTokens = 5, .ignoreEos = true});
  ASSERT_EQ(r.tokens.size(), 5u);
  const LanguageModelProfile p = model.profile();
  if (!times) {
    EXPECT_FALSE(p.prefill.available);
    EXPECT_FALSE(p.decode.available);
    return;
  }
  // The prompt in chunks of 8, then one decode step per generated token after the first.
  EXPECT_EQ(p.prefill.dispatches, chunks);
  EXPECT_EQ(p.decode.dispatches, 4u);
  ASSERT_FALSE(p.decode.operations.empty());
  for (const MLOperationProfile& o : p.decode.operations) EXPECT_EQ(o.runs, 4u) << o.name;
  const bool has_gemm = std::any_of(p.decode.operations.begin(), p.decode.operations.end(),
                                    [](const MLOperationProfile& o) { return o.op == "gemm"; });
  EXPECT_TRUE(has_gemm);
}

TEST_P(GeneratorTest, StreamingStopStringsAndCancelling) {
  LanguageModel model = load({.contextLength = 64});
  Generator g(model);
  std::string streamed;
  GenerationResult r =
      g.generate("The", {.maxTokens = 16, .ignoreEos = true}, [&](std::string_view piece) {
        EXPECT_FALSE(piece.empty());
        streamed += piece;
        return true;
      });
  EXPECT_EQ(streamed, r.text);
  EXPECT_EQ(r.text, model.detokenize(r.tokens, true));
  ASSERT_GE(r.text.size(), 4u);

  // A stop string taken from that text ends the same generation before it.
  const std::string stop = r.text.substr(2, 2);
  Generator g2(model);
  std::string streamed2;
  GenerationResult r2 = g2.generate("The", {.maxTokens = 16, .stop = {stop}, .ignoreEos = true},
                                    [&](std::string_view piece) {
                                      streamed2 += piece;
                                      return true;
                                    });
  EXPECT_EQ(r2.finishReason, FinishReason::kStopString);
  EXPECT_EQ(r2.text, r.text.substr(0, r.text.find(stop)));
  EXPECT_EQ(streamed2, r2.text);

  // Returning false from the callback cancels after that piece.
  Generator g3(model);
  int pieces = 0;
  GenerationResult r3 = g3.generate("The", {.maxTokens = 16, .ignoreEos = true},
                                    [&](std::string_view) { return ++pieces < 2; });
  EXPECT_EQ(r3.finishReason, FinishReason::kCancelled);
  EXPECT_EQ(pieces, 2);
  EXPECT_LT(r3.tokens.size(), 16u);

  // Pull-style: start() then next() gives the same pieces.
  Generator g4(model);
  g4.start("The", {.maxTokens = 16, .ignoreEos = true});
  std::string pulled;
  while (auto piece = g4.next()) pulled += *piece;
  EXPECT_EQ(pulled, r.text);
  EXPECT_EQ(g4.result().tokens, r.tokens);
}

TEST_P(GeneratorTest, ChatTurnsReuseTheCache) {
  LanguageModel model = load({.contextLength = 128, .prefillChunk = 16});
  const GenerationOptions options{.maxTokens = 6, .ignoreEos = true};
  std::vector<ChatMessage> messages = {{"user", "Is Paris in France?"}};
  EXPECT_EQ(model.applyChatTemplate(messages),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
            "Face<|im_end|>\n<|im_start|>user\nIs Paris in France?<|im_end|>\n"
            "<|im_start|>assistant\n");
  Generator chat(model);
  GenerationResult first = chat.chat(messages, options);
  EXPECT_EQ(first.stats.reusedTokens, 0u);
  messages.push_back({"assistant", first.text});
  messages.push_back({"user", "And Rome?"});
  GenerationResult second = chat.chat(messages, options);
  // The first turn's prompt stays in the cache; only the rest is prefilled.
  EXPECT_GE(second.stats.reusedTokens,
            model.tokenize(model.applyChatTemplate({messages[0]}, true)).size());
  // The same conversation from an empty cache gives the same reply.
  Generator fresh(model);
  GenerationResult again = fresh.chat(messages, options);
  EXPECT_EQ(again.stats.reusedTokens, 0u);
  EXPECT_EQ(again.tokens, second.tokens);
}

TEST_P(GeneratorTest, AFullContextStopsGeneration) {
  LanguageModel model = load({.contextLength = 12, .prefillChunk = 4});
  Generator g(model);
  GenerationResult r = g.generate("The capital", {.maxTokens = 100, .ignoreEos = true});
  EXPECT_EQ(r.finishReason, FinishReason::kContextFull);
  EXPECT_EQ(g.tokens().size(), 12u);  // the prompt and every generated token
  EXPECT_THROW(g.append(std::vector<int32_t>(20, 5)), TypeError);
  g.rewind(0);
  EXPECT_TRUE(g.tokens().empty());
  EXPECT_THROW(g.append(std::vector<int32_t>{100000}), TypeError);
}

TEST(Generator, BadOptionsAndOrderAreErrors) {
  LanguageModel model = LanguageModel::load(fixture().gguf, {.backend = "reference"});
  Generator g(model);
  EXPECT_THROW(g.next(), InvalidStateError);
  EXPECT_THROW(g.generate("The", {.temperature = -1.0f}), TypeError);
  EXPECT_THROW(g.generate("The", {.temperature = std::nanf("")}), TypeError);
  EXPECT_THROW(g.generate("The", {.topP = 0.0f}), TypeError);
  EXPECT_THROW(g.generate("The", {.topP = 1.5f}), TypeError);
  EXPECT_THROW(g.generate("The", {.repetitionPenalty = 0.0f}), TypeError);
  EXPECT_THROW(g.generate("The", {.stop = {""}}), TypeError);
  EXPECT_TRUE(g.tokens().empty());  // nothing was prefilled
  EXPECT_THROW(g.generate(""), TypeError);
}

INSTANTIATE_TEST_SUITE_P(Backends, GeneratorTest, ::testing::ValuesIn(available_backends(false)),
                         [](const auto& info) { return info.param; });

TEST(GgufConversion, TheConvertedModelGivesTheSameLogits) {
  TempDir dir;
  const fs::path out = dir.path() / "tiny.webnn";
  const llm::GgufConversionReport report =
      llm::convert_gguf_file(fixture().gguf, out, {.capacity = 48, .chunk = 8});
  EXPECT_EQ(report.capacity, 48u);
  EXPECT_TRUE(report.unused.empty());
  EXPECT_TRUE(fs::exists(dir.path() / "tiny.safetensors"));
  EXPECT_TRUE(fs::exists(dir.path() / "tiny.llm.json"));
  // Quantized weights stay quantized: the weights file is about the GGUF's size.
  // (this model has every kind: 5- and 6-bit ones are stored in 8 bits, BF16 as float32;
  // 4- and 8-bit kinds take 1.1-1.2x their GGUF size with their float32 scales)
  EXPECT_LT(report.weights_bytes, report.gguf_bytes * 16 / 10);

  LanguageModel from_gguf = LanguageModel::load(
      fixture().gguf, {.backend = "reference", .contextLength = 48, .prefillChunk = 8});
  LanguageModel converted = LanguageModel::load(out, {.backend = "reference"});
  EXPECT_EQ(converted.info().contextLength, 48u);
  EXPECT_EQ(converted.info().name, "tiny-llama");
  const std::vector<int32_t> prompt = from_gguf.tokenize("The capital of France");
  EXPECT_EQ(converted.tokenize("The capital of France"), prompt);
  Generator a(from_gguf), b(converted);
  EXPECT_EQ(a.append(prompt, true), b.append(prompt, true));
  EXPECT_THROW(LanguageModel::load(out, {.backend = "reference", .contextLength = 64}), TypeError);
}

// --weights float32 dequantizes every weight (the step computes with the same float32 values, so
// the logits are bit-identical); float16 rounds the matrices (the logits stay close).
TEST(GgufConversion, FloatWeightFormsGiveTheModelsLogits) {
  TempDir dir;
  const llm::GgufConversionOptions sizes{.capacity = 48, .chunk = 8};
  llm::convert_gguf_file(fixture().gguf, dir.path() / "keep.webnn", sizes);
  llm::GgufConversionOptions f32 = sizes, f16 = sizes;
  f32.weights = llm::WeightForm::kFloat32;
  f16.weights = llm::WeightForm::kFloat16;
  const llm::GgufConversionReport r32 =
      llm::convert_gguf_file(fixture().gguf, dir.path() / "f32.webnn", f32);
  const llm::GgufConversionReport r16 =
      llm::convert_gguf_file(fixture().gguf, dir.path() / "f16.webnn", f16);
  for (const std::string& note : r32.notes)
    EXPECT_NE(note.find("-> float32"), std::string::npos) << note;
  bool any_half = false;
  for (const std::string& note : r16.notes)
    any_half |= note.find("-> float16") != std::string::npos;
  EXPECT_TRUE(any_half);
  EXPECT_LT(r16.weights_bytes, r32.weights_bytes);

  LanguageModel keep = LanguageModel::load(dir.path() / "keep.webnn", {.backend = "reference"});
  LanguageModel m32 = LanguageModel::load(dir.path() / "f32.webnn", {.backend = "reference"});
  LanguageModel m16 = LanguageModel::load(dir.path() / "f16.webnn", {.backend = "reference"});
  const std::vector<int32_t> prompt = keep.tokenize("The capital of France");
  Generator a(keep), b(m32), c(m16);
  const std::vector<float> want = a.append(prompt, true);
  EXPECT_EQ(b.append(prompt, true), want);
  const std::vector<float> half = c.append(prompt, true);
  ASSERT_EQ(half.size(), want.size());
  double err = 0, norm = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err += (double(half[i]) - want[i]) * (double(half[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  EXPECT_LT(std::sqrt(err), 0.02 * std::sqrt(norm));
}

// A float32 model on cpu: the prefill chunk's plan packs the weights, the decode step's plan reads
// the same packed forms (cpu/packed_weights.h); every step's logits as the reference's.
TEST(GgufConversion, Float32WeightsOnCpuPrefillThenDecode) {
  TempDir dir;
  llm::GgufConversionOptions f32{.capacity = 48, .chunk = 8};
  f32.weights = llm::WeightForm::kFloat32;
  llm::convert_gguf_file(fixture().gguf, dir.path() / "f32.webnn", f32);
  LanguageModel ref = LanguageModel::load(dir.path() / "f32.webnn", {.backend = "reference"});
  LanguageModel cpu = LanguageModel::load(dir.path() / "f32.webnn", {.backend = "cpu"});
  const std::vector<int32_t> prompt = ref.tokenize("The capital of France is");
  Generator a(ref), b(cpu);
  auto expect_close = [](const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    double err = 0, norm = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      err += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
      norm += double(want[i]) * want[i];
    }
    EXPECT_LT(std::sqrt(err), 1e-4 * std::sqrt(norm));
  };
  expect_close(b.append(prompt), a.append(prompt));
  for (int32_t token : {5, 17, 3}) {
    const std::vector<int32_t> one = {token};
    expect_close(b.append(one), a.append(one));
  }
}

TEST(GgufModel, UnsupportedArchitecturesAndMissingTensorsAreNamed) {
  TempDir dir;
  TinyDecoder model;
  gguf::testing::GgufWriter w = tiny_gguf(model);
  w.add_string("general.architecture", "gpt2");  // a second key: the reader refuses duplicates
  w.write(dir.path() / "dup.gguf");
  EXPECT_THROW(LanguageModel::load(dir.path() / "dup.gguf", {.backend = "reference"}), DataError);

  gguf::testing::GgufWriter mamba;
  mamba.add_string("general.architecture", "mamba");
  mamba.write(dir.path() / "mamba.gguf");
  try {
    LanguageModel::load(dir.path() / "mamba.gguf", {.backend = "reference"});
    FAIL() << "loaded an unsupported architecture";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("mamba"), std::string::npos) << e.what();
  }
}

TEST(Sampler, TemperatureTopKTopPAndRepetitionPenalty) {
  std::vector<float> logits = {1.0f, 3.0f, 2.0f, 3.0f, -1.0f};
  llm::Sampler s(1);
  EXPECT_EQ(s.sample(logits, {}, {}), 1);  // greedy: the lowest id among equals
  // The penalty divides the repeated token's positive logit.
  EXPECT_EQ(s.sample(logits, std::vector<int32_t>{1}, {.repetition_penalty = 2.0f}), 3);
  // top-k 1 is greedy whatever the temperature.
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(s.sample(logits, {}, {.temperature = 5.0f, .top_k = 1}), 1);
  // top-p keeps the smallest set reaching p: here ids 1 and 3 (each about 0.36).
  std::map<int32_t, int> seen;
  for (int i = 0; i < 400; ++i) ++seen[s.sample(logits, {}, {.temperature = 1.0f, .top_p = 0.7f})];
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_GT(seen[1], 120);
  EXPECT_GT(seen[3], 120);
  // The same seed gives the same draws.
  llm::Sampler a(42), b(42);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(a.sample(logits, {}, {.temperature = 1.0f}),
              b.sample(logits, {}, {.temperature = 1.0f}));
}

}  // namespace
}  // namespace cppnn::testing
