// One context's timeline (webnn-spec.md §4): its steps run one at a time, in call order, on
// libuv's thread pool, so the JavaScript thread never waits for the backend. Each step is work
// for the pool thread and an optional completion run back on the JavaScript thread with the
// work's exception, if any. One pool job runs the queued steps back to back until a step with a
// completion (whose promise should settle now): a dispatch and the read after it cost one trip
// to the pool. Steps of different contexts run in parallel.
#pragma once

#include <napi.h>

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace cppnn::node {

class Timeline : public std::enable_shared_from_this<Timeline> {
 public:
  using Work = std::function<void()>;                               // on a pool thread
  using Done = std::function<void(Napi::Env, std::exception_ptr)>;  // on the JavaScript thread

  // Appends a step; it starts once every earlier step has finished.
  void enqueue(Napi::Env env, Work work, Done done);

 private:
  struct Step {
    Work work;
    Done done;
  };
  class StepWorker;
  // Queues a pool job when steps wait and none runs (JavaScript thread).
  void start_next(Napi::Env env);
  // The next step, taken off the queue (any thread).
  std::optional<Step> pop();

  std::mutex mu_;  // guards steps_: the pool job takes steps while JavaScript adds
  std::deque<Step> steps_;
  bool running_ = false;  // a pool job is queued or running (JavaScript thread only)
};

}  // namespace cppnn::node
