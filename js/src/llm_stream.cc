// The async iterator of Generator.generate() and chat() (llm.h): each next() is one step of the
// C++ pull-style generation (Generator::start/startChat, then next) on the generator's
// timeline; return() cancels.
#include <string>
#include <utility>

#include "addon_data.h"
#include "cppnn/errors.h"
#include "errors.h"
#include "llm.h"
#include "llm_values.h"

namespace cppnn::node {
namespace {

// An iterator result {value, done}.
Napi::Object iterator_result(Napi::Env env, Napi::Value value, bool done) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("value", value);
  o.Set("done", done);
  return o;
}

// A Promise already resolved with `value`.
Napi::Value resolved(Napi::Env env, Napi::Value value) {
  Napi::Promise::Deferred d = Napi::Promise::Deferred::New(env);
  d.Resolve(value);
  return d.Promise();
}

// The result of a generation that never started: nothing generated, cancelled.
GenerationResult never_started() {
  GenerationResult r;
  r.finishReason = FinishReason::kCancelled;
  return r;
}

}  // namespace

Napi::Function GenerationStream::define(Napi::Env env) {
  return DefineClass(
      env, "GenerationStream",
      {InstanceMethod<&GenerationStream::next>("next"),
       InstanceMethod<&GenerationStream::return_>("return"),
       InstanceMethod<&GenerationStream::self>(Napi::Symbol::WellKnown(env, "asyncIterator")),
       InstanceAccessor<&GenerationStream::result>("result", napi_enumerable)});
}

Napi::Object GenerationStream::make(Napi::Env env, Init init) {
  return construct(env, addon_data(env).generation_stream, std::move(init));
}

GenerationStream::GenerationStream(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<GenerationStream>(info) {
  Napi::Env env = info.Env();
  if (!has_construct_key(info) || info.Length() < 2 || !info[1].IsExternal())
    throw Napi::TypeError::New(env, "Illegal constructor (use Generator.generate or chat)");
  Init& init = *info[1].As<Napi::External<Init>>().Data();
  core_ = init.core;
  request_ = init.request;
  result_deferred_.emplace(Napi::Promise::Deferred::New(env));
  Napi::Promise promise = result_deferred_->Promise();
  result_promise_ = Napi::Persistent(promise.As<Napi::Object>());
  // A failed generation rejects `result` too; next() reports the error already, so an unread
  // `result` must not end the process as an unhandled rejection.
  promise.Get("catch").As<Napi::Function>().Call(
      promise, {Napi::Function::New(env, [](const Napi::CallbackInfo&) {})});
}

GenerationStream::~GenerationStream() {
  // Dropped without finishing (no step in flight holds it): the generator is free again; its
  // next generation abandons this one (Generator::start).
  if (core_ && core_->owner == this) core_->owner = nullptr;
}

Napi::Value GenerationStream::self(const Napi::CallbackInfo& info) {
  return info.This();
}

Napi::Value GenerationStream::result(const Napi::CallbackInfo&) {
  return result_promise_.Value();
}

void GenerationStream::release() {
  phase_ = Phase::kClosed;
  if (core_->owner == this) core_->owner = nullptr;
}

void GenerationStream::settle(Napi::Env env, const GenerationResult* finished, Napi::Value error) {
  if (!result_deferred_) return;
  if (finished)
    result_deferred_->Resolve(result_object(env, *finished));
  else
    result_deferred_->Reject(error);
  result_deferred_.reset();
}

Napi::Value GenerationStream::step(Napi::Env env, GeneratorCore::Work work,
                                   std::optional<Napi::Value> return_value) {
  auto deferred = Napi::Promise::Deferred::New(env);
  auto self = std::make_shared<Napi::ObjectReference>(Napi::Persistent(Value()));
  // return(value) resolves with {value, done: true}, made now (a primitive cannot be referenced).
  std::shared_ptr<Napi::ObjectReference> returned;
  if (return_value)
    returned = std::make_shared<Napi::ObjectReference>(
        Napi::Persistent(iterator_result(env, *return_value, true)));
  auto complete = [self, deferred, returned](Napi::Env e, StepOutcome& out,
                                             std::exception_ptr error) {
    GenerationStream* s = GenerationStream::Unwrap(self->Value());
    if (error) {
      Napi::Value js = js_error(e, error);
      s->release();
      s->settle(e, nullptr, js);
      return deferred.Reject(js);
    }
    if (out.finished) {
      s->release();
      s->settle(e, &*out.finished, Napi::Value());
    }
    if (out.piece)
      return deferred.Resolve(iterator_result(e, Napi::String::New(e, *out.piece), false));
    if (returned) return deferred.Resolve(returned->Value());
    deferred.Resolve(iterator_result(e, e.Undefined(), true));
  };
  if (work) {
    core_->run(env, std::move(work), std::move(complete));
  } else {  // nothing to do on the generator: only keep the order of the iterator's promises
    core_->timeline->enqueue(env, nullptr,
                             [complete](Napi::Env e, std::exception_ptr error) mutable {
                               StepOutcome none;
                               complete(e, none, error);
                             });
  }
  return deferred.Promise();
}

Napi::Value GenerationStream::next(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    if (phase_ == Phase::kNotStarted) {
      if (core_->owner)
        throw InvalidStateError(
            "Generator: another generation is running on this generator (finish its loop or "
            "break out of it first)");
      phase_ = Phase::kRunning;
      core_->owner = this;
    }
    if (phase_ == Phase::kClosed) return step(env, nullptr, std::nullopt);
    return step(
        env,
        [request = request_](Generator& g, StepOutcome& out) {
          GenerationRequest& r = *request;
          if (r.ended) return;
          try {
            if (!r.started) {
              r.started = true;
              if (r.messages)
                g.startChat(*r.messages, r.options);
              else
                g.start(r.prompt, r.options);
            }
            out.piece = g.next();
          } catch (...) {
            r.ended = true;
            throw;
          }
          if (!out.piece) {
            r.ended = true;
            out.finished = g.result();
          }
        },
        std::nullopt);
  });
}

Napi::Value GenerationStream::return_(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return promised(env, [&]() -> Napi::Value {
    Napi::Value value = info.Length() > 0 ? info[0] : env.Undefined();
    switch (phase_) {
      case Phase::kNotStarted: {
        release();
        const GenerationResult none = never_started();
        settle(env, &none, Napi::Value());
        return resolved(env, iterator_result(env, value, true));
      }
      case Phase::kRunning:
        release();  // the generator is free from now on: later work queues behind the cancel
        return step(
            env,
            [request = request_](Generator& g, StepOutcome& out) {
              GenerationRequest& r = *request;
              if (r.ended) return;
              r.ended = true;
              if (!r.started) {
                out.finished = never_started();
                return;
              }
              g.cancel();
              out.finished = g.result();
            },
            value);
      case Phase::kClosed:
        break;
    }
    return step(env, nullptr, value);
  });
}

}  // namespace cppnn::node
