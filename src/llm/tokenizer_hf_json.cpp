// Tokenizer::from_hf_json: the top level of a tokenizer.json (HF tokenizer/serialization.rs),
// the BPE model (models/bpe/serialization.rs) and the added tokens
// (tokenizer/added_vocabulary.rs), checked so that the ids come out as HF's would.
#include "src/llm/tokenizer_hf_json.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "src/formats/json_reader.h"
#include "src/llm/tokenizer.h"

namespace cppnn::llm {
namespace {

using detail::AddedToken;
using detail::HfJsonError;
using detail::JsonAt;
using detail::TokenizerModel;

constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;  // 16.7M tokens: far above real models

// The model's vocabulary: "vocab": {"token": id, ...}.
void read_vocab(const JsonAt& j, TokenizerModel& m) {
  j.expect_object();
  const auto& members = j.value.members;
  m.vocab.reserve(members.size());
  int64_t max_id = -1;
  for (const auto& [token, value] : members) {
    const JsonAt entry{value, j.path + "[\"" + token + "\"]"};
    const int64_t id = entry.integer(0, kMaxTokenId);
    if (!m.vocab.emplace(token, static_cast<int32_t>(id)).second) entry.fail("repeated token");
    max_id = std::max(max_id, id);
  }
  // The ids may leave gaps (HF allows them), but not so many that the id table is mostly empty.
  if (max_id >= int64_t(members.size()) * 2 + 1024)
    j.fail("the ids leave too many gaps (largest id " + std::to_string(max_id) + " for " +
           std::to_string(members.size()) + " tokens)");
  m.tokens.assign(size_t(max_id + 1), std::string());
  m.has_token.assign(size_t(max_id + 1), 0);
  for (const auto& [token, id] : m.vocab) {
    if (m.has_token[size_t(id)]) {
      j.fail("tokens \"" + m.tokens[size_t(id)] + "\" and \"" + token + "\" have the same id " +
             std::to_string(id));
    }
    m.tokens[size_t(id)] = token;
    m.has_token[size_t(id)] = 1;
  }
}

// The id of vocabulary token `token` named at `j`.
int32_t vocab_id(const TokenizerModel& m, const JsonAt& j, const std::string& token) {
  const auto it = m.vocab.find(token);
  if (it == m.vocab.end()) j.fail("\"" + token + "\" is not in the vocabulary");
  return it->second;
}

// "merges": ["a b", ...] (older files) or [["a", "b"], ...]; rank = index.
void read_merges(const JsonAt& j, TokenizerModel& m) {
  const std::vector<JsonAt> items = j.items();
  m.merges.reserve(items.size());
  for (size_t rank = 0; rank < items.size(); ++rank) {
    const JsonAt& item = items[rank];
    std::string left, right;
    if (item.value.kind == formats::DocValue::Kind::kString) {
      // HF splits the string form at its first space, and wants exactly two parts.
      const std::string& s = item.value.s;
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
        item.fail("expected \"left right\"");
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else {
      const std::vector<JsonAt> pair = item.items();
      if (pair.size() != 2) item.fail("expected [\"left\", \"right\"]");
      left = pair[0].str();
      right = pair[1].str();
    }
    const int32_t l = vocab_id(m, item, left);
    const int32_t r = vocab_id(m, item, right);
    const int32_t merged = vocab_id(m, item, left + right);
    const uint64_t key = (uint64_t{static_cast<uint32_t>(l)} << 32) | static_cast<uint32_t>(r);
    // HF keeps the last rank of a repeated pair (a map insert per merge).
    m.merges[key] = detail::MergeRule{static_cast<uint32_t>(rank), merged};
  }
}

// "model": a BPE model.
void read_model(const JsonAt& j, TokenizerModel& m) {
  // Older files have no "type"; HF then recognises the model by its fields.
  const std::string type = j.find("type") != nullptr     ? j.type()
                           : j.find("merges") != nullptr ? "BPE"
                                                         : "(untyped)";
  if (type != "BPE") {
    (j.find("type") != nullptr ? j.at("type") : j)
        .fail("model " + type + " is not supported (supported: BPE)");
  }
  j.only_keys({"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix",
               "fuse_unk", "byte_fallback", "ignore_merges", "vocab", "merges"});
  if (const formats::DocValue* d = j.find("dropout");
      d != nullptr && d->kind != formats::DocValue::Kind::kNull) {
    j.at("dropout").fail("BPE dropout is not supported (it makes tokenization random)");
  }
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const formats::DocValue* v = j.find(affix);
    if (v != nullptr && v->kind != formats::DocValue::Kind::kNull &&
        !(v->kind == formats::DocValue::Kind::kString && v->s.empty())) {
      j.at(affix).fail(std::string("BPE ") + affix + " is not supported");
    }
  }
  m.merge_mode = detail::MergeMode::kRank;
  m.fuse_unk = j.flag("fuse_unk", false);
  m.byte_fallback = j.flag("byte_fallback", false);
  m.ignore_merges = j.flag("ignore_merges", false);
  read_vocab(j.at("vocab"), m);
  read_merges(j.at("merges"), m);
  if (const formats::DocValue* u = j.find("unk_token");
      u != nullptr && u->kind != formats::DocValue::Kind::kNull) {
    const JsonAt unk = j.at("unk_token");
    m.unk_id = vocab_id(m, unk, unk.str());
  }
}

// "added_tokens": HF adds them in order; a token of the model's vocabulary keeps its id, any
// other gets the next id after the vocabulary and the added tokens so far. A file whose ids
// differ from that (HF would renumber them, with a warning) is an error.
void read_added_tokens(const JsonAt& j, TokenizerModel& m) {
  if (j.is_null()) return;
  int64_t next_id = static_cast<int64_t>(m.vocab.size());
  for (const JsonAt& t : j.items()) {
    t.only_keys({"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"});
    AddedToken a;
    const int64_t id = t.at("id").integer(0, kMaxTokenId);
    a.content = t.at("content").str();
    if (a.content.empty()) t.at("content").fail("empty added token");
    a.special = t.flag("special", false);
    a.single_word = t.flag("single_word", false);
    a.lstrip = t.flag("lstrip", false);
    a.rstrip = t.flag("rstrip", false);
    a.normalized = t.flag("normalized", !a.special);
    int64_t expected = 0;
    if (const auto it = m.added_vocab.find(a.content); it != m.added_vocab.end()) {
      t.at("content").fail("repeated added token \"" + a.content + "\"");
    } else if (const auto v = m.vocab.find(a.content); v != m.vocab.end()) {
      expected = v->second;
    } else {
      expected = next_id;
    }
    if (id != expected) {
      t.at("id").fail("added token \"" + a.content + "\" has id " + std::to_string(id) +
                      " but HF tokenizers gives it id " + std::to_string(expected));
    }
    next_id = std::max(next_id, id + 1);
    a.id = static_cast<int32_t>(id);
    m.added_vocab.emplace(a.content, a.id);
    m.added.push_back(std::move(a));
  }
  m.added_vocab.clear();  // rebuilt by make_tokenizer
  // The id table grows over the added ids; an added token names its id's entry.
  for (const AddedToken& a : m.added) {
    if (size_t(a.id) >= m.tokens.size()) {
      m.tokens.resize(size_t(a.id) + 1);
      m.has_token.resize(size_t(a.id) + 1, 0);
    }
    m.tokens[size_t(a.id)] = a.content;
    m.has_token[size_t(a.id)] = 1;
  }
}

// The special ids of a tokenizer.json: BOS / EOS from the post-processor's template, else the
// well-known contents of the special added tokens; EOT as llama.cpp finds it; UNK the model's.
SpecialTokenIds guess_special_ids(const TokenizerModel& m) {
  SpecialTokenIds s;
  auto find_special = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view name : names) {
      for (const AddedToken& a : m.added) {
        if (a.special && a.content == name) return std::optional<int32_t>(a.id);
      }
    }
    return std::optional<int32_t>();
  };
  s.bos = !m.prefix_ids.empty()
              ? std::optional<int32_t>(m.prefix_ids.front())
              : find_special({"<s>", "<|begin_of_text|>", "<bos>", "<|startoftext|>"});
  s.eos = !m.suffix_ids.empty()
              ? std::optional<int32_t>(m.suffix_ids.back())
              : find_special({"</s>", "<|end_of_text|>", "<eos>", "<|endoftext|>"});
  s.eot = find_special(
      {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<EOT>"});
  s.pad = find_special({"<pad>", "<|pad|>", "[PAD]"});
  s.unk = m.unk_id;
  return s;
}

void read_tokenizer(const JsonAt& root, TokenizerModel& m) {
  root.expect_object();
  // HF ignores unknown top-level fields.
  if (const formats::DocValue* v = root.find("version")) {
    const JsonAt version{*v, "version"};
    if (version.str() != "1.0")
      version.fail("unknown tokenizer.json version \"" + version.str() + "\" (1.0 expected)");
  }
  for (const char* key : {"truncation", "padding"}) {
    if (const formats::DocValue* v = root.find(key);
        v != nullptr && v->kind != formats::DocValue::Kind::kNull) {
      JsonAt{*v, key}.fail(std::string(key) +
                           " is not supported (it changes the ids of a "
                           "single text)");
    }
  }
  read_model(root.at("model"), m);
  auto member = [&](const char* key) -> JsonAt {
    static const formats::DocValue kNull;
    const formats::DocValue* v = root.find(key);
    return {v != nullptr ? *v : kNull, key};
  };
  read_added_tokens(member("added_tokens"), m);
  read_normalizer(member("normalizer"), m.normalizers);
  read_pre_tokenizer(member("pre_tokenizer"), m.pre_tokenizers);
  read_decoder(member("decoder"), m.decoders);
  detail::PostProcessorIds post;
  const JsonAt post_json = member("post_processor");
  read_post_processor(post_json, post);
  for (int32_t id : post.prefix) {
    if (size_t(id) >= m.tokens.size())
      post_json.fail("token id " + std::to_string(id) + " is out of range");
  }
  for (int32_t id : post.suffix) {
    if (size_t(id) >= m.tokens.size())
      post_json.fail("token id " + std::to_string(id) + " is out of range");
  }
  m.prefix_ids = std::move(post.prefix);
  m.suffix_ids = std::move(post.suffix);
  // HF has no other notion of a control token than a special added token.
  m.control.assign(m.tokens.size(), 0);
  for (const AddedToken& a : m.added) {
    if (a.special) m.control[size_t(a.id)] = 1;
  }
}

}  // namespace

Result<Tokenizer> Tokenizer::from_hf_json(std::string_view json, std::string_view file_name) {
  Result<formats::DocValue> doc = formats::read_json(json, file_name);
  if (!doc.ok()) return doc.error();
  auto model = std::make_shared<TokenizerModel>();
  try {
    read_tokenizer(JsonAt{*doc, ""}, *model);
  } catch (const HfJsonError& e) {
    return ErrorInfo{ErrorKind::kDataError, "tokenizer.json error: " + std::string(file_name) +
                                                ": " + e.path + ": " + e.what};
  }
  const SpecialTokenIds special = guess_special_ids(*model);
  return make_tokenizer(std::move(model), special);
}

}  // namespace cppnn::llm
