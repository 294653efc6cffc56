// Generator for JavaScript (llm.h): its steps on its own timeline, append/rewind/tokens, and the
// iterators of generate() and chat().
#include <string>
#include <utility>

#include "addon_data.h"
#include "cppnn/errors.h"
#include "errors.h"
#include "llm.h"
#include "llm_values.h"

namespace cppnn::node {

void GeneratorCore::run(Napi::Env env, Work work, Done done) {
  auto out = std::make_shared<StepOutcome>();
  // The work holds the core (the generator lives while its steps run); `done` runs on the
  // JavaScript thread, where `owner` and `tokens` live.
  std::shared_ptr<GeneratorCore> self = shared_from_this();
  timeline->enqueue(
      env,
      [self, work = std::move(work), out] {
        try {
          if (!self->generator) self->generator.emplace(self->model);
          work(*self->generator, *out);
        } catch (...) {
          if (self->generator) out->tokens = self->generator->tokens();
          throw;
        }
        out->tokens = self->generator->tokens();
      },
      [self, done = std::move(done), out](Napi::Env e, std::exception_ptr error) {
        if (out->tokens) self->tokens = std::move(*out->tokens);
        done(e, *out, error);
      });
}

Napi::Function GeneratorObject::define(Napi::Env env) {
  return DefineClass(env, "Generator",
                     {InstanceMethod<&GeneratorObject::generate>("generate"),
                      InstanceMethod<&GeneratorObject::chat>("chat"),
                      InstanceMethod<&GeneratorObject::append>("append"),
                      InstanceAccessor<&GeneratorObject::tokens>("tokens", napi_enumerable),
                      InstanceMethod<&GeneratorObject::rewind>("rewind")});
}

GeneratorObject::GeneratorObject(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<GeneratorObject>(info) {
  Napi::Env env = info.Env();
  if (!info.IsConstructCall()) throw Napi::TypeError::New(env, "Generator: use `new Generator`");
  LanguageModelObject* model = unwrap_language_model(info[0]);
  if (!model) throw Napi::TypeError::New(env, "Generator: the argument is not a LanguageModel");
  core_ = std::make_shared<GeneratorCore>(model->model());
}

void GeneratorObject::check_idle(const char* method) const {
  if (core_->owner)
    throw InvalidStateError(std::string(method) +
                            ": a generation is running on this generator (finish its loop or "
                            "break out of it first)");
}

Napi::Value GeneratorObject::generate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    auto request = std::make_shared<GenerationRequest>();
    request->prompt = required_string(info, 0, "Generator.generate: prompt");
    request->options = to_generation_options(info[1], "Generator.generate: options");
    return GenerationStream::make(env, {core_, std::move(request)});
  });
}

Napi::Value GeneratorObject::chat(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return guarded(env, [&]() -> Napi::Value {
    auto request = std::make_shared<GenerationRequest>();
    request->messages = to_messages(info[0], "Generator.chat: messages");
    request->options = to_generation_options(info[1], "Generator.chat: options");
    return GenerationStream::make(env, {core_, std::move(request)});
  });
}

Napi::Value GeneratorObject::append(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    check_idle("Generator.append");
    auto ids = std::make_shared<const std::vector<int32_t>>(
        to_token_ids(info[0], "Generator.append: tokens"));
    const bool all = boolean_member(info[1], "allLogits", false, "Generator.append: options");
    auto deferred = Napi::Promise::Deferred::New(env);
    auto logits = std::make_shared<std::vector<float>>();
    core_->run(
        env, [ids, all, logits](Generator& g, StepOutcome&) { *logits = g.append(*ids, all); },
        [deferred, logits](Napi::Env e, StepOutcome&, std::exception_ptr error) {
          if (error) return deferred.Reject(js_error(e, error));
          deferred.Resolve(float32_array(e, std::move(*logits)));
        });
    return deferred.Promise();
  });
}

Napi::Value GeneratorObject::tokens(const Napi::CallbackInfo& info) {
  return int32_array(info.Env(), core_->tokens);
}

Napi::Value GeneratorObject::rewind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    check_idle("Generator.rewind");
    const uint64_t length =
        enforce_range_unsigned(info[0], 9007199254740991ull, "Generator.rewind: length");
    auto deferred = Napi::Promise::Deferred::New(env);
    core_->run(
        env, [length](Generator& g, StepOutcome&) { g.rewind(static_cast<size_t>(length)); },
        [deferred](Napi::Env e, StepOutcome&, std::exception_ptr error) {
          if (error) return deferred.Reject(js_error(e, error));
          deferred.Resolve(e.Undefined());
        });
    return deferred.Promise();
  });
}

}  // namespace cppnn::node
