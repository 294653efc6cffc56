// MLContext (webnn-spec.md §1, §4) and ML.createContext(): tensors, reads, writes and dispatch on
// the context's timeline (timeline.h), with the spec's synchronous checks done on the caller's
// thread first (cppnn/async_checks.h).
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <optional>

#include "cppnn/context.h"
#include "timeline.h"

namespace cppnn::node {

class Context : public Napi::ObjectWrap<Context> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object make(Napi::Env env, MLContext context);
  explicit Context(const Napi::CallbackInfo& info);
  const MLContext& context() const { return context_; }
  const std::shared_ptr<Timeline>& timeline() const { return timeline_; }

 private:
  Napi::Value accelerated(const Napi::CallbackInfo& info);
  Napi::Value lost(const Napi::CallbackInfo& info);
  Napi::Value backend(const Napi::CallbackInfo& info);
  Napi::Value op_support_limits(const Napi::CallbackInfo& info);
  Napi::Value create_tensor(const Napi::CallbackInfo& info);
  Napi::Value create_constant_tensor(const Napi::CallbackInfo& info);
  Napi::Value write_tensor(const Napi::CallbackInfo& info);
  Napi::Value read_tensor(const Napi::CallbackInfo& info);
  Napi::Value dispatch(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);
  // Runs `make` on the timeline: a Promise of the MLTensor it returns.
  Napi::Value tensor_promise(Napi::Env env, std::function<MLTensor()> make);
  // Resolves `lost` once with the context's lost info.
  void settle_lost(Napi::Env env);

  MLContext context_;
  std::shared_ptr<Timeline> timeline_ = std::make_shared<Timeline>();
  Napi::ObjectReference lost_promise_;
  std::optional<Napi::Promise::Deferred> lost_deferred_;
};

// The Context wrapper behind `value`, or nullptr.
Context* unwrap_context(Napi::Value value);

// ML.createContext(options): a Promise of an MLContext, created on the thread pool. Options:
// powerPreference, accelerated, and cppnn's backend and numThreads.
Napi::Value create_context(const Napi::CallbackInfo& info);

}  // namespace cppnn::node
