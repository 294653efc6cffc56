// The GGUF-keyed JSON form of TokenizerSpec.
#include "src/llm/tokenizer_spec_json.h"

#include <cmath>
#include <limits>

#include "src/formats/json_reader.h"
#include "src/llm/tokenizer_hf_json.h"

namespace cppnn::llm {
namespace {

using detail::JsonAt;

constexpr std::string_view kPrefix = "tokenizer.ggml.";

void read_spec(const JsonAt& root, TokenizerSpec& spec) {
  root.expect_object();
  auto find = [&](std::string_view key) -> std::optional<JsonAt> {
    const std::string full = std::string(kPrefix) + std::string(key);
    const formats::DocValue* v = root.find(full);
    if (v == nullptr || v->kind == formats::DocValue::Kind::kNull) return std::nullopt;
    return JsonAt{*v, full};
  };
  auto strings = [&](std::string_view key, std::vector<std::string>& out) {
    if (const auto j = find(key)) {
      for (const JsonAt& s : j->items()) out.push_back(s.str());
    }
  };
  if (const auto j = find("model")) spec.model = j->str();
  if (const auto j = find("pre")) spec.pre = j->str();
  strings("tokens", spec.tokens);
  strings("merges", spec.merges);
  if (const auto j = find("scores")) {
    for (const JsonAt& s : j->items()) {
      if (!s.value.is_number()) s.fail("expected a number");
      const double v = s.value.kind == formats::DocValue::Kind::kFloat ? s.value.f
                       : s.value.kind == formats::DocValue::Kind::kInt ? double(s.value.i)
                                                                       : double(s.value.u);
      // A GGUF score is a float32: one that overflows it could not be written back as JSON.
      const float f = static_cast<float>(v);
      if (!std::isfinite(f)) s.fail("expected a float32 score (magnitude at most 3.4e38)");
      spec.scores.push_back(f);
    }
  }
  if (const auto j = find("token_type")) {
    for (const JsonAt& t : j->items())
      spec.token_types.push_back(static_cast<int32_t>(
          t.integer(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())));
  }
  auto id = [&](std::string_view key, std::optional<int64_t>& out) {
    if (const auto j = find(key)) out = j->integer(0, std::numeric_limits<int64_t>::max());
  };
  id("bos_token_id", spec.bos_id);
  id("eos_token_id", spec.eos_id);
  id("unknown_token_id", spec.unk_id);
  id("padding_token_id", spec.pad_id);
  id("eot_token_id", spec.eot_id);
  auto flag = [&](std::string_view key, std::optional<bool>& out) {
    if (const auto j = find(key)) out = j->boolean();
  };
  flag("add_bos_token", spec.add_bos);
  flag("add_eos_token", spec.add_eos);
  flag("add_space_prefix", spec.add_space_prefix);
}

}  // namespace

Result<TokenizerSpec> tokenizer_spec_from_json(std::string_view json, std::string_view file_name) {
  Result<formats::DocValue> doc = formats::read_json(json, file_name);
  if (!doc.ok()) return doc.error();
  TokenizerSpec spec;
  try {
    read_spec(JsonAt{*doc, ""}, spec);
  } catch (const detail::HfJsonError& e) {
    return ErrorInfo{ErrorKind::kDataError, "tokenizer spec error: " + std::string(file_name) +
                                                ": " + e.path + ": " + e.what};
  }
  return spec;
}

}  // namespace cppnn::llm
