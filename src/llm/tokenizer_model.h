// The loaded form of a tokenizer (internal to src/llm/tokenizer*): the vocabulary, the BPE
// merges, the added tokens and the pipeline of HF `tokenizers` (normalizer steps, pre-tokenizer
// steps, model, post-processor, decoder steps) that both loaders (tokenizer.json and
// TokenizerSpec) fill. make_tokenizer() checks it and builds the indexes.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/llm/tokenizer_added.h"
#include "src/llm/tokenizer_regex.h"

namespace cppnn::llm::detail {

// Hash of std::string keys that also accepts string_view (heterogeneous lookup).
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
// A string -> id map looked up with string_view.
using TokenMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

// A normalizer step (HF normalizers): NFC, NFD, Prepend(text), Replace(text -> content).
struct NormalizerStep {
  enum class Kind : uint8_t { kNfc, kNfd, kPrepend, kReplace };
  Kind kind = Kind::kNfc;
  std::string text;     // kPrepend: the prefix; kReplace: the string replaced
  std::string content;  // kReplace: its replacement
};

// HF Metaspace's prepend_scheme.
enum class PrependScheme : uint8_t { kAlways, kFirst, kNever };

// A pre-tokenizer step (HF pre_tokenizers).
struct PreTokenizerStep {
  enum class Kind : uint8_t {
    kSplit,      // Split(regex, behavior Isolated): each match its own piece
    kDigits,     // Digits(individual_digits)
    kByteLevel,  // ByteLevel(add_prefix_space, use_regex): GPT-2 split + byte-to-unicode map
    kMetaspace,  // Metaspace(replacement, prepend_scheme, split)
  };
  Kind kind = Kind::kSplit;
  SplitRegex regex = SplitRegex::kGpt2;                   // kSplit
  bool individual_digits = false;                         // kDigits
  bool add_prefix_space = false;                          // kByteLevel
  bool use_regex = true;                                  // kByteLevel
  std::string replacement;                                // kMetaspace (one character)
  PrependScheme prepend_scheme = PrependScheme::kAlways;  // kMetaspace
  bool split = true;                                      // kMetaspace
};

// A decoder step (HF decoders), applied to the list of token strings in turn.
struct DecoderStep {
  enum class Kind : uint8_t { kByteLevel, kReplace, kByteFallback, kFuse, kStrip, kMetaspace };
  Kind kind = Kind::kByteLevel;
  std::string pattern;      // kReplace: the string replaced
  std::string content;      // kReplace: its replacement; kStrip: the character stripped
  uint32_t start = 0;       // kStrip: how many leading `content` characters at most
  uint32_t stop = 0;        // kStrip: how many trailing ones
  std::string replacement;  // kMetaspace
  PrependScheme prepend_scheme = PrependScheme::kAlways;  // kMetaspace
};

// How BPE picks the next merge.
enum class MergeMode : uint8_t {
  kRank,   // the pair with the lowest merge rank (HF BPE, llama.cpp gpt2 models)
  kScore,  // the pair whose merged string is the token of highest score (llama.cpp SPM)
};

// A merge rule of the rank mode: the pair's rank and the merged token.
struct MergeRule {
  uint32_t rank;
  int32_t merged_id;
};

// The bounded word cache of the BPE model (HF caches words the same way): pre-token -> ids.
struct WordCache {
  static constexpr size_t kMaxEntries = 16384;
  static constexpr size_t kMaxWordBytes = 256;
  mutable std::shared_mutex mutex;
  mutable std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> words;
};

struct TokenizerModel {
  // The vocabulary by id ("" where `has_token` is 0), and the model's own token -> id map.
  std::vector<std::string> tokens;
  std::vector<uint8_t> has_token;
  TokenMap vocab;
  // Per id: skipped by DecodeOptions::skip_special / a control token.
  std::vector<uint8_t> special;
  std::vector<uint8_t> control;

  // The BPE model.
  MergeMode merge_mode = MergeMode::kRank;
  std::unordered_map<uint64_t, MergeRule> merges;  // key: left id << 32 | right id
  std::vector<float> scores;                       // kScore: by id
  std::optional<int32_t> unk_id;
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::array<int32_t, 256> byte_tokens{};  // the id of "<0xXX>" per byte, -1 when absent

  // Added tokens: their flags, the content -> id map, and the two matchers (on the raw text
  // for normalized=false tokens, on the normalized text for the others).
  std::vector<AddedToken> added;
  TokenMap added_vocab;
  AddedTokenMatcher raw_matcher;
  AddedTokenMatcher normalized_matcher;

  std::vector<NormalizerStep> normalizers;
  std::vector<PreTokenizerStep> pre_tokenizers;
  std::vector<DecoderStep> decoders;
  // The post-processor for one sequence: ids before and after it (add_special).
  std::vector<int32_t> prefix_ids;
  std::vector<int32_t> suffix_ids;

  WordCache cache;
};

}  // namespace cppnn::llm::detail
