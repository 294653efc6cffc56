// The `.llm.json` sidecar of converted models (src/llm/llm_package.h): a round trip, and each
// malformed field a clear DataError naming the file and the field; a converted model whose
// sidecar is missing or disagrees with its graph.
#include "src/llm/llm_package.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cppnn/errors.h"
#include "cppnn/llm.h"
#include "src/llm/gguf_conversion.h"
#include "tests/llm/tiny_gguf.h"
#include "tests/temp_dir.h"

namespace cppnn::testing {
namespace {

llm::LlmPackage sample() {
  llm::LlmPackage p;
  p.name = "tiny";
  p.architecture = "llama";
  p.layers = 1;
  p.vocabulary = 300;
  p.notes = {"Q4_1 -> uint4: 7 tensors"};
  p.interface.capacity = 64;
  p.interface.chunk = 8;
  p.interface.cache = {{"past_key_values.0.key", "present.0.key", 3, 0},
                       {"past_key_values.0.value", "present.0.value", 2, 0}};
  p.tokenizer.model = "gpt2";
  p.tokenizer.pre = "smollm";
  p.tokenizer.tokens = {"a", "b", "ab"};
  p.tokenizer.merges = {"a b"};
  p.tokenizer.eos_id = 2;
  p.tokenizer.add_bos = false;
  p.chat_template = "{{ messages[0]['content'] }}";
  return p;
}

TEST(LlmPackage, RoundTrip) {
  const std::string text = llm::llm_package_json(sample());
  auto back = llm::parse_llm_package(text, "x.llm.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->name, "tiny");
  EXPECT_EQ(back->interface.capacity, 64u);
  EXPECT_EQ(back->interface.cache.size(), 2u);
  EXPECT_EQ(back->interface.cache[0].seq_axis, 3u);
  EXPECT_EQ(back->tokenizer.merges, std::vector<std::string>{"a b"});
  EXPECT_EQ(back->tokenizer.eos_id, 2);
  EXPECT_EQ(back->chat_template, sample().chat_template);
  EXPECT_EQ(llm::llm_package_json(*back), text);
}

TEST(LlmPackage, MalformedFilesAreClearErrors) {
  auto expect_error = [](const std::string& text, const std::string& fragment) {
    auto r = llm::parse_llm_package(text, "m.llm.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().kind, ErrorKind::kDataError);
    EXPECT_NE(r.error().message.find("m.llm.json"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
  };
  const std::string good = llm::llm_package_json(sample());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  expect_error("{", "llm.json error");
  expect_error("[]", "JSON object");
  expect_error(replace("\"cppnn-llm\"", "\"other\""), "format");
  expect_error(replace("\"version\": 1", "\"version\": 7"), "version");
  expect_error(replace("\"capacity\": 64", "\"capacity\": 0"), "capacity");
  expect_error(replace("\"chunk\": 8", "\"chunk\": 65"), "chunk");
  expect_error(replace("\"capacity\": 64", "\"capacity\": \"64\""), "capacity");
  expect_error(replace("\"cache-additive\"", "\"bogus\""), "mask_kind");
  expect_error(replace("\"present.0.value\"", "\"present.0.key\""), "repeated");
  expect_error(replace("\"seq_axis\": 3", "\"seq_axis\": 99"), "seq_axis");
  expect_error(replace("\"layers\": 1,", ""), "layers");
  expect_error(replace("\"tokenizer.ggml.eos_token_id\": 2", "\"tokenizer.ggml.eos_token_id\": -2"),
               "eos_token_id");
}

TEST(LlmPackage, AConvertedModelNeedsItsSidecar) {
  TempDir dir;
  TinyDecoder model;
  tiny_gguf(model).write(dir.path() / "tiny.gguf");
  llm::convert_gguf_file(dir.path() / "tiny.gguf", dir.path() / "tiny.webnn",
                         {.capacity = 32, .chunk = 4});
  std::filesystem::remove(dir.path() / "tiny.llm.json");
  try {
    LanguageModel::load(dir.path() / "tiny.webnn", {.backend = "reference"});
    FAIL() << "loaded without its llm.json";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("tiny.llm.json"), std::string::npos) << e.what();
  }
  // A sidecar naming an input the graph does not have.
  llm::LlmPackage p = sample();
  p.vocabulary = 300;
  std::ofstream(dir.path() / "tiny.llm.json") << llm::llm_package_json(p);
  EXPECT_THROW(LanguageModel::load(dir.path() / "tiny.webnn", {.backend = "reference"}), DataError);
}

TEST(LlmPackage, ConversionRefusesToOverwriteItsInput) {
  TempDir dir;
  TinyDecoder model;
  tiny_gguf(model).write(dir.path() / "tiny.gguf");
  EXPECT_THROW(llm::convert_gguf_file(dir.path() / "tiny.gguf", dir.path() / "tiny.gguf", {}),
               DataError);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "tiny.llm.json"));
}

}  // namespace
}  // namespace cppnn::testing
