// The addon's per-environment state: the constructors of the wrapped classes (to make instances
// from C++ and to recognise them in arguments) and the global DOMException and JSON objects.
#pragma once

#include <napi.h>

namespace cppnn::node {

struct AddonData {
  Napi::FunctionReference context, builder, operand, graph, tensor;
  // Text generation (llm.h).
  Napi::FunctionReference language_model, generator, generation_stream;
  Napi::FunctionReference dom_exception;  // globalThis.DOMException
  Napi::FunctionReference json_parse;     // JSON.parse
};

// The AddonData of `env` (set by the module's init).
inline AddonData& addon_data(Napi::Env env) {
  return *env.GetInstanceData<AddonData>();
}

// The secret first constructor argument that marks an instance made by the addon: the classes
// whose spec constructor is not exposed (MLContext, MLOperand, MLGraph, MLTensor) throw a
// TypeError ("Illegal constructor") without it, as in a browser.
struct ConstructKey {};
inline ConstructKey* construct_key() {
  static ConstructKey key;
  return &key;
}
// True when `info[0]` is the construct key.
inline bool has_construct_key(const Napi::CallbackInfo& info) {
  return info.Length() > 0 && info[0].IsExternal() &&
         info[0].As<Napi::External<ConstructKey>>().Data() == construct_key();
}

// A new instance of `ctor` carrying `init` (the constructor reads it from its second argument).
template <class Init>
Napi::Object construct(Napi::Env env, const Napi::FunctionReference& ctor, Init init) {
  return ctor.New({Napi::External<ConstructKey>::New(env, construct_key()),
                   Napi::External<Init>::New(env, &init)});
}

}  // namespace cppnn::node
