// JavaScript values <-> the values of the text-generation API (include/cppnn/llm.h), converted
// as WebIDL converts dictionaries: absent (undefined) members take the C++ defaults, numbers are
// [EnforceRange] integers or restricted floats, and anything else is a TypeError naming the
// method and the member ("Generator.generate: options.topP ...").
#pragma once

#include <napi.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/llm.h"

namespace cppnn::node {

// LanguageModelOptions {backend, numThreads, contextLength, prefillChunk, tokenizer,
// chatTemplate}; undefined/null: the defaults.
LanguageModelOptions to_language_model_options(Napi::Value value, std::string_view what);
// GenerationOptions {maxTokens, temperature, topK, topP, repetitionPenalty, repetitionWindow,
// seed (a number up to 2^53 or a bigint up to 2^64), stop (an array of non-empty strings),
// ignoreEos}; temperature >= 0, topP in (0, 1], repetitionPenalty > 0, as `cppnn generate`.
GenerationOptions to_generation_options(Napi::Value value, std::string_view what);
// A conversation: an array of {role, content} dictionaries (both required, DOMString).
std::vector<ChatMessage> to_messages(Napi::Value value, std::string_view what);
// Token ids: an array of [EnforceRange] long numbers, or a typed array (an Int32Array is copied
// as it is).
std::vector<int32_t> to_token_ids(Napi::Value value, std::string_view what);
// A required DOMString argument (TypeError when it is missing).
std::string required_string(const Napi::CallbackInfo& info, size_t index, std::string_view what);
// The boolean member `member` of an options dictionary (undefined/null: `fallback`).
bool boolean_member(Napi::Value options, const char* member, bool fallback, std::string_view what);
// An [EnforceRange] integer in [0, max] (a length, a count).
uint64_t enforce_range_unsigned(Napi::Value value, uint64_t max, std::string_view what);

// A new Int32Array of `ids`.
Napi::Value int32_array(Napi::Env env, std::span<const int32_t> ids);
// A Float32Array over `values` (moved into the buffer, no copy).
Napi::Value float32_array(Napi::Env env, std::vector<float> values);
// The frozen info object {name, architecture, backend, layers, vocabularySize, contextLength,
// prefillChunk, notes}.
Napi::Object info_object(Napi::Env env, const LanguageModelInfo& info);
// {text, tokens, finishReason, promptTokens, reusedTokens, generatedTokens, promptSeconds,
// generateSeconds}; finishReason as finish_reason_name() ("stop", "length", ...).
Napi::Object result_object(Napi::Env env, const GenerationResult& result);

}  // namespace cppnn::node
