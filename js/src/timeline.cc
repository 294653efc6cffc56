// The context timeline as a queue of libuv thread-pool jobs (timeline.h).
#include "timeline.h"

#include <utility>

namespace cppnn::node {

// One step on the thread pool; on completion the next step starts first, then this one's
// completion runs (its promise settles), so the pool stays busy while JavaScript catches up.
class Timeline::StepWorker : public Napi::AsyncWorker {
 public:
  StepWorker(Napi::Env env, std::shared_ptr<Timeline> timeline, Step step)
      : Napi::AsyncWorker(env, "cppnn:timeline"),
        timeline_(std::move(timeline)),
        step_(std::move(step)) {}

  void Execute() override {
    try {
      if (step_.work) step_.work();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    timeline_->running_ = false;
    timeline_->start_next(env);
    if (step_.done) step_.done(env, error_);
  }

 private:
  std::shared_ptr<Timeline> timeline_;
  Step step_;
  std::exception_ptr error_;
};

void Timeline::enqueue(Napi::Env env, Work work, Done done) {
  steps_.push_back({std::move(work), std::move(done)});
  start_next(env);
}

void Timeline::start_next(Napi::Env env) {
  if (running_ || steps_.empty()) return;
  running_ = true;
  Step step = std::move(steps_.front());
  steps_.pop_front();
  (new StepWorker(env, shared_from_this(), std::move(step)))->Queue();
}

}  // namespace cppnn::node
