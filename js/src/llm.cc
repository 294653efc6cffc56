// LanguageModel for JavaScript (llm.h): load() on the thread pool, the model's info and its
// tokenizer and chat template on the calling thread.
#include "llm.h"

#include <string>
#include <utility>

#include "addon_data.h"
#include "errors.h"
#include "llm_values.h"

namespace cppnn::node {

Napi::Function LanguageModelObject::define(Napi::Env env) {
  return DefineClass(
      env, "LanguageModel",
      {StaticMethod<&LanguageModelObject::load>("load"),
       InstanceAccessor<&LanguageModelObject::info>("info", napi_enumerable),
       InstanceAccessor<&LanguageModelObject::stop_tokens>("stopTokens", napi_enumerable),
       InstanceMethod<&LanguageModelObject::tokenize>("tokenize"),
       InstanceMethod<&LanguageModelObject::detokenize>("detokenize"),
       InstanceMethod<&LanguageModelObject::apply_chat_template>("applyChatTemplate")});
}

LanguageModelObject::LanguageModelObject(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<LanguageModelObject>(info), model_([&] {
        if (!has_construct_key(info) || info.Length() < 2 || !info[1].IsExternal())
          throw Napi::TypeError::New(info.Env(),
                                     "Illegal constructor (use LanguageModel.load(path))");
        return *info[1].As<Napi::External<LanguageModel>>().Data();
      }()) {
  info_ = Napi::Persistent(info_object(info.Env(), model_.info()));
}

LanguageModelObject* unwrap_language_model(Napi::Value value) {
  if (!value.IsObject() ||
      !value.As<Napi::Object>().InstanceOf(addon_data(value.Env()).language_model.Value()))
    return nullptr;
  return LanguageModelObject::Unwrap(value.As<Napi::Object>());
}

Napi::Value LanguageModelObject::load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    const std::string path = required_string(info, 0, "LanguageModel.load: path");
    const LanguageModelOptions options =
        to_language_model_options(info[1], "LanguageModel.load: options");
    auto deferred = Napi::Promise::Deferred::New(env);
    auto made = std::make_shared<std::optional<LanguageModel>>();
    std::make_shared<Timeline>()->enqueue(
        env, [path, options, made] { made->emplace(LanguageModel::load(path, options)); },
        [deferred, made](Napi::Env e, std::exception_ptr error) {
          if (error) return deferred.Reject(js_error(e, error));
          deferred.Resolve(construct(e, addon_data(e).language_model, std::move(**made)));
        });
    return deferred.Promise();
  });
}

Napi::Value LanguageModelObject::info(const Napi::CallbackInfo&) {
  return info_.Value();
}

Napi::Value LanguageModelObject::stop_tokens(const Napi::CallbackInfo& info) {
  return int32_array(info.Env(), model_.stopTokens());
}

Napi::Value LanguageModelObject::tokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    const char* what = "LanguageModel.tokenize: options";
    const std::string text = required_string(info, 0, "LanguageModel.tokenize: text");
    const bool add_special = boolean_member(info[1], "addSpecial", true, what);
    const bool parse_special = boolean_member(info[1], "parseSpecial", true, what);
    return int32_array(env, model_.tokenize(text, add_special, parse_special));
  });
}

Napi::Value LanguageModelObject::detokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    const std::vector<int32_t> ids = to_token_ids(info[0], "LanguageModel.detokenize: tokens");
    const bool skip_special =
        boolean_member(info[1], "skipSpecial", false, "LanguageModel.detokenize: options");
    return Napi::String::New(env, model_.detokenize(ids, skip_special));
  });
}

Napi::Value LanguageModelObject::apply_chat_template(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    const std::vector<ChatMessage> messages =
        to_messages(info[0], "LanguageModel.applyChatTemplate: messages");
    const bool add_prompt = boolean_member(info[1], "addGenerationPrompt", true,
                                           "LanguageModel.applyChatTemplate: options");
    return Napi::String::New(env, model_.applyChatTemplate(messages, add_prompt));
  });
}

}  // namespace cppnn::node
