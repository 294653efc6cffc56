// The tokenizer.json pipeline components cppnn implements, read with HF's field names and
// defaults (tokenizers/src/{normalizers,pre_tokenizers,processors,decoders}). Any other
// component type, an unknown field or an unsupported option value is an error that names it.
#include <limits>

#include "src/llm/tokenizer_hf_json.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm::detail {

// ---- JsonAt ----

void JsonAt::fail(const std::string& what) const {
  throw HfJsonError{path.empty() ? "(root)" : path, what};
}

std::string JsonAt::member_path(std::string_view key) const {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

const std::string& JsonAt::str() const {
  if (value.kind != DocValue::Kind::kString) fail("expected a string");
  return value.s;
}

bool JsonAt::boolean() const {
  if (value.kind != DocValue::Kind::kBool) fail("expected true or false");
  return value.b;
}

int64_t JsonAt::integer(int64_t lo, int64_t hi) const {
  if (value.kind == DocValue::Kind::kInt && value.i >= lo && value.i <= hi) return value.i;
  if (value.kind == DocValue::Kind::kInt || value.kind == DocValue::Kind::kUint)
    fail("integer out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  fail("expected an integer");
}

void JsonAt::expect_object() const {
  if (value.kind != DocValue::Kind::kObject) fail("expected an object");
}

const DocValue* JsonAt::find(std::string_view key) const {
  expect_object();
  return value.find(key);
}

JsonAt JsonAt::at(std::string_view key) const {
  const DocValue* v = find(key);
  if (v == nullptr) fail("missing member \"" + std::string(key) + "\"");
  return {*v, member_path(key)};
}

bool JsonAt::flag(std::string_view key, bool fallback) const {
  const DocValue* v = find(key);
  if (v == nullptr) return fallback;
  return JsonAt{*v, member_path(key)}.boolean();
}

std::vector<JsonAt> JsonAt::items() const {
  if (value.kind != DocValue::Kind::kArray) fail("expected an array");
  std::vector<JsonAt> out;
  out.reserve(value.items.size());
  for (size_t i = 0; i < value.items.size(); ++i)
    out.push_back({value.items[i], path + "[" + std::to_string(i) + "]"});
  return out;
}

void JsonAt::only_keys(std::initializer_list<std::string_view> known) const {
  expect_object();
  for (size_t i = 0; i < value.members.size(); ++i) {
    const std::string& key = value.members[i].first;
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == key;
    if (!ok) fail("unknown field \"" + key + "\" (not supported by cppnn's tokenizer)");
    for (size_t j = 0; j < i; ++j) {
      if (value.members[j].first == key) fail("repeated field \"" + key + "\"");
    }
  }
}

namespace {

// The string of a {"String": s} pattern; a {"Regex": r} pattern is unsupported here.
std::string string_pattern(const JsonAt& pattern, const std::string& component) {
  if (pattern.find("String") != nullptr) {
    pattern.only_keys({"String"});
    const std::string& s = pattern.at("String").str();
    if (s.empty()) pattern.fail("empty pattern");
    return s;
  }
  if (pattern.find("Regex") != nullptr)
    pattern.fail(component + " with a Regex pattern is not supported (only String patterns)");
  pattern.fail("expected {\"String\": ...} or {\"Regex\": ...}");
}

// A string member that must be exactly one character (Metaspace's replacement, Strip's
// content).
std::string one_character(const JsonAt& j) {
  const std::string& s = j.str();
  if (s.empty() || decode_utf8(s, 0).length != s.size() || !is_valid_utf8(s))
    j.fail("expected exactly one character");
  return s;
}

PrependScheme prepend_scheme(const JsonAt& j) {
  // Older files have add_prefix_space instead (HF reads it as "always" / "never").
  if (j.find("prepend_scheme") == nullptr) {
    return j.flag("add_prefix_space", true) ? PrependScheme::kAlways : PrependScheme::kNever;
  }
  const JsonAt s = j.at("prepend_scheme");
  if (s.str() == "always") return PrependScheme::kAlways;
  if (s.str() == "first") return PrependScheme::kFirst;
  if (s.str() == "never") return PrependScheme::kNever;
  s.fail("unknown prepend_scheme \"" + s.str() + "\" (always, first or never)");
}

}  // namespace

// ---- normalizers ----

void read_normalizer(const JsonAt& j, std::vector<NormalizerStep>& steps) {
  if (j.is_null()) return;
  const std::string& type = j.type();
  if (type == "Sequence") {
    j.only_keys({"type", "normalizers"});
    for (const JsonAt& n : j.at("normalizers").items()) read_normalizer(n, steps);
  } else if (type == "NFC" || type == "NFD") {
    j.only_keys({"type"});
    steps.push_back({type == "NFC" ? NormalizerStep::Kind::kNfc : NormalizerStep::Kind::kNfd});
  } else if (type == "Prepend") {
    j.only_keys({"type", "prepend"});
    steps.push_back({NormalizerStep::Kind::kPrepend, j.at("prepend").str(), ""});
  } else if (type == "Replace") {
    j.only_keys({"type", "pattern", "content"});
    steps.push_back({NormalizerStep::Kind::kReplace,
                     string_pattern(j.at("pattern"), "normalizer Replace"), j.at("content").str()});
  } else {
    j.at("type").fail("normalizer " + type +
                      " is not supported (supported: NFC, NFD, Prepend, "
                      "Replace, Sequence)");
  }
}

// ---- pre-tokenizers ----

void read_pre_tokenizer(const JsonAt& j, std::vector<PreTokenizerStep>& steps) {
  if (j.is_null()) return;
  const std::string& type = j.type();
  PreTokenizerStep step;
  if (type == "Sequence") {
    j.only_keys({"type", "pretokenizers"});
    for (const JsonAt& p : j.at("pretokenizers").items()) read_pre_tokenizer(p, steps);
    return;
  }
  if (type == "ByteLevel") {
    j.only_keys({"type", "add_prefix_space", "trim_offsets", "use_regex"});
    step.kind = PreTokenizerStep::Kind::kByteLevel;
    step.add_prefix_space = j.flag("add_prefix_space", true);
    step.use_regex = j.flag("use_regex", true);
    j.flag("trim_offsets", true);  // offsets only
  } else if (type == "Digits") {
    j.only_keys({"type", "individual_digits"});
    step.kind = PreTokenizerStep::Kind::kDigits;
    step.individual_digits = j.flag("individual_digits", false);
  } else if (type == "Split") {
    j.only_keys({"type", "pattern", "behavior", "invert"});
    step.kind = PreTokenizerStep::Kind::kSplit;
    const JsonAt pattern = j.at("pattern");
    if (pattern.find("Regex") == nullptr) {
      pattern.fail("pre_tokenizer Split is supported with a Regex pattern only");
    }
    pattern.only_keys({"Regex"});
    const JsonAt regex = pattern.at("Regex");
    const std::optional<SplitRegex> known = known_split_regex(regex.str());
    if (!known) {
      regex.fail("pre_tokenizer Split pattern \"" + regex.str() +
                 "\" is none of the regexes cppnn implements (GPT-2, Llama 3, Qwen2)");
    }
    step.regex = *known;
    const JsonAt behavior = j.at("behavior");
    if (behavior.str() != "Isolated")
      behavior.fail("pre_tokenizer Split behavior \"" + behavior.str() +
                    "\" is not supported (only Isolated)");
    if (j.flag("invert", false))
      j.at("invert").fail(
          "pre_tokenizer Split with invert: true is "
          "not supported");
  } else if (type == "Metaspace") {
    j.only_keys({"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"});
    step.kind = PreTokenizerStep::Kind::kMetaspace;
    step.replacement = one_character(j.at("replacement"));
    step.prepend_scheme = prepend_scheme(j);
    step.split = j.flag("split", true);
  } else {
    j.at("type").fail("pre_tokenizer " + type +
                      " is not supported (supported: ByteLevel, "
                      "Digits, Split, Metaspace, Sequence)");
  }
  steps.push_back(std::move(step));
}

// ---- decoders ----

void read_decoder(const JsonAt& j, std::vector<DecoderStep>& steps) {
  if (j.is_null()) return;
  const std::string& type = j.type();
  DecoderStep step;
  if (type == "Sequence") {
    j.only_keys({"type", "decoders"});
    for (const JsonAt& d : j.at("decoders").items()) read_decoder(d, steps);
    return;
  }
  if (type == "ByteLevel") {
    j.only_keys({"type", "add_prefix_space", "trim_offsets", "use_regex"});
    step.kind = DecoderStep::Kind::kByteLevel;
  } else if (type == "Replace") {
    j.only_keys({"type", "pattern", "content"});
    step.kind = DecoderStep::Kind::kReplace;
    step.pattern = string_pattern(j.at("pattern"), "decoder Replace");
    step.content = j.at("content").str();
  } else if (type == "ByteFallback" || type == "Fuse") {
    j.only_keys({"type"});
    step.kind = type == "Fuse" ? DecoderStep::Kind::kFuse : DecoderStep::Kind::kByteFallback;
  } else if (type == "Strip") {
    j.only_keys({"type", "content", "start", "stop"});
    step.kind = DecoderStep::Kind::kStrip;
    step.content = one_character(j.at("content"));
    step.start = static_cast<uint32_t>(j.at("start").integer(0, 1 << 20));
    step.stop = static_cast<uint32_t>(j.at("stop").integer(0, 1 << 20));
  } else if (type == "Metaspace") {
    j.only_keys({"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"});
    step.kind = DecoderStep::Kind::kMetaspace;
    step.replacement = one_character(j.at("replacement"));
    step.prepend_scheme = prepend_scheme(j);
  } else {
    j.at("type").fail("decoder " + type +
                      " is not supported (supported: ByteLevel, Replace, "
                      "ByteFallback, Fuse, Strip, Metaspace, Sequence)");
  }
  steps.push_back(std::move(step));
}

// ---- post-processors ----

namespace {

constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max() - 1;

// A ["token", id] pair of Roberta/Bert processors: the id.
int32_t token_pair_id(const JsonAt& j) {
  const std::vector<JsonAt> pair = j.items();
  if (pair.size() != 2) j.fail("expected [\"token\", id]");
  pair[0].str();
  return static_cast<int32_t>(pair[1].integer(0, kMaxId));
}

// TemplateProcessing's "single" template around one sequence.
void read_template(const JsonAt& j, PostProcessorIds& ids) {
  j.only_keys({"type", "single", "pair", "special_tokens"});
  const JsonAt specials = j.at("special_tokens");
  specials.expect_object();
  PostProcessorIds mine;
  bool seen_sequence = false;
  for (const JsonAt& item : j.at("single").items()) {
    if (const DocValue* s = item.find("SpecialToken")) {
      item.only_keys({"SpecialToken"});
      const JsonAt special{*s, item.path + ".SpecialToken"};
      special.only_keys({"id", "type_id"});
      const std::string& name = special.at("id").str();
      const DocValue* entry = specials.find(name);
      if (entry == nullptr) special.at("id").fail("no special_tokens entry \"" + name + "\"");
      const JsonAt e{*entry, specials.path + "[\"" + name + "\"]"};
      e.only_keys({"id", "ids", "tokens"});
      std::vector<int32_t>& target = seen_sequence ? mine.suffix : mine.prefix;
      for (const JsonAt& id : e.at("ids").items())
        target.push_back(static_cast<int32_t>(id.integer(0, kMaxId)));
    } else if (const DocValue* s = item.find("Sequence")) {
      item.only_keys({"Sequence"});
      const JsonAt seq{*s, item.path + ".Sequence"};
      seq.only_keys({"id", "type_id"});
      if (seq.at("id").str() != "A") seq.at("id").fail("the single template can only hold A");
      if (seen_sequence) seq.fail("the single template holds A twice");
      seen_sequence = true;
    } else {
      item.fail("expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    }
  }
  if (!seen_sequence) j.at("single").fail("the single template does not hold A");
  // Applied after the processors before it: around their result.
  ids.prefix.insert(ids.prefix.begin(), mine.prefix.begin(), mine.prefix.end());
  ids.suffix.insert(ids.suffix.end(), mine.suffix.begin(), mine.suffix.end());
}

}  // namespace

void read_post_processor(const JsonAt& j, PostProcessorIds& ids) {
  if (j.is_null()) return;
  const std::string& type = j.type();
  if (type == "Sequence") {
    j.only_keys({"type", "processors"});
    for (const JsonAt& p : j.at("processors").items()) read_post_processor(p, ids);
  } else if (type == "ByteLevel") {
    j.only_keys({"type", "add_prefix_space", "trim_offsets", "use_regex"});  // offsets only
  } else if (type == "TemplateProcessing") {
    read_template(j, ids);
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    j.only_keys({"type", "sep", "cls", "trim_offsets", "add_prefix_space"});
    ids.prefix.insert(ids.prefix.begin(), token_pair_id(j.at("cls")));
    ids.suffix.push_back(token_pair_id(j.at("sep")));
  } else {
    j.at("type").fail("post_processor " + type +
                      " is not supported (supported: ByteLevel, "
                      "TemplateProcessing, RobertaProcessing, BertProcessing, Sequence)");
  }
}

}  // namespace cppnn::llm::detail
