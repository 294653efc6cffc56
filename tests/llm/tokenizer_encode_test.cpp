// Tokenizer::encode / decode on tiny vocabularies written in the test: byte-level BPE merges by
// rank (ties leftmost, ignore_merges), unknown tokens (fuse_unk), SentencePiece-style BPE with
// byte fallback from a tokenizer.json (rank) and from a TokenizerSpec (score), added/special
// tokens and their flags, post-processors, decoding, the stream decoder, concurrent encodes
// and long inputs.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "src/llm/tokenizer.h"
#include "src/llm/tokenizer_byte_level.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

using json = nlohmann::json;
using Ids = std::vector<int32_t>;

constexpr const char* kMeta = "\u2581";

Tokenizer load(const json& j) {
  Result<Tokenizer> t = Tokenizer::from_hf_json(j.dump(), "test.json");
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  if (!t.ok()) throw std::runtime_error(t.error().message);
  return std::move(*t);
}

json added_token(int id, const std::string& content, bool special, json flags = json::object()) {
  json t = {{"id", id},        {"content", content},     {"single_word", false}, {"lstrip", false},
            {"rstrip", false}, {"normalized", !special}, {"special", special}};
  for (auto& [k, v] : flags.items()) t[k] = v;
  return t;
}

json bpe_model(json vocab, json merges) {
  return {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", nullptr},
          {"fuse_unk", false},
          {"byte_fallback", false},
          {"ignore_merges", false},
          {"vocab", vocab},
          {"merges", merges},
          {"continuing_subword_prefix", nullptr},
          {"end_of_word_suffix", nullptr}};
}

json tokenizer_json(json model) {
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", json::array()},
          {"normalizer", nullptr},
          {"pre_tokenizer", nullptr},
          {"post_processor", nullptr},
          {"decoder", nullptr},
          {"model", model}};
}

// A GPT-2 style tokenizer: the 256 byte characters (id = byte), then `extra` tokens, the merges,
// and <|endoftext|>, <|im_start|> as special added tokens.
json byte_level_json(const std::vector<std::string>& extra, const json& merges) {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) {
    std::string s;
    append_utf8(s, byte_to_unicode(static_cast<uint8_t>(b)));
    vocab[s] = b;
  }
  int id = 256;
  for (const std::string& t : extra) vocab[t] = id++;
  vocab["<|endoftext|>"] = id;
  vocab["<|im_start|>"] = id + 1;
  json j = tokenizer_json(bpe_model(vocab, merges));
  j["added_tokens"] = {added_token(id, "<|endoftext|>", true),
                       added_token(id + 1, "<|im_start|>", true)};
  j["pre_tokenizer"] = {{"type", "ByteLevel"},
                        {"add_prefix_space", false},
                        {"trim_offsets", true},
                        {"use_regex", true}};
  j["decoder"] = {{"type", "ByteLevel"},
                  {"add_prefix_space", true},
                  {"trim_offsets", true},
                  {"use_regex", true}};
  return j;
}

// ids: he 256, ll 257, llo 258, hello 259, Ġw 260, or 261; <|endoftext|> 262, <|im_start|> 263.
Tokenizer hello_tokenizer() {
  return load(byte_level_json({"he", "ll", "llo", "hello", "\u0120w", "or"},
                              {"h e", "l l", "ll o", "he llo", "\u0120 w", "o r"}));
}

TEST(TokenizerEncode, ByteLevelMergesByRank) {
  const Tokenizer t = hello_tokenizer();
  EXPECT_EQ(t.vocab_size(), 264);
  EXPECT_EQ(t.encode("hello world"), (Ids{259, 260, 261, 'l', 'd'}));
  // The pair of lowest rank merges first; on a tie, the leftmost.
  EXPECT_EQ(t.encode("lll"), (Ids{257, 'l'}));
  EXPECT_EQ(t.encode("llll"), (Ids{257, 257}));
  // Bytes of any kind go through the byte map: "é" is C3 A9 -> two byte tokens.
  EXPECT_EQ(t.encode("\u00E9"), (Ids{0xC3, 0xA9}));
  EXPECT_EQ(t.encode("a\nb"), (Ids{'a', '\n', 'b'}));
  EXPECT_EQ(t.encode(""), Ids{});
  // Merges written as pairs give the same model.
  const Tokenizer pairs = load(byte_level_json(
      {"he", "ll", "llo", "hello", "\u0120w", "or"},
      json::array(
          {{"h", "e"}, {"l", "l"}, {"ll", "o"}, {"he", "llo"}, {"\u0120", "w"}, {"o", "r"}})));
  EXPECT_EQ(pairs.encode("hello world"), t.encode("hello world"));
}

TEST(TokenizerEncode, IgnoreMergesUsesWholeWords) {
  // "abc" is in the vocabulary but no merge leads to it.
  json j = byte_level_json({"ab", "abc"}, {"a b"});
  EXPECT_EQ(load(j).encode("abc"), (Ids{256, 'c'}));
  j["model"]["ignore_merges"] = true;
  EXPECT_EQ(load(j).encode("abc"), (Ids{257}));
  EXPECT_EQ(load(j).encode("abcd"), (Ids{256, 'c', 'd'}));
}

TEST(TokenizerEncode, SpecialTokens) {
  const Tokenizer t = hello_tokenizer();
  EXPECT_EQ(t.encode("<|im_start|>hello"), (Ids{263, 259}));
  EXPECT_EQ(t.encode("hello<|endoftext|><|im_start|>"), (Ids{259, 262, 263}));
  // Not parsed: the text of the special token is tokenized like any text.
  const Ids plain = t.encode("<|im_start|>", {.parse_special = false});
  EXPECT_EQ(plain.size(), 12u);
  EXPECT_EQ(plain.front(), '<');
  EXPECT_TRUE(t.is_special(263));
  EXPECT_TRUE(t.is_control(263));
  EXPECT_FALSE(t.is_special(259));
  EXPECT_EQ(t.token_id("<|im_start|>"), 263);
  EXPECT_EQ(t.token_id("hello"), 259);
  EXPECT_EQ(t.token_id("nope"), std::nullopt);
  EXPECT_EQ(t.token_text(260), "\u0120w");
  EXPECT_EQ(t.token_text(9999), "");
  EXPECT_EQ(t.eos_id(), 262);  // <|endoftext|>, the well-known name
  Result<Tokenizer> other = t.with_special_ids({.bos = 263, .eos = 263});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->eos_id(), 263);
  EXPECT_EQ(other->encode("hello"), t.encode("hello"));
  EXPECT_FALSE(t.with_special_ids({.eot = 264}).ok());
}

TEST(TokenizerEncode, AddedTokenFlags) {
  json j = byte_level_json({}, json::array());
  // 256 <|endoftext|>, 257 <|im_start|>, then four non-special added tokens.
  j["added_tokens"].push_back(
      added_token(258, "<mask>", false, {{"lstrip", true}, {"normalized", false}}));
  j["added_tokens"].push_back(added_token(259, "[U]", false, {{"rstrip", true}}));
  j["added_tokens"].push_back(added_token(260, "ab", false, {{"single_word", true}}));
  j["added_tokens"].push_back(added_token(261, "<mask>x", false, {{"normalized", false}}));
  const Tokenizer t = load(j);
  // lstrip takes the white space before the token into it.
  EXPECT_EQ(t.encode("a  <mask>b"), (Ids{'a', 258, 'b'}));
  // rstrip takes the white space after it.
  EXPECT_EQ(t.encode("a[U] \t b"), (Ids{'a', 259, 'b'}));
  // single_word: only where no word character touches it.
  // (The byte token of a space is id 0x20, spelled "Ġ".)
  EXPECT_EQ(t.encode("ab cab ab_ ab"),
            (Ids{260, ' ', 'c', 'a', 'b', ' ', 'a', 'b', '_', ' ', 260}));
  // Leftmost-longest: "<mask>x" wins over "<mask>".
  EXPECT_EQ(t.encode("<mask>x"), (Ids{261}));
  // Non-special added tokens are matched even when special tokens are not parsed.
  EXPECT_EQ(t.encode("<mask>", {.parse_special = false}), (Ids{258}));
}

TEST(TokenizerEncode, UnknownTokens) {
  json j = tokenizer_json(bpe_model({{"<unk>", 0}, {"a", 1}, {"b", 2}}, json::array()));
  j["model"]["unk_token"] = "<unk>";
  EXPECT_EQ(load(j).encode("accb"), (Ids{1, 0, 0, 2}));
  j["model"]["fuse_unk"] = true;
  EXPECT_EQ(load(j).encode("accb"), (Ids{1, 0, 2}));
  EXPECT_EQ(load(j).special_ids().unk, 0);
  // Without an unknown token, unknown characters are dropped (as HF does).
  j["model"]["unk_token"] = nullptr;
  EXPECT_EQ(load(j).encode("accb"), (Ids{1, 2}));
}

// A Llama-2 style tokenizer.json: <unk> <s> </s>, the byte tokens (3..258), then pieces.
json spm_json() {
  json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  static const char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b)
    vocab[std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">"] = 3 + b;
  int id = 259;
  for (const char* piece :
       {kMeta, "a", "b", "\u2581a", "\u2581ab", "h", "i", "\u2581h", "\u2581hi"})
    vocab[std::string(piece)] = id++;
  json j = tokenizer_json(
      bpe_model(vocab, json::array({json::array({kMeta, "a"}), json::array({"\u2581a", "b"}),
                                    json::array({kMeta, "h"}), json::array({"\u2581h", "i"})})));
  j["model"]["unk_token"] = "<unk>";
  j["model"]["fuse_unk"] = true;
  j["model"]["byte_fallback"] = true;
  j["added_tokens"] = {added_token(0, "<unk>", true), added_token(1, "<s>", true),
                       added_token(2, "</s>", true)};
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers",
                      {{{"type", "Prepend"}, {"prepend", kMeta}},
                       {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kMeta}}}}};
  j["decoder"] = {{"type", "Sequence"},
                  {"decoders",
                   {{{"type", "Replace"}, {"pattern", {{"String", kMeta}}}, {"content", " "}},
                    {{"type", "ByteFallback"}},
                    {{"type", "Fuse"}},
                    {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  j["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single",
       {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
        {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
      {"pair", json::array()},
      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}};
  return j;
}

// ids of spm_json(): ▁ 259, a 260, b 261, ▁a 262, ▁ab 263, h 264, i 265, ▁h 266, ▁hi 267.
TEST(TokenizerEncode, SentencePieceByteFallbackFromJson) {
  const Tokenizer t = load(spm_json());
  EXPECT_EQ(t.bos_id(), 1);
  // "▁ab▁é": é is not a piece, so its UTF-8 bytes C3 A9 become <0xC3> <0xA9>.
  EXPECT_EQ(t.encode("ab \u00E9"), (Ids{1, 263, 259, 3 + 0xC3, 3 + 0xA9}));
  EXPECT_EQ(t.encode("ab", {.add_special = false}), (Ids{263}));
  EXPECT_EQ(t.encode("", {.add_special = true}), (Ids{1}));
  // The pieces between special tokens are normalized one by one (each gets its own ▁).
  EXPECT_EQ(t.encode("hi<s>hi", {.add_special = false}), (Ids{267, 1, 267}));
  EXPECT_EQ(t.decode(Ids{1, 263, 259, 3 + 0xC3, 3 + 0xA9}), "<s> ab \u00E9");
  EXPECT_EQ(t.decode(Ids{1, 263, 259, 3 + 0xC3, 3 + 0xA9}, {.skip_special = true}), "ab \u00E9");
  // A run of byte tokens that is not UTF-8 becomes one U+FFFD per byte.
  EXPECT_EQ(t.decode(Ids{263, 3 + 0xC3, 260}), "ab\uFFFDa");
  EXPECT_EQ(t.decode(Ids{3 + 0xE2, 3 + 0x82, 3 + 0xAC}), "\u20AC");
}

TokenizerSpec spm_spec() {
  TokenizerSpec s;
  s.model = "llama";
  s.tokens = {"<unk>", "<s>", "</s>"};
  s.token_types = {2, 3, 3};
  static const char kHex[] = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) {
    s.tokens.push_back(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">");
    s.token_types.push_back(6);
  }
  // ▁ 259, a 260, b 261, ▁a 262 (score -3), ab 263 (-1), ▁ab 264 (-2)
  for (const char* piece : {kMeta, "a", "b", "\u2581a", "ab", "\u2581ab"}) {
    s.tokens.push_back(piece);
    s.token_types.push_back(1);
  }
  s.scores.assign(s.tokens.size(), 0.0f);
  s.scores[259] = s.scores[260] = s.scores[261] = -10;
  s.scores[262] = -3;
  s.scores[263] = -1;
  s.scores[264] = -2;
  return s;
}

TEST(TokenizerEncode, SentencePieceByScoreFromSpec) {
  Result<Tokenizer> r = Tokenizer::from_spec(spm_spec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Tokenizer& t = *r;
  // llama.cpp's defaults: add_bos, add_space_prefix, <s> = 1.
  // "▁ab": "ab" (-1) merges before "▁a" (-3), then "▁" + "ab" = "▁ab" (-2).
  EXPECT_EQ(t.encode("ab"), (Ids{1, 264}));
  EXPECT_EQ(t.encode("ba", {.add_special = false}), (Ids{259, 261, 260}));
  // Unknown characters: their bytes.
  EXPECT_EQ(t.encode("\u00E9", {.add_special = false}), (Ids{259, 3 + 0xC3, 3 + 0xA9}));
  // The text of a control token does not merge into it when special tokens are not parsed.
  EXPECT_EQ(t.encode("<s>", {.parse_special = false, .add_special = false}),
            (Ids{259, 3 + '<', 3 + 's', 3 + '>'}));
  EXPECT_EQ(t.encode("<s>", {.parse_special = true, .add_special = false}), (Ids{1}));
  EXPECT_EQ(t.decode(Ids{1, 264, 259, 262}), "<s> ab  a");
  EXPECT_EQ(t.decode(Ids{1, 264, 259, 262}, {.skip_special = true}), "ab  a");
  EXPECT_TRUE(t.is_control(1));
  EXPECT_FALSE(t.is_control(0));  // unknown type: special, not control
  EXPECT_TRUE(t.is_special(0));

  TokenizerSpec no_prefix = spm_spec();
  no_prefix.add_space_prefix = false;
  no_prefix.add_bos = false;
  Result<Tokenizer> r2 = Tokenizer::from_spec(no_prefix);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->encode("ab"), (Ids{263}));
  EXPECT_EQ(r2->encode("a b"), (Ids{260, 259, 261}));
}

TEST(TokenizerEncode, SpecGpt2SmolLm) {
  TokenizerSpec s;
  s.model = "gpt2";
  s.pre = "smollm";
  for (int b = 0; b < 256; ++b) {
    std::string t;
    append_utf8(t, byte_to_unicode(static_cast<uint8_t>(b)));
    s.tokens.push_back(t);
  }
  s.tokens.push_back("12");          // 256: never used, digits are split one by one first
  s.tokens.push_back("<|im_end|>");  // 257
  s.token_types.assign(s.tokens.size(), 1);
  s.token_types[257] = 3;
  s.merges = {"1 2"};
  s.eos_id = 257;
  Result<Tokenizer> t = Tokenizer::from_spec(s);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->encode("12<|im_end|>"), (Ids{'1', '2', 257}));
  EXPECT_EQ(t->eot_id(), 257);  // found by its text, as llama.cpp does
  EXPECT_EQ(t->decode(Ids{'1', '2', 257}), "12<|im_end|>");
  EXPECT_EQ(t->decode(Ids{'1', '2', 257}, {.skip_special = true}), "12");
  s.pre = "qwen2";
  EXPECT_EQ(Tokenizer::from_spec(s)->encode("12"), (Ids{'1', '2'}));
  s.pre = "gpt2";
  EXPECT_EQ(Tokenizer::from_spec(s)->encode("12"), (Ids{256}));
}

TEST(TokenizerEncode, PostProcessors) {
  json j = byte_level_json({"he", "ll", "llo", "hello"}, {"h e", "l l", "ll o", "he llo"});
  // ids: hello 259, <|endoftext|> 260, <|im_start|> 261.
  j["post_processor"] = {{"type", "RobertaProcessing"},
                         {"sep", {"<|endoftext|>", 260}},
                         {"cls", {"<|im_start|>", 261}},
                         {"trim_offsets", true},
                         {"add_prefix_space", false}};
  EXPECT_EQ(load(j).encode("hello"), (Ids{261, 259, 260}));
  EXPECT_EQ(load(j).encode("hello", {.add_special = false}), (Ids{259}));
  EXPECT_EQ(load(j).bos_id(), 261);
  EXPECT_EQ(load(j).eos_id(), 260);
  j["post_processor"] = {{"type", "Sequence"},
                         {"processors",
                          {{{"type", "ByteLevel"},
                            {"add_prefix_space", false},
                            {"trim_offsets", false},
                            {"use_regex", true}},
                           {{"type", "TemplateProcessing"},
                            {"single",
                             {{{"SpecialToken", {{"id", "B"}, {"type_id", 0}}}},
                              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                              {{"SpecialToken", {{"id", "E"}, {"type_id", 0}}}}}},
                            {"pair", json::array()},
                            {"special_tokens",
                             {{"B", {{"id", "B"}, {"ids", {261, 261}}, {"tokens", {"x", "x"}}}},
                              {"E", {{"id", "E"}, {"ids", {260}}, {"tokens", {"y"}}}}}}}}}};
  EXPECT_EQ(load(j).encode("hello"), (Ids{261, 261, 259, 260}));
}

TEST(TokenizerDecode, ByteLevel) {
  const Tokenizer t = hello_tokenizer();
  EXPECT_EQ(t.decode(t.encode("hello world")), "hello world");
  EXPECT_EQ(t.decode(Ids{262, 259}), "<|endoftext|>hello");
  EXPECT_EQ(t.decode(Ids{262, 259}, {.skip_special = true}), "hello");
  // Ids without a token are skipped; invalid UTF-8 becomes U+FFFD.
  EXPECT_EQ(t.decode(Ids{-1, 259, 100000}), "hello");
  EXPECT_EQ(t.decode(Ids{0xC3, 'a', 0xE2, 0x82}), "\uFFFDa\uFFFD");
  EXPECT_EQ(t.decode(Ids{0xF0, 0x9F, 0x98, 0x80}), "\U0001F600");
}

// The text of push() calls and finish() after each id of `ids`.
std::vector<std::string> stream(const Tokenizer& t, const Ids& ids, DecodeOptions o = {}) {
  StreamDecoder d(t, o);
  std::vector<std::string> out;
  for (int32_t id : ids) out.push_back(d.push(id));
  out.push_back(d.finish());
  return out;
}

TEST(TokenizerDecode, StreamHoldsBackSplitCharacters) {
  const Tokenizer t = hello_tokenizer();
  // 😀 is F0 9F 98 80: nothing until its last byte.
  EXPECT_EQ(stream(t, Ids{259, 0xF0, 0x9F, 0x98, 0x80, 260}),
            (std::vector<std::string>{"hello", "", "", "", "\U0001F600", " w", ""}));
  // An incomplete character at the end comes out of finish() as U+FFFD.
  EXPECT_EQ(stream(t, Ids{'a', 0xE2, 0x82}), (std::vector<std::string>{"a", "", "", "\uFFFD"}));
  EXPECT_EQ(stream(t, Ids{262, 'a'}, {.skip_special = true}),
            (std::vector<std::string>{"", "a", ""}));
  // SentencePiece: the leading space is stripped once, as decode() does.
  const Tokenizer spm = load(spm_json());
  const Ids ids = {1, 263, 259, 3 + 0xC3, 3 + 0xA9, 262};
  std::string all;
  for (const std::string& piece : stream(spm, ids, {.skip_special = true})) all += piece;
  EXPECT_EQ(all, spm.decode(ids, {.skip_special = true}));
  EXPECT_EQ(all, "ab \u00E9 a");
  EXPECT_EQ(stream(spm, Ids{263, 3 + 0xC3, 3 + 0xA9}),
            (std::vector<std::string>{"ab", "", "\u00E9", ""}));
  // A decoder that strips more than one leading space strips them at the start of the text
  // only, not at the start of each window.
  json strip2 = spm_json();
  strip2["decoder"]["decoders"][3]["start"] = 3;
  const Tokenizer s2 = load(strip2);
  const Ids spaced = {259, 259, 260, 259, 1, 259, 259, 259, 260};
  EXPECT_EQ(s2.decode(spaced), "a <s>   a");
  EXPECT_EQ(stream(s2, spaced),
            (std::vector<std::string>{"", "", "a", " ", "<s>", " ", " ", " ", "a", ""}));
}

TEST(TokenizerEncode, ConcurrentEncodesAgree) {
  const Tokenizer t = hello_tokenizer();
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i)
    texts.push_back("hello world " + std::to_string(i) + std::string(size_t(i % 7), 'l') + " or");
  std::vector<Ids> expected;
  for (const std::string& s : texts) expected.push_back(t.encode(s));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 20; ++round)
        for (size_t i = 0; i < texts.size(); ++i)
          if (t.encode(texts[(i + size_t(k)) % texts.size()]) !=
              expected[(i + size_t(k)) % texts.size()])
            ++mismatches[size_t(k)];
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(TokenizerEncode, LongInputsAreNotQuadratic) {
  const Tokenizer t = hello_tokenizer();
  const Tokenizer spm = load(spm_json());
  Result<Tokenizer> score = Tokenizer::from_spec(spm_spec());
  ASSERT_TRUE(score.ok());
  // 100 KB without a space: one pre-token (byte-level), one word (SentencePiece).
  std::string word;
  while (word.size() < 100000) word += "helloab";
  const auto start = std::chrono::steady_clock::now();
  const Ids a = t.encode(word);
  const Ids b = spm.encode(word);
  const Ids c = score->encode(word);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);  // quadratic merging would take minutes
  EXPECT_EQ(a.size(), 100002u / 7 * 3);
  EXPECT_EQ(t.decode(a), word);
  EXPECT_EQ(spm.decode(b, {.skip_special = true}), word);
  EXPECT_EQ(score->decode(c, {.skip_special = true}), word);
}

}  // namespace
}  // namespace cppnn::llm
