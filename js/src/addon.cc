// The cppnn Node.js addon: registers MLContext, MLGraphBuilder, MLOperand, MLGraph and MLTensor,
// createContext() and availableBackends(), and text generation's LanguageModel and Generator;
// lib/index.js builds navigator.ml over it.
#include <napi.h>

#include "addon_data.h"
#include "builder.h"
#include "context.h"
#include "cppnn/context.h"
#include "cppnn/version.h"
#include "errors.h"
#include "llm.h"
#include "objects.h"

namespace cppnn::node {
namespace {

// availableBackends(withTestOnly = false): the compiled-in backend names (cppnn extension).
Napi::Value available_backends(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool test_only = info.Length() > 0 && info[0].ToBoolean().Value();
  const std::vector<std::string> names = cppnn::available_backends(test_only);
  Napi::Array out = Napi::Array::New(env, names.size());
  for (uint32_t i = 0; i < names.size(); ++i) out.Set(i, Napi::String::New(env, names[i]));
  return out;
}

Napi::Object init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData;
  env.SetInstanceData(data);
  Napi::Object global = env.Global();
  data->dom_exception = Napi::Persistent(global.Get("DOMException").As<Napi::Function>());
  data->json_parse =
      Napi::Persistent(global.Get("JSON").As<Napi::Object>().Get("parse").As<Napi::Function>());
  auto add = [&](const char* name, Napi::Function ctor, Napi::FunctionReference& ref) {
    ref = Napi::Persistent(ctor);
    exports.Set(name, ctor);
  };
  add("MLContext", Context::define(env), data->context);
  add("MLGraphBuilder", Builder::define(env), data->builder);
  add("MLOperand", Operand::define(env), data->operand);
  add("MLGraph", Graph::define(env), data->graph);
  add("MLTensor", Tensor::define(env), data->tensor);
  add("LanguageModel", LanguageModelObject::define(env), data->language_model);  // llm.h
  add("Generator", GeneratorObject::define(env), data->generator);
  data->generation_stream = Napi::Persistent(GenerationStream::define(env));
  exports.Set("createContext", Napi::Function::New(env, create_context, "createContext"));
  exports.Set("availableBackends",
              Napi::Function::New(env, available_backends, "availableBackends"));
  exports.Set("version", Napi::String::New(env, CPPNN_VERSION_STRING));
  return exports;
}

}  // namespace
}  // namespace cppnn::node

// The module's registration function (NODE_API_MODULE needs an unqualified name).
static Napi::Object InitCppnn(Napi::Env env, Napi::Object exports) {
  return cppnn::node::init(env, exports);
}

NODE_API_MODULE(cppnn, InitCppnn)
