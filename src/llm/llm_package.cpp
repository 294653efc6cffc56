#include "src/llm/llm_package.h"

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "src/llm/tokenizer_spec_json.h"

namespace cppnn::llm {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kFormat = "cppnn-llm";
constexpr int kVersion = 1;

json tokenizer_json(const TokenizerSpec& s) {
  json t = json::object();
  const std::string p = "tokenizer.ggml.";
  t[p + "model"] = s.model;
  if (!s.pre.empty()) t[p + "pre"] = s.pre;
  t[p + "tokens"] = s.tokens;
  if (!s.scores.empty()) t[p + "scores"] = s.scores;
  if (!s.token_types.empty()) t[p + "token_type"] = s.token_types;
  if (!s.merges.empty()) t[p + "merges"] = s.merges;
  auto id = [&](const char* key, const std::optional<int64_t>& v) {
    if (v) t[p + key] = *v;
  };
  id("bos_token_id", s.bos_id);
  id("eos_token_id", s.eos_id);
  id("unknown_token_id", s.unk_id);
  id("padding_token_id", s.pad_id);
  id("eot_token_id", s.eot_id);
  auto flag = [&](const char* key, const std::optional<bool>& v) {
    if (v) t[p + key] = *v;
  };
  flag("add_bos_token", s.add_bos);
  flag("add_eos_token", s.add_eos);
  flag("add_space_prefix", s.add_space_prefix);
  return t;
}

// A field error, thrown inside the parser and turned into a DataError.
struct FieldError {
  std::string message;
};

const json& field(const json& object, const char* key, const char* where) {
  auto it = object.find(key);
  if (it == object.end()) throw FieldError{str_cat(where, ": the field `", key, "` is missing")};
  return *it;
}

std::string text(const json& object, const char* key, const char* where) {
  const json& v = field(object, key, where);
  if (!v.is_string()) throw FieldError{str_cat(where, ".", key, " must be a string")};
  return v.get<std::string>();
}

uint32_t count(const json& object, const char* key, const char* where, uint32_t min = 0) {
  const json& v = field(object, key, where);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > std::numeric_limits<uint32_t>::max() ||
      v.get<uint64_t>() < min)
    throw FieldError{str_cat(where, ".", key, " must be an integer from ", min, " to ",
                             std::numeric_limits<uint32_t>::max())};
  return static_cast<uint32_t>(v.get<uint64_t>());
}

StepInterface parse_interface(const json& j) {
  const char* w = "interface";
  if (!j.is_object()) throw FieldError{"interface must be an object"};
  StepInterface in;
  in.capacity = count(j, "capacity", w, 1);
  in.chunk = count(j, "chunk", w, 1);
  if (in.chunk > in.capacity) throw FieldError{"interface.chunk exceeds interface.capacity"};
  in.token_dim = text(j, "token_dim", w);
  in.input_ids = text(j, "input_ids", w);
  in.position_ids = text(j, "position_ids", w);
  in.mask = text(j, "mask", w);
  const std::string kind = text(j, "mask_kind", w);
  if (kind == "cache-additive") {
    in.mask_kind = MaskKind::kCacheAdditive;
  } else if (kind == "attention-mask") {
    in.mask_kind = MaskKind::kAttentionMask;
  } else {
    throw FieldError{"interface.mask_kind must be \"cache-additive\" or \"attention-mask\""};
  }
  in.logits = text(j, "logits", w);
  if (j.contains("logits_index"))  // optional: absent in packages converted before it existed
    in.logits_index = text(j, "logits_index", w);
  const json& cache = field(j, "cache", w);
  if (!cache.is_array() || cache.empty())
    throw FieldError{"interface.cache must be a non-empty array"};
  std::set<std::string> names = {in.input_ids, in.position_ids, in.mask, in.logits};
  if (!in.logits_index.empty() && !names.insert(in.logits_index).second)
    throw FieldError{
        str_cat("interface.logits_index: the name `", in.logits_index, "` is repeated")};
  for (const json& c : cache) {
    const char* cw = "interface.cache[]";
    if (!c.is_object()) throw FieldError{"interface.cache entries must be objects"};
    CacheBinding b;
    b.past = text(c, "past", cw);
    b.present = text(c, "present", cw);
    b.seq_axis = count(c, "seq_axis", cw);
    b.present_offset = count(c, "present_offset", cw);
    if (b.seq_axis > 7) throw FieldError{"interface.cache[].seq_axis must be below 8"};
    for (const std::string* n : {&b.past, &b.present})
      if (n->empty() || !names.insert(*n).second)
        throw FieldError{str_cat("interface.cache[]: the name `", *n, "` is empty or repeated")};
    in.cache.push_back(std::move(b));
  }
  return in;
}

}  // namespace

std::string llm_package_json(const LlmPackage& p) {
  json j = json::object();
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["name"] = p.name;
  j["architecture"] = p.architecture;
  j["layers"] = p.layers;
  j["vocabulary"] = p.vocabulary;
  j["notes"] = p.notes;
  const StepInterface& in = p.interface;
  json cache = json::array();
  for (const CacheBinding& b : in.cache)
    cache.push_back({{"past", b.past},
                     {"present", b.present},
                     {"seq_axis", b.seq_axis},
                     {"present_offset", b.present_offset}});
  j["interface"] = {
      {"capacity", in.capacity},
      {"chunk", in.chunk},
      {"token_dim", in.token_dim},
      {"input_ids", in.input_ids},
      {"position_ids", in.position_ids},
      {"mask", in.mask},
      {"mask_kind", in.mask_kind == MaskKind::kCacheAdditive ? "cache-additive" : "attention-mask"},
      {"logits", in.logits},
      {"cache", std::move(cache)}};
  if (!in.logits_index.empty()) j["interface"]["logits_index"] = in.logits_index;
  j["tokenizer"] = tokenizer_json(p.tokenizer);
  if (p.chat_template) j["chat_template"] = *p.chat_template;
  return j.dump(1) + "\n";
}

Result<LlmPackage> parse_llm_package(std::string_view text_in, std::string_view file_name) {
  auto fail = [&](const std::string& what) {
    return ErrorInfo{ErrorKind::kDataError, str_cat("llm.json error: ", file_name, ": ", what)};
  };
  json j;
  try {
    j = json::parse(text_in.begin(), text_in.end());
  } catch (const json::exception& e) {
    return fail(e.what());
  }
  LlmPackage p;
  try {
    const char* w = "(root)";
    if (!j.is_object()) throw FieldError{"the file must hold a JSON object"};
    if (text(j, "format", w) != kFormat)
      throw FieldError{str_cat("format must be \"", kFormat, "\"")};
    const json& version = field(j, "version", w);
    if (!version.is_number_integer() || version.get<int64_t>() != kVersion)
      throw FieldError{str_cat("version ", version.dump(), " is not supported (", kVersion, ")")};
    p.name = text(j, "name", w);
    p.architecture = text(j, "architecture", w);
    p.layers = count(j, "layers", w, 1);
    p.vocabulary = count(j, "vocabulary", w, 1);
    if (auto it = j.find("notes"); it != j.end()) {
      if (!it->is_array()) throw FieldError{"notes must be an array of strings"};
      for (const json& n : *it) {
        if (!n.is_string()) throw FieldError{"notes must be an array of strings"};
        p.notes.push_back(n.get<std::string>());
      }
    }
    p.interface = parse_interface(field(j, "interface", w));
    const json& tok = field(j, "tokenizer", w);
    if (!tok.is_object()) throw FieldError{"tokenizer must be an object"};
    auto spec = tokenizer_spec_from_json(tok.dump(), str_cat(file_name, " (tokenizer)"));
    if (!spec) return spec.error();
    p.tokenizer = std::move(*spec);
    if (auto it = j.find("chat_template"); it != j.end()) {
      if (!it->is_string()) throw FieldError{"chat_template must be a string"};
      p.chat_template = it->get<std::string>();
    }
  } catch (const FieldError& e) {
    return fail(e.message);
  } catch (const json::exception& e) {
    return fail(e.what());
  }
  return p;
}

std::string llm_package_path_for(const std::string& graph_path) {
  std::filesystem::path p(graph_path);
  return p.replace_extension(".llm.json").string();
}

}  // namespace cppnn::llm
