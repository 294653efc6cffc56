// The context timeline as a queue of libuv thread-pool jobs (timeline.h).
#include "timeline.h"

#include <utility>
#include <vector>

namespace cppnn::node {

// One pool job: runs queued steps until one has a completion; back on the JavaScript thread it
// lets the next job start first, then runs the completions (promises settle) in step order.
class Timeline::StepWorker : public Napi::AsyncWorker {
 public:
  StepWorker(Napi::Env env, std::shared_ptr<Timeline> timeline)
      : Napi::AsyncWorker(env, "cppnn:timeline"), timeline_(std::move(timeline)) {}

  void Execute() override {
    while (std::optional<Step> step = timeline_->pop()) {
      std::exception_ptr error;
      try {
        if (step->work) step->work();
      } catch (...) {
        error = std::current_exception();
      }
      const bool settles = static_cast<bool>(step->done);
      // The completion moves out here: it holds JavaScript references, released on its thread.
      finished_.push_back({std::move(step->done), error});
      if (settles) break;
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    timeline_->running_ = false;
    timeline_->start_next(env);
    for (auto& [done, error] : finished_)
      if (done) done(env, error);
  }

 private:
  std::shared_ptr<Timeline> timeline_;
  std::vector<std::pair<Done, std::exception_ptr>> finished_;
};

void Timeline::enqueue(Napi::Env env, Work work, Done done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    steps_.push_back({std::move(work), std::move(done)});
  }
  start_next(env);
}

std::optional<Timeline::Step> Timeline::pop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (steps_.empty()) return std::nullopt;
  Step step = std::move(steps_.front());
  steps_.pop_front();
  return step;
}

void Timeline::start_next(Napi::Env env) {
  if (running_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (steps_.empty()) return;
  }
  running_ = true;
  (new StepWorker(env, shared_from_this()))->Queue();
}

}  // namespace cppnn::node
