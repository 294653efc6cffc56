// The cpu backend's thread pool (thread_pool.h).
#include "src/backends/cpu/thread_pool.h"

#include <algorithm>

namespace cppnn::cpu {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// Takes tasks until none is left (mutex_ not held).
void ThreadPool::run_tasks() {
  for (;;) {
    size_t i;
    {
      std::lock_guard lock(mutex_);
      if (next_ >= count_) return;
      i = next_++;
    }
    (*fn_)(i);
  }
}

void ThreadPool::work(unsigned) {
  unsigned seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_tasks();
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    done_.notify_one();
  }
}

void ThreadPool::parallel_for(size_t count, const std::function<void(size_t)>& fn) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    count_ = count;
    next_ = 0;
    busy_ = static_cast<unsigned>(workers_.size());
    ++generation_;
  }
  start_.notify_all();
  run_tasks();
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0; });
  fn_ = nullptr;
}

}  // namespace cppnn::cpu
