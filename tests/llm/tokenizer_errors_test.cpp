// Malformed and unsupported tokenizers are DataErrors that name the place: tokenizer.json
// (Tokenizer::from_hf_json: the JSON path), TokenizerSpec (Tokenizer::from_spec: the GGUF key)
// and its JSON form (tokenizer_spec_from_json).
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "src/llm/tokenizer.h"
#include "src/llm/tokenizer_spec_json.h"

namespace cppnn::llm {
namespace {

using json = nlohmann::json;

json valid_json() {
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens",
           {{{"id", 4},
             {"content", "<s>"},
             {"single_word", false},
             {"lstrip", false},
             {"rstrip", false},
             {"normalized", false},
             {"special", true}}}},
          {"normalizer", nullptr},
          {"pre_tokenizer", nullptr},
          {"post_processor", nullptr},
          {"decoder", nullptr},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}}},
            {"merges", {"a b"}}}}};
}

// The error of loading `j` after `edit`; "" when it loads.
std::string load_error(const std::function<void(json&)>& edit) {
  json j = valid_json();
  edit(j);
  Result<Tokenizer> t = Tokenizer::from_hf_json(j.dump(), "tok.json");
  if (t.ok()) return "";
  EXPECT_EQ(t.error().kind, ErrorKind::kDataError);
  return t.error().message;
}

// Expects loading after `edit` to fail with a message holding `text`.
void expect_load_error(const std::function<void(json&)>& edit, const std::string& text) {
  const std::string message = load_error(edit);
  EXPECT_NE(message.find(text), std::string::npos) << "expected: " << text << "\ngot: " << message;
}

TEST(TokenizerJsonErrors, ValidBaseline) {
  EXPECT_EQ(load_error([](json&) {}), "");
  Result<Tokenizer> t = Tokenizer::from_hf_json(valid_json().dump(), "tok.json");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->encode("ab<s>c"), (std::vector<int32_t>{3, 4, 2}));
}

TEST(TokenizerJsonErrors, Syntax) {
  for (const char* text : {"", "{", "{\"model\": }", "[1, 2", "{\"a\": \"\xFF\"}", "nul"}) {
    Result<Tokenizer> t = Tokenizer::from_hf_json(text, "tok.json");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error().kind, ErrorKind::kDataError);
    EXPECT_NE(t.error().message.find("JSON error: tok.json:1:"), std::string::npos)
        << t.error().message;
  }
  std::string deep(100000, '[');
  EXPECT_FALSE(Tokenizer::from_hf_json(deep, "tok.json").ok());
  EXPECT_NE(Tokenizer::from_hf_json("[]", "tok.json")
                .error()
                .message.find("tok.json: (root): expected an object"),
            std::string::npos);
}

TEST(TokenizerJsonErrors, TopLevel) {
  expect_load_error([](json& j) { j.erase("model"); }, "(root): missing member \"model\"");
  expect_load_error([](json& j) { j["version"] = "2.0"; }, "version: unknown tokenizer.json");
  expect_load_error(
      [](json& j) {
        j["truncation"] = {{"max_length", 5}};
      },
      "truncation: truncation is not supported");
  expect_load_error([](json& j) { j["padding"] = json::object(); }, "padding: padding is not");
  // Unknown top-level fields are ignored, as HF does.
  EXPECT_EQ(load_error([](json& j) { j["extra"] = 1; }), "");
}

TEST(TokenizerJsonErrors, Model) {
  expect_load_error([](json& j) { j["model"]["type"] = "WordPiece"; },
                    "model.type: model WordPiece is not supported");
  expect_load_error([](json& j) { j["model"]["type"] = "Unigram"; },
                    "model Unigram is not supported");
  expect_load_error([](json& j) { j["model"]["vocab"]["a"] = "0"; },
                    "model.vocab[\"a\"]: expected an integer");
  expect_load_error([](json& j) { j["model"]["vocab"]["a"] = -1; },
                    "model.vocab[\"a\"]: integer out of range");
  expect_load_error([](json& j) { j["model"]["vocab"]["a"] = 1.5; }, "expected an integer");
  expect_load_error([](json& j) { j["model"]["vocab"]["b"] = 0; }, "have the same id 0");
  expect_load_error([](json& j) { j["model"]["vocab"]["x"] = 100000; }, "too many gaps");
  expect_load_error([](json& j) { j["model"]["vocab"] = json::array(); },
                    "model.vocab: expected an object");
  expect_load_error([](json& j) { j["model"]["merges"] = {"a z"}; },
                    "model.merges[0]: \"z\" is not in the vocabulary");
  expect_load_error([](json& j) { j["model"]["merges"] = {"b c"}; },
                    "model.merges[0]: \"bc\" is not in the vocabulary");
  expect_load_error([](json& j) { j["model"]["merges"] = {"ab"}; },
                    "model.merges[0]: expected \"left right\"");
  expect_load_error(
      [](json& j) {
        j["model"]["merges"] = {{"a", "b", "c"}};
      },
      "model.merges[0]: expected [\"left\", \"right\"]");
  expect_load_error(
      [](json& j) {
        j["model"]["merges"] = json::array({json::array({"a", 1})});
      },
      "model.merges[0][1]: expected a string");
  expect_load_error([](json& j) { j["model"]["unk_token"] = "<unk>"; },
                    "model.unk_token: \"<unk>\" is not in the vocabulary");
  expect_load_error([](json& j) { j["model"]["dropout"] = 0.1; },
                    "model.dropout: BPE dropout is not supported");
  expect_load_error([](json& j) { j["model"]["continuing_subword_prefix"] = "##"; },
                    "continuing_subword_prefix is not supported");
  expect_load_error([](json& j) { j["model"]["fuse_unk"] = 1; },
                    "model.fuse_unk: expected true or false");
  expect_load_error([](json& j) { j["model"]["surprise"] = 1; }, "unknown field \"surprise\"");
}

TEST(TokenizerJsonErrors, RepeatedKeys) {
  // The JSON reader keeps repeated keys, so a repeated vocabulary entry is seen.
  std::string text = valid_json().dump();
  const std::string from = "\"vocab\":{";
  text.replace(text.find(from), from.size(), from + "\"a\":7,");
  Result<Tokenizer> t = Tokenizer::from_hf_json(text, "tok.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("model.vocab[\"a\"]: repeated token"), std::string::npos)
      << t.error().message;
}

TEST(TokenizerJsonErrors, AddedTokens) {
  expect_load_error([](json& j) { j["added_tokens"][0]["id"] = 7; },
                    "added_tokens[0].id: added token \"<s>\" has id 7 but HF tokenizers gives "
                    "it id 4");
  expect_load_error([](json& j) { j["added_tokens"][0]["content"] = ""; },
                    "added_tokens[0].content: empty added token");
  expect_load_error([](json& j) { j["added_tokens"].push_back(j["added_tokens"][0]); },
                    "added_tokens[1].content: repeated added token \"<s>\"");
  expect_load_error([](json& j) { j["added_tokens"][0]["special"] = "yes"; },
                    "added_tokens[0].special: expected true or false");
  expect_load_error([](json& j) { j["added_tokens"] = json::object(); },
                    "added_tokens: expected an array");
  // A token of the vocabulary keeps its id.
  EXPECT_EQ(load_error([](json& j) {
              j["added_tokens"].push_back({{"id", 2}, {"content", "c"}, {"special", false}});
            }),
            "");
}

TEST(TokenizerJsonErrors, Components) {
  expect_load_error(
      [](json& j) {
        j["normalizer"] = {{"type", "NFKC"}};
      },
      "normalizer.type: normalizer NFKC is not supported");
  expect_load_error(
      [](json& j) {
        j["normalizer"] = {{"type", "Sequence"},
                           {"normalizers", {{{"type", "NFC"}}, {{"type", "Lowercase"}}}}};
      },
      "normalizer.normalizers[1].type: normalizer Lowercase is not supported");
  expect_load_error(
      [](json& j) {
        j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", " +"}}}, {"content", " "}};
      },
      "normalizer.pattern: normalizer Replace with a Regex pattern is not supported");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {{"type", "Whitespace"}};
      },
      "pre_tokenizer Whitespace is not supported");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {{"type", "Split"},
                              {"pattern", {{"Regex", "\\p{L}+"}}},
                              {"behavior", "Isolated"},
                              {"invert", false}};
      },
      "pre_tokenizer.pattern.Regex: pre_tokenizer Split pattern \"\\p{L}+\" is none of the");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {{"type", "Split"},
                              {"pattern", {{"Regex", "\\p{N}"}}},
                              {"behavior", "Isolated"},
                              {"invert", false}};
      },
      "is none of the regexes cppnn implements");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {
            {"type", "Split"},
            {"pattern",
             {{"Regex",
               "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|"
               "\\s+(?!\\S)|\\s+"}}},
            {"behavior", "Removed"},
            {"invert", false}};
      },
      "pre_tokenizer.behavior: pre_tokenizer Split behavior \"Removed\" is not supported");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "ab"}, {"split", true}};
      },
      "pre_tokenizer.replacement: expected exactly one character");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {
            {"type", "Metaspace"}, {"replacement", "_"}, {"prepend_scheme", "sometimes"}};
      },
      "unknown prepend_scheme \"sometimes\"");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"x", 1}};
      },
      "pre_tokenizer: unknown field \"x\"");
  expect_load_error(
      [](json& j) {
        j["pre_tokenizer"] = {{"kind", "ByteLevel"}};
      },
      "pre_tokenizer: missing member \"type\"");
  expect_load_error(
      [](json& j) {
        j["decoder"] = {{"type", "WordPiece"}};
      },
      "decoder.type: decoder WordPiece is not supported");
  expect_load_error(
      [](json& j) {
        j["decoder"] = {{"type", "Strip"}, {"content", " "}, {"start", 1 << 22}, {"stop", 0}};
      },
      "decoder.start: integer out of range");
  expect_load_error(
      [](json& j) {
        j["post_processor"] = {{"type", "Unknown"}};
      },
      "post_processor Unknown is not supported");
  expect_load_error(
      [](json& j) {
        j["post_processor"] = {{"type", "TemplateProcessing"},
                               {"single",
                                {{{"SpecialToken", {{"id", "<x>"}, {"type_id", 0}}}},
                                 {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                               {"pair", json::array()},
                               {"special_tokens", json::object()}};
      },
      "post_processor.single[0].SpecialToken.id: no special_tokens entry \"<x>\"");
  expect_load_error(
      [](json& j) {
        j["post_processor"] = {
            {"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"pair", json::array()},
            {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {99}}, {"tokens", {"<s>"}}}}}}};
      },
      "post_processor: token id 99 is out of range");
  expect_load_error(
      [](json& j) {
        j["post_processor"] = {{"type", "TemplateProcessing"},
                               {"single", {{{"Sequence", {{"id", "B"}, {"type_id", 0}}}}}},
                               {"pair", json::array()},
                               {"special_tokens", json::object()}};
      },
      "the single template can only hold A");
}

// ---- TokenizerSpec ----

TokenizerSpec valid_spec() {
  TokenizerSpec s;
  s.model = "gpt2";
  s.pre = "gpt2";
  s.tokens = {"a", "b", "ab", "<|end|>"};
  s.token_types = {1, 1, 1, 3};
  s.merges = {"a b"};
  return s;
}

std::string spec_error(const std::function<void(TokenizerSpec&)>& edit) {
  TokenizerSpec s = valid_spec();
  edit(s);
  Result<Tokenizer> t = Tokenizer::from_spec(s);
  if (t.ok()) return "";
  EXPECT_EQ(t.error().kind, ErrorKind::kDataError);
  return t.error().message;
}

// Expects from_spec after `edit` to fail with a message holding `text`.
void expect_spec_error(const std::function<void(TokenizerSpec&)>& edit, const std::string& text) {
  const std::string message = spec_error(edit);
  EXPECT_NE(message.find(text), std::string::npos) << "expected: " << text << "\ngot: " << message;
}

TEST(TokenizerSpecErrors, Fields) {
  EXPECT_EQ(spec_error([](TokenizerSpec&) {}), "");
  expect_spec_error([](TokenizerSpec& s) { s.model = "bert"; },
                    "tokenizer.ggml.model 'bert' is not supported");
  expect_spec_error([](TokenizerSpec& s) { s.pre = "nonsense"; },
                    "unknown tokenizer.ggml.pre 'nonsense'; known: gpt2, gpt-2");
  expect_spec_error([](TokenizerSpec& s) { s.pre = "deepseek-llm"; },
                    "'deepseek-llm' is a llama.cpp pre-tokenizer cppnn does not implement");
  expect_spec_error([](TokenizerSpec& s) { s.pre = ""; }, "tokenizer.ggml.pre is missing");
  expect_spec_error([](TokenizerSpec& s) { s.tokens.clear(); }, "tokenizer.ggml.tokens is empty");
  expect_spec_error([](TokenizerSpec& s) { s.tokens[1] = "a"; },
                    "tokenizer.ggml.tokens[1] 'a' repeats token 0");
  expect_spec_error([](TokenizerSpec& s) { s.token_types.pop_back(); },
                    "tokenizer.ggml.token_type has 3 entries for 4 tokens");
  expect_spec_error(
      [](TokenizerSpec& s) {
        s.scores = {1, 2};
      },
      "tokenizer.ggml.scores has 2 entries for 4 tokens");
  expect_spec_error([](TokenizerSpec& s) { s.token_types[2] = 9; },
                    "tokenizer.ggml.token_type[2] 9 is not a token type");
  expect_spec_error([](TokenizerSpec& s) { s.merges = {"ab"}; },
                    "tokenizer.ggml.merges[0] 'ab' is not two tokens");
  expect_spec_error([](TokenizerSpec& s) { s.merges = {"b a"}; },
                    "tokenizer.ggml.merges[0] 'b a': 'ba' is not in the vocabulary");
  expect_spec_error([](TokenizerSpec& s) { s.merges.clear(); }, "tokenizer.ggml.merges is missing");
  expect_spec_error([](TokenizerSpec& s) { s.bos_id = 4; },
                    "tokenizer.ggml.bos_token_id 4 is out of range (vocabulary of 4 tokens)");
  expect_spec_error([](TokenizerSpec& s) { s.eot_id = -1; }, "eot_token_id -1 is out of range");
  expect_spec_error([](TokenizerSpec& s) { s.add_bos = true; },
                    "add_bos_token is set but the model has no BOS token");
  // llama-bpe turns add_bos on (llama.cpp's default for the Llama 3 names).
  expect_spec_error([](TokenizerSpec& s) { s.pre = "llama-bpe"; }, "add_bos_token is set");
  EXPECT_EQ(spec_error([](TokenizerSpec& s) {
              s.pre = "llama-bpe";
              s.bos_id = 3;
            }),
            "");
}

TEST(TokenizerSpecErrors, JsonForm) {
  Result<TokenizerSpec> s = tokenizer_spec_from_json(
      R"({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt2",
          "tokenizer.ggml.tokens": ["a", "b", "ab"], "tokenizer.ggml.merges": ["a b"],
          "tokenizer.ggml.scores": [0, 1.5, -2], "tokenizer.ggml.token_type": [1, 1, 1],
          "tokenizer.ggml.bos_token_id": 2, "tokenizer.ggml.add_bos_token": false,
          "tokenizer.chat_template": "ignored"})",
      "spec.json");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->tokens.size(), 3u);
  EXPECT_EQ(s->scores, (std::vector<float>{0.0f, 1.5f, -2.0f}));
  EXPECT_EQ(s->bos_id, 2);
  EXPECT_EQ(s->add_bos, false);
  EXPECT_EQ(s->add_eos, std::nullopt);
  Result<TokenizerSpec> bad =
      tokenizer_spec_from_json(R"({"tokenizer.ggml.tokens": ["a", 3]})", "spec.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("spec.json: tokenizer.ggml.tokens[1]: expected a string"),
            std::string::npos)
      << bad.error().message;
  bad = tokenizer_spec_from_json(R"({"tokenizer.ggml.bos_token_id": -3})", "spec.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("tokenizer.ggml.bos_token_id: integer out of range"),
            std::string::npos);
  // A score beyond float32's range (it could not be written back: JSON has no infinity).
  bad = tokenizer_spec_from_json(R"({"tokenizer.ggml.scores": [0, 2.5e59]})", "spec.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("tokenizer.ggml.scores[1]: expected a float32 score"),
            std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace cppnn::llm
