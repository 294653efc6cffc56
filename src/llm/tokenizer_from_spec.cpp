// Tokenizer::from_spec: a GGUF vocabulary with llama.cpp's rules (llama-vocab.cpp
// llama_vocab::impl::load): the pre-tokenizer names and their regex families, the per-model
// defaults of add_bos / add_eos / add_space_prefix and of the special ids, and the added tokens
// (control, user-defined and unknown-type tokens, matched in the text before the model).
#include <array>
#include <memory>

#include "src/llm/tokenizer.h"
#include "src/llm/tokenizer_model.h"

namespace cppnn::llm {
namespace {

using detail::DecoderStep;
using detail::NormalizerStep;
using detail::PreTokenizerStep;
using detail::TokenizerModel;

ErrorInfo spec_error(const std::string& what) {
  return ErrorInfo{ErrorKind::kDataError, "GGUF tokenizer error: " + what};
}

// A regex family of llama.cpp's gpt2-model pre-tokenizers that cppnn implements.
enum class PreFamily {
  kGpt2,    // GPT-2's regex
  kSmolLm,  // \p{N} split first, then GPT-2's regex (StarCoder, SmolLM, ...)
  kLlama3,  // the Llama 3 regex (llama.cpp also sets ignore_merges and add_bos)
  kQwen2,   // the Qwen2 regex
};

struct PreName {
  std::string_view name;
  PreFamily family;
  bool llama3_defaults;  // llama.cpp sets ignore_merges = add_bos = true for these names
};

// The `tokenizer.ggml.pre` names llama.cpp maps to the families above.
constexpr std::array<PreName, 31> kPreNames = {{
    {"gpt2", PreFamily::kGpt2, false},         {"gpt-2", PreFamily::kGpt2, false},
    {"phi-2", PreFamily::kGpt2, false},        {"jina-es", PreFamily::kGpt2, false},
    {"jina-de", PreFamily::kGpt2, false},      {"gigachat", PreFamily::kGpt2, false},
    {"jina-v1-en", PreFamily::kGpt2, false},   {"jina-v2-es", PreFamily::kGpt2, false},
    {"jina-v2-de", PreFamily::kGpt2, false},   {"jina-v2-code", PreFamily::kGpt2, false},
    {"roberta-bpe", PreFamily::kGpt2, false},  {"mpt", PreFamily::kGpt2, false},
    {"olmo", PreFamily::kGpt2, false},         {"jais", PreFamily::kGpt2, false},
    {"starcoder", PreFamily::kSmolLm, false},  {"refact", PreFamily::kSmolLm, false},
    {"command-r", PreFamily::kSmolLm, false},  {"smollm", PreFamily::kSmolLm, false},
    {"codeshell", PreFamily::kSmolLm, false},  {"exaone", PreFamily::kSmolLm, false},
    {"minerva-7b", PreFamily::kSmolLm, false}, {"llama3", PreFamily::kLlama3, true},
    {"llama-v3", PreFamily::kLlama3, true},    {"llama-bpe", PreFamily::kLlama3, true},
    {"falcon3", PreFamily::kLlama3, true},     {"dbrx", PreFamily::kLlama3, false},
    {"smaug-bpe", PreFamily::kLlama3, false},  {"chatglm-bpe", PreFamily::kLlama3, false},
    {"qwen2", PreFamily::kQwen2, false},       {"stablelm2", PreFamily::kQwen2, false},
    {"megrez", PreFamily::kQwen2, false},
}};

// Names llama.cpp knows whose regexes cppnn does not implement.
constexpr std::array<std::string_view, 14> kUnsupportedPreNames = {
    "default", "deepseek-llm", "deepseek-coder", "deepseek-v3", "falcon", "poro-chat", "viking",
    "tekken",  "bloom",        "gpt3-finnish",   "chameleon",   "gpt-4o", "superbpe",  "trillion"};

std::string known_pre_names() {
  std::string s;
  for (const PreName& p : kPreNames) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

Result<const PreName*> find_pre_name(std::string_view pre) {
  for (const PreName& p : kPreNames) {
    if (p.name == pre) return &p;
  }
  for (std::string_view u : kUnsupportedPreNames) {
    if (u == pre) {
      return spec_error("tokenizer.ggml.pre '" + std::string(pre) +
                        "' is a llama.cpp pre-tokenizer cppnn does not implement; supported: " +
                        known_pre_names());
    }
  }
  if (pre.empty()) {
    return spec_error("tokenizer.ggml.pre is missing (a gpt2 tokenizer needs it); known: " +
                      known_pre_names());
  }
  return spec_error("unknown tokenizer.ggml.pre '" + std::string(pre) +
                    "'; known: " + known_pre_names());
}

std::vector<PreTokenizerStep> pre_tokenizer_steps(PreFamily family) {
  PreTokenizerStep byte_level{.kind = PreTokenizerStep::Kind::kByteLevel};
  byte_level.add_prefix_space = false;
  switch (family) {
    case PreFamily::kGpt2:
      byte_level.use_regex = true;
      return {byte_level};
    case PreFamily::kSmolLm: {
      PreTokenizerStep digits{.kind = PreTokenizerStep::Kind::kDigits};
      digits.individual_digits = true;
      byte_level.use_regex = true;
      return {digits, byte_level};
    }
    case PreFamily::kLlama3:
    case PreFamily::kQwen2: {
      PreTokenizerStep split{.kind = PreTokenizerStep::Kind::kSplit};
      split.regex = family == PreFamily::kLlama3 ? SplitRegex::kLlama3 : SplitRegex::kQwen2;
      byte_level.use_regex = false;
      return {split, byte_level};
    }
  }
  return {};
}

// A special id of the spec, checked against the vocabulary size.
Result<std::optional<int32_t>> spec_id(const std::optional<int64_t>& id, const char* key,
                                       size_t n) {
  if (!id) return std::optional<int32_t>();
  if (*id < 0 || uint64_t(*id) >= n) {
    return spec_error(std::string("tokenizer.ggml.") + key + " " + std::to_string(*id) +
                      " is out of range (vocabulary of " + std::to_string(n) + " tokens)");
  }
  return std::optional<int32_t>(static_cast<int32_t>(*id));
}

// The vocabulary, token types and added tokens.
Status load_vocabulary(const TokenizerSpec& spec, TokenizerModel& m) {
  const size_t n = spec.tokens.size();
  if (n == 0) return spec_error("tokenizer.ggml.tokens is empty");
  if (n > size_t{INT32_MAX}) return spec_error("tokenizer.ggml.tokens is too large");
  if (!spec.token_types.empty() && spec.token_types.size() != n) {
    return spec_error("tokenizer.ggml.token_type has " + std::to_string(spec.token_types.size()) +
                      " entries for " + std::to_string(n) + " tokens");
  }
  if (!spec.scores.empty() && spec.scores.size() != n) {
    return spec_error("tokenizer.ggml.scores has " + std::to_string(spec.scores.size()) +
                      " entries for " + std::to_string(n) + " tokens");
  }
  m.tokens = spec.tokens;
  m.has_token.assign(n, 1);
  m.control.assign(n, 0);
  m.scores = spec.scores;
  m.scores.resize(n, 0.0f);
  m.vocab.reserve(n);
  for (size_t id = 0; id < n; ++id) {
    // llama.cpp names an empty token "[EMPTY_<id>]".
    if (m.tokens[id].empty()) m.tokens[id] = "[EMPTY_" + std::to_string(id) + "]";
    if (!m.vocab.emplace(m.tokens[id], static_cast<int32_t>(id)).second) {
      return spec_error("tokenizer.ggml.tokens[" + std::to_string(id) + "] '" + m.tokens[id] +
                        "' repeats token " + std::to_string(m.vocab.find(m.tokens[id])->second));
    }
    const int32_t type = spec.token_types.empty() ? 1 : spec.token_types[id];
    if (type < 0 || type > 6) {
      return spec_error("tokenizer.ggml.token_type[" + std::to_string(id) + "] " +
                        std::to_string(type) + " is not a token type (0 to 6)");
    }
    const auto t = static_cast<TokenType>(type);
    if (t == TokenType::kControl) m.control[id] = 1;
    // llama.cpp matches control, user-defined and unknown-type tokens in the text first; with
    // parse_special off only the user-defined ones.
    if (t == TokenType::kControl || t == TokenType::kUserDefined || t == TokenType::kUnknown) {
      detail::AddedToken a;
      a.id = static_cast<int32_t>(id);
      a.content = m.tokens[id];
      a.special = t != TokenType::kUserDefined;
      m.added.push_back(std::move(a));
    }
  }
  return Ok{};
}

// The merges "left right" (rank = index) of a gpt2 model.
Status load_merges(const TokenizerSpec& spec, TokenizerModel& m) {
  if (spec.merges.empty()) return spec_error("tokenizer.ggml.merges is missing or empty");
  m.merges.reserve(spec.merges.size());
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    const std::string& merge = spec.merges[rank];
    const std::string where = "tokenizer.ggml.merges[" + std::to_string(rank) + "] '" + merge + "'";
    // llama.cpp splits at the first space after the first byte.
    const size_t space = merge.find(' ', 1);
    if (space == std::string::npos) return spec_error(where + " is not two tokens");
    const std::string left = merge.substr(0, space), right = merge.substr(space + 1);
    const auto l = m.vocab.find(left), r = m.vocab.find(right), c = m.vocab.find(left + right);
    if (l == m.vocab.end() || r == m.vocab.end() || c == m.vocab.end()) {
      const std::string& missing = l == m.vocab.end()   ? left
                                   : r == m.vocab.end() ? right
                                                        : left + right;
      return spec_error(where + ": '" + missing + "' is not in the vocabulary");
    }
    const uint64_t key =
        (uint64_t{static_cast<uint32_t>(l->second)} << 32) | static_cast<uint32_t>(r->second);
    // A repeated pair keeps its first (lowest) rank.
    m.merges.emplace(key, detail::MergeRule{static_cast<uint32_t>(rank), c->second});
  }
  return Ok{};
}

// The EOT id llama.cpp finds by text when the file names none.
std::optional<int32_t> detect_eot(const TokenizerModel& m) {
  for (std::string_view text : {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>",
                                "<|endoftext|>", "<EOT>", "<｜end▁of▁sentence｜>"}) {
    if (const auto it = m.vocab.find(text); it != m.vocab.end()) return it->second;
  }
  return std::nullopt;
}

}  // namespace

Result<Tokenizer> Tokenizer::from_spec(TokenizerSpec spec) {
  auto model = std::make_shared<TokenizerModel>();
  TokenizerModel& m = *model;
  CPPNN_RETURN_IF_ERROR(load_vocabulary(spec, m));
  const size_t n = m.tokens.size();
  SpecialTokenIds special;
  bool add_bos = false, add_eos = false;
  if (spec.model == "gpt2") {
    Result<const PreName*> pre = find_pre_name(spec.pre);
    if (!pre.ok()) return pre.error();
    CPPNN_RETURN_IF_ERROR(load_merges(spec, m));
    m.merge_mode = detail::MergeMode::kRank;
    m.ignore_merges = (*pre)->llama3_defaults;
    add_bos = (*pre)->llama3_defaults;
    m.pre_tokenizers = pre_tokenizer_steps((*pre)->family);
    m.decoders = {DecoderStep{.kind = DecoderStep::Kind::kByteLevel}};
  } else if (spec.model == "llama") {
    m.merge_mode = detail::MergeMode::kScore;
    add_bos = true;
    // llama.cpp's SPM defaults: <unk> 0, <s> 1, </s> 2.
    special.unk = 0;
    special.bos = n > 1 ? std::optional<int32_t>(1) : std::nullopt;
    special.eos = n > 2 ? std::optional<int32_t>(2) : std::nullopt;
    const bool space_prefix = spec.add_space_prefix.value_or(true);
    if (space_prefix) m.normalizers.push_back({NormalizerStep::Kind::kPrepend, "\u2581", ""});
    m.normalizers.push_back({NormalizerStep::Kind::kReplace, " ", "\u2581"});
    m.decoders = {DecoderStep{.kind = DecoderStep::Kind::kReplace}};
    m.decoders[0].pattern = "\u2581";
    m.decoders[0].content = " ";
    m.decoders.push_back({.kind = DecoderStep::Kind::kByteFallback});
    m.decoders.push_back({.kind = DecoderStep::Kind::kFuse});
    if (space_prefix) {
      DecoderStep strip{.kind = DecoderStep::Kind::kStrip};
      strip.content = " ";
      strip.start = 1;
      m.decoders.push_back(strip);
    }
  } else {
    return spec_error("tokenizer.ggml.model '" + spec.model +
                      "' is not supported (supported: gpt2, llama)");
  }
  struct Key {
    const std::optional<int64_t>& value;
    const char* name;
    std::optional<int32_t>& target;
  };
  for (const Key& k : {Key{spec.bos_id, "bos_token_id", special.bos},
                       Key{spec.eos_id, "eos_token_id", special.eos},
                       Key{spec.unk_id, "unknown_token_id", special.unk},
                       Key{spec.pad_id, "padding_token_id", special.pad},
                       Key{spec.eot_id, "eot_token_id", special.eot}}) {
    Result<std::optional<int32_t>> id = spec_id(k.value, k.name, n);
    if (!id.ok()) return id.error();
    if (*id) k.target = *id;
  }
  if (!special.eot) special.eot = detect_eot(m);
  if (spec.model == "llama") m.unk_id = special.unk;
  add_bos = spec.add_bos.value_or(add_bos);
  add_eos = spec.add_eos.value_or(add_eos);
  if (add_bos) {
    if (!special.bos) return spec_error("add_bos_token is set but the model has no BOS token");
    m.prefix_ids.push_back(*special.bos);
  }
  if (add_eos) {
    if (!special.eos) return spec_error("add_eos_token is set but the model has no EOS token");
    m.suffix_ids.push_back(*special.eos);
  }
  return make_tokenizer(std::move(model), special);
}

}  // namespace cppnn::llm
