// MLOperand, MLGraph and MLTensor (webnn-spec.md §1): JavaScript objects over the C++ handles,
// made only by the addon (their constructors are not callable from scripts, as in a browser).
#pragma once

#include <napi.h>

#include <memory>
#include <vector>

#include "cppnn/graph.h"
#include "cppnn/operand.h"
#include "cppnn/tensor.h"
#include "timeline.h"

namespace cppnn::node {

// A C++ handle (MLGraph or MLTensor) owned by a JavaScript object, with its context's timeline.
// destroy() marks it destroyed at once and releases it on the timeline, after the work queued
// before it (§4 "mark resources freeable").
template <class Handle>
struct TimelineHandle {
  Handle handle;
  std::shared_ptr<Timeline> timeline;
  bool destroyed = false;

  // False when it was destroyed already (destroy() is idempotent).
  bool destroy(Napi::Env env) {
    if (destroyed) return false;
    destroyed = true;
    timeline->enqueue(
        env, [h = handle]() mutable { h.destroy(); }, nullptr);
    return true;
  }
};

// MLOperand: dataType and shape of an operand of one builder.
class Operand : public Napi::ObjectWrap<Operand> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object make(Napi::Env env, MLOperand operand);
  explicit Operand(const Napi::CallbackInfo& info);
  const MLOperand& operand() const { return operand_; }

 private:
  Napi::Value data_type(const Napi::CallbackInfo& info);
  Napi::Value shape(const Napi::CallbackInfo& info);
  MLOperand operand_;
};

// MLGraph: a built graph; destroy() marks it destroyed at once and releases it on the timeline.
class Graph : public Napi::ObjectWrap<Graph> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object make(Napi::Env env, MLGraph graph, std::shared_ptr<Timeline> timeline);
  explicit Graph(const Napi::CallbackInfo& info);
  const MLGraph& graph() const { return graph_.handle; }
  bool destroyed() const { return graph_.destroyed || graph_.handle.is_destroyed(); }

 private:
  Napi::Value destroy(const Napi::CallbackInfo& info);
  TimelineHandle<MLGraph> graph_;
};

// MLTensor: dataType, shape, readable, writable, constant; destroy() marks it destroyed at
// once, rejects its pending reads with an InvalidStateError and releases it on the timeline.
class Tensor : public Napi::ObjectWrap<Tensor> {
 public:
  static Napi::Function define(Napi::Env env);
  static Napi::Object make(Napi::Env env, MLTensor tensor, std::shared_ptr<Timeline> timeline);
  explicit Tensor(const Napi::CallbackInfo& info);
  const MLTensor& tensor() const { return tensor_.handle; }
  bool destroyed() const { return tensor_.destroyed || tensor_.handle.is_destroyed(); }
  // A pending readTensor() promise: rejected by destroy(); `settled` tells the read's
  // completion that it has nothing left to do.
  struct PendingRead {
    Napi::Promise::Deferred deferred;
    bool settled = false;
  };
  void add_pending_read(std::shared_ptr<PendingRead> read);

 private:
  Napi::Value data_type(const Napi::CallbackInfo& info);
  Napi::Value shape(const Napi::CallbackInfo& info);
  Napi::Value readable(const Napi::CallbackInfo& info);
  Napi::Value writable(const Napi::CallbackInfo& info);
  Napi::Value constant(const Napi::CallbackInfo& info);
  Napi::Value destroy(const Napi::CallbackInfo& info);
  TimelineHandle<MLTensor> tensor_;
  std::vector<std::shared_ptr<PendingRead>> reads_;
};

// The C++ object behind a JavaScript MLOperand, MLGraph or MLTensor; nullptr for anything else.
const MLOperand* unwrap_operand(Napi::Value value);
Graph* unwrap_graph(Napi::Value value);
Tensor* unwrap_tensor(Napi::Value value);

}  // namespace cppnn::node
