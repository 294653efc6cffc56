// The cpu backend's thread pool: numThreads workers (the caller counts as one) that split a
// kernel's independent tasks between them. A parallel_for returns when every task has run. Between
// kernels the workers spin for a short while (a decode step runs hundreds of small kernels a few
// microseconds apart, and waking a sleeping thread costs tens of microseconds), then sleep on a
// condition variable; tasks are taken with one atomic increment each.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cppnn::cpu {

class ThreadPool {
 public:
  // `threads` threads in all, the calling thread included (0: the hardware's count).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The number of threads that run tasks (at least 1).
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Runs fn(i) for every i in [0, count), spread over the threads; the caller takes part. Tasks
  // must be independent. Not reentrant, and one caller at a time: a task must not call
  // parallel_for on the same pool (the context's timeline serialises dispatches).
  void parallel_for(size_t count, const std::function<void(size_t)>& fn);
  // Runs fn(begin, end) over consecutive ranges covering [0, n): one range (on the caller) when n
  // is below 2·grain or the pool has one thread, else up to 4 ranges per thread of at least
  // `grain` items each.
  void parallel_ranges(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

  // How long a worker spins for the next parallel_for (and the caller for the last worker)
  // before sleeping.
  static constexpr std::chrono::microseconds kSpin{100};

 private:
  void work();
  void run_tasks();

  std::vector<std::thread> workers_;
  // The current parallel_for: written by the caller before generation_ is incremented (release),
  // read by the workers after they see the new generation (acquire).
  const std::function<void(size_t)>* fn_ = nullptr;
  size_t count_ = 0;
  std::atomic<size_t> next_{0};          // the next task to take
  std::atomic<unsigned> busy_{0};        // workers not yet done with the current generation
  std::atomic<uint64_t> generation_{0};  // incremented for every parallel_for
  std::atomic<bool> stop_{false};
  // Sleeping: workers wait on start_, the caller on done_, both under mutex_; the counts say
  // whether a notify is needed (sequentially consistent with generation_ and busy_, so that no
  // wake-up is lost).
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::atomic<unsigned> sleeping_workers_{0};
  std::atomic<bool> caller_sleeping_{false};
};

}  // namespace cppnn::cpu
