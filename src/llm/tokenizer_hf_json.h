// Reading a Hugging Face tokenizer.json (internal to the loader): typed access to the parsed
// JSON with the JSON path of every value in its errors, and the readers of the pipeline
// components (tokenizer_hf_components.cpp). Errors are thrown as HfJsonError inside the loader
// and returned as a DataError by Tokenizer::from_hf_json.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "src/formats/graph_doc.h"
#include "src/llm/tokenizer_model.h"

namespace cppnn::llm::detail {

using formats::DocValue;

// A tokenizer.json error: the JSON path of the value and what is wrong with it.
struct HfJsonError {
  std::string path;
  std::string what;
};

// A value of the document and its JSON path ("model.vocab", "added_tokens[3].id"; "" for the
// root).
struct JsonAt {
  const DocValue& value;
  std::string path;

  [[noreturn]] void fail(const std::string& what) const;
  bool is_null() const { return value.kind == DocValue::Kind::kNull; }
  // The value as a string / bool / integer in [lo, hi]; anything else is an error.
  const std::string& str() const;
  bool boolean() const;
  int64_t integer(int64_t lo, int64_t hi) const;
  // An error unless this is an object.
  void expect_object() const;
  // The member `key` of this object (an error when this is no object or it has no such
  // member), or (find) nullptr when it has none.
  JsonAt at(std::string_view key) const;
  const DocValue* find(std::string_view key) const;
  // The path of member `key`.
  std::string member_path(std::string_view key) const;
  // A bool member, `fallback` when it is missing.
  bool flag(std::string_view key, bool fallback) const;
  // The elements of this array.
  std::vector<JsonAt> items() const;
  // An error for a member not in `known` (a field this reader does not understand) and for a
  // repeated member.
  void only_keys(std::initializer_list<std::string_view> known) const;
  // The "type" member of a component object.
  const std::string& type() const { return at("type").str(); }
};

// The component readers; each appends to the model's step list, or fills the post-processor's
// prefix/suffix token names.
void read_normalizer(const JsonAt& j, std::vector<NormalizerStep>& steps);
void read_pre_tokenizer(const JsonAt& j, std::vector<PreTokenizerStep>& steps);
void read_decoder(const JsonAt& j, std::vector<DecoderStep>& steps);

// The post-processor for one sequence: the ids it puts before and after it.
struct PostProcessorIds {
  std::vector<int32_t> prefix;
  std::vector<int32_t> suffix;
};
void read_post_processor(const JsonAt& j, PostProcessorIds& ids);

}  // namespace cppnn::llm::detail
