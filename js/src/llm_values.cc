// JavaScript <-> text-generation values (llm_values.h).
#include "llm_values.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "cppnn/errors.h"

namespace cppnn::node {
namespace {

constexpr uint64_t kMaxUint32 = 4294967295ull;
constexpr uint64_t kMaxSafeInteger = 9007199254740991ull;  // 2^53 - 1

// `what` + "." + `member`, for messages.
std::string member_name(std::string_view what, const char* member) {
  return std::string(what) + "." + member;
}

// The dictionary behind an options argument: nullopt for undefined/null (every member absent),
// TypeError for a non-object.
std::optional<Napi::Object> dictionary(Napi::Value value, std::string_view what) {
  if (value.IsUndefined() || value.IsNull()) return std::nullopt;
  if (!value.IsObject()) throw TypeError(std::string(what) + " must be an object");
  return value.As<Napi::Object>();
}

// The member `member` of `d`, or undefined.
Napi::Value member_of(const std::optional<Napi::Object>& d, const char* member) {
  if (!d) return Napi::Value();
  return d->Get(member);
}

// WebIDL's restricted float: a finite number that stays finite as a float.
float restricted_float(Napi::Value value, std::string_view what) {
  const double d = value.ToNumber().DoubleValue();
  const float f = static_cast<float>(d);
  if (!std::isfinite(d) || !std::isfinite(f))
    throw TypeError(std::string(what) + " must be a finite number");
  return f;
}

// A DOMString member: ToString (a Symbol throws a TypeError).
std::string string_value(Napi::Value value) {
  return value.ToString().Utf8Value();
}

// An unsigned 64-bit seed: a number up to 2^53 - 1 ([EnforceRange]) or a bigint up to 2^64 - 1.
uint64_t seed_value(Napi::Value value, std::string_view what) {
  if (value.IsBigInt()) {
    bool lossless = false;  // false for a negative bigint too
    const uint64_t u = value.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) throw TypeError(std::string(what) + " must be a bigint in [0, 2^64)");
    return u;
  }
  return enforce_range_unsigned(value, kMaxSafeInteger, what);
}

// Reads the members of an options dictionary (`what` names it in messages).
class OptionsReader {
 public:
  OptionsReader(Napi::Value value, std::string_view what)
      : d_(dictionary(value, what)), what_(what) {}
  // The member, or nullopt when it is absent or undefined.
  std::optional<Napi::Value> present(const char* member) const {
    Napi::Value v = member_of(d_, member);
    if (v.IsEmpty() || v.IsUndefined()) return std::nullopt;
    return v;
  }
  // An unsigned long member (WebIDL [EnforceRange]) into `field` when present.
  void count(const char* member, uint32_t& field) const {
    if (auto v = present(member))
      field =
          static_cast<uint32_t>(enforce_range_unsigned(*v, kMaxUint32, member_name(what_, member)));
  }

 private:
  std::optional<Napi::Object> d_;
  std::string_view what_;
};

}  // namespace

uint64_t enforce_range_unsigned(Napi::Value value, uint64_t max, std::string_view what) {
  if (value.IsBigInt()) throw TypeError(std::string(what) + " must be a number, not a bigint");
  const double d = value.ToNumber().DoubleValue();
  const double t = std::trunc(d);
  if (!std::isfinite(d) || t < 0 || t > static_cast<double>(max))
    throw TypeError(std::string(what) + " must be an integer in [0, " + std::to_string(max) + "]");
  return static_cast<uint64_t>(t);
}

std::string required_string(const Napi::CallbackInfo& info, size_t index, std::string_view what) {
  if (info.Length() <= index || info[index].IsUndefined())
    throw TypeError(std::string(what) + " is required");
  return string_value(info[index]);
}

bool boolean_member(Napi::Value options, const char* member, bool fallback, std::string_view what) {
  const std::optional<Napi::Value> v = OptionsReader(options, what).present(member);
  return v ? v->ToBoolean().Value() : fallback;
}

LanguageModelOptions to_language_model_options(Napi::Value value, std::string_view what) {
  LanguageModelOptions out;
  const OptionsReader options(value, what);
  auto present = [&](const char* member) { return options.present(member); };
  auto count = [&](const char* member, uint32_t& field) { options.count(member, field); };
  if (auto v = present("backend")) out.backend = string_value(*v);
  count("contextLength", out.contextLength);
  count("numThreads", out.numThreads);
  count("prefillChunk", out.prefillChunk);
  if (auto v = present("tokenizer")) out.tokenizer = string_value(*v);
  if (auto v = present("chatTemplate")) out.chatTemplate = string_value(*v);
  return out;
}

GenerationOptions to_generation_options(Napi::Value value, std::string_view what) {
  GenerationOptions out;
  const OptionsReader options(value, what);
  auto present = [&](const char* member) { return options.present(member); };
  auto count = [&](const char* member, uint32_t& field) { options.count(member, field); };
  // Members in lexicographic order, as WebIDL reads a dictionary.
  if (auto v = present("ignoreEos")) out.ignoreEos = v->ToBoolean().Value();
  count("maxTokens", out.maxTokens);
  if (auto v = present("repetitionPenalty")) {
    out.repetitionPenalty = restricted_float(*v, member_name(what, "repetitionPenalty"));
    if (out.repetitionPenalty <= 0)
      throw TypeError(member_name(what, "repetitionPenalty") + " must be positive");
  }
  count("repetitionWindow", out.repetitionWindow);
  if (auto v = present("seed")) out.seed = seed_value(*v, member_name(what, "seed"));
  if (auto v = present("stop")) {
    const std::string name = member_name(what, "stop");
    if (!v->IsArray()) throw TypeError(name + " must be an array of strings");
    Napi::Array stops = v->As<Napi::Array>();
    for (uint32_t i = 0; i < stops.Length(); ++i) {
      std::string s = string_value(stops.Get(i));
      if (s.empty()) throw TypeError(name + "[" + std::to_string(i) + "] is empty");
      out.stop.push_back(std::move(s));
    }
  }
  if (auto v = present("temperature")) {
    out.temperature = restricted_float(*v, member_name(what, "temperature"));
    if (out.temperature < 0)
      throw TypeError(member_name(what, "temperature") + " must not be negative");
  }
  count("topK", out.topK);
  if (auto v = present("topP")) {
    out.topP = restricted_float(*v, member_name(what, "topP"));
    if (!(out.topP > 0 && out.topP <= 1))
      throw TypeError(member_name(what, "topP") + " must be in (0, 1]");
  }
  return out;
}

std::vector<ChatMessage> to_messages(Napi::Value value, std::string_view what) {
  if (!value.IsArray()) throw TypeError(std::string(what) + " must be an array of messages");
  Napi::Array list = value.As<Napi::Array>();
  std::vector<ChatMessage> out;
  out.reserve(list.Length());
  for (uint32_t i = 0; i < list.Length(); ++i) {
    const std::string item = std::string(what) + "[" + std::to_string(i) + "]";
    Napi::Value m = list.Get(i);
    if (!m.IsObject()) throw TypeError(item + " must be an object {role, content}");
    Napi::Object o = m.As<Napi::Object>();
    ChatMessage message;
    for (auto [member, field] :
         {std::pair{"content", &message.content}, std::pair{"role", &message.role}}) {
      Napi::Value v = o.Get(member);
      if (v.IsUndefined()) throw TypeError(item + "." + member + " is required");
      *field = string_value(v);
    }
    out.push_back(std::move(message));
  }
  return out;
}

std::vector<int32_t> to_token_ids(Napi::Value value, std::string_view what) {
  if (value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array) {
    Napi::Int32Array a = value.As<Napi::Int32Array>();
    return std::vector<int32_t>(a.Data(), a.Data() + a.ElementLength());
  }
  if (!value.IsArray() && !value.IsTypedArray())
    throw TypeError(std::string(what) + " must be an array or an Int32Array of token ids");
  Napi::Object list = value.As<Napi::Object>();
  const size_t n = value.IsArray() ? value.As<Napi::Array>().Length()
                                   : value.As<Napi::TypedArray>().ElementLength();
  std::vector<int32_t> out;
  out.reserve(std::min<size_t>(n, 1u << 20));
  for (uint32_t i = 0; i < n; ++i) {
    Napi::Value v = list.Get(i);
    if (v.IsBigInt())
      throw TypeError(std::string(what) + "[" + std::to_string(i) + "] must be a number");
    const double d = v.ToNumber().DoubleValue();
    const double t = std::trunc(d);
    if (!std::isfinite(d) || t < std::numeric_limits<int32_t>::min() ||
        t > std::numeric_limits<int32_t>::max())
      throw TypeError(std::string(what) + "[" + std::to_string(i) +
                      "] must be an integer in the int32 range");
    out.push_back(static_cast<int32_t>(t));
  }
  return out;
}

Napi::Value int32_array(Napi::Env env, std::span<const int32_t> ids) {
  Napi::Int32Array a = Napi::Int32Array::New(env, ids.size());
  if (!ids.empty()) std::memcpy(a.Data(), ids.data(), ids.size_bytes());
  return a;
}

Napi::Value float32_array(Napi::Env env, std::vector<float> values) {
  const size_t n = values.size();
  if (n == 0) return Napi::Float32Array::New(env, 0);
  auto* owned = new std::vector<float>(std::move(values));
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(
      env, owned->data(), n * sizeof(float),
      [](Napi::Env, void*, std::vector<float>* v) { delete v; }, owned);
  return Napi::Float32Array::New(env, n, buffer, 0);
}

Napi::Object info_object(Napi::Env env, const LanguageModelInfo& info) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", info.name);
  o.Set("architecture", info.architecture);
  o.Set("backend", info.backend);
  o.Set("layers", info.layers);
  o.Set("vocabularySize", info.vocabularySize);
  o.Set("contextLength", info.contextLength);
  o.Set("prefillChunk", info.prefillChunk);
  Napi::Array notes = Napi::Array::New(env, info.notes.size());
  for (uint32_t i = 0; i < info.notes.size(); ++i) notes.Set(i, info.notes[i]);
  notes.Freeze();
  o.Set("notes", notes);
  o.Freeze();
  return o;
}

Napi::Object result_object(Napi::Env env, const GenerationResult& result) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("text", result.text);
  o.Set("tokens", int32_array(env, result.tokens));
  o.Set("finishReason", std::string(finish_reason_name(result.finishReason)));
  o.Set("promptTokens", result.stats.promptTokens);
  o.Set("reusedTokens", result.stats.reusedTokens);
  o.Set("generatedTokens", result.stats.generatedTokens);
  o.Set("promptSeconds", result.stats.promptSeconds);
  o.Set("generateSeconds", result.stats.generateSeconds);
  return o;
}

}  // namespace cppnn::node
