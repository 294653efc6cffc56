// One context's timeline (webnn-spec.md §4): its steps run one at a time, in call order, on
// libuv's thread pool, so the JavaScript thread never waits for the backend. Each step is work
// for the pool thread and a completion run back on the JavaScript thread with the work's
// exception, if any. Steps of different contexts run in parallel.
#pragma once

#include <napi.h>

#include <deque>
#include <exception>
#include <functional>
#include <memory>

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
  void start_next(Napi::Env env);

  std::deque<Step> steps_;
  bool running_ = false;
};

}  // namespace cppnn::node
