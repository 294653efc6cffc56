// The cpu backend's thread pool: numThreads workers (the caller counts as one) that split a
// kernel's independent tasks between them. A parallel_for returns when every task has run. Between
// kernels the workers spin for a short while (a decode step runs hundreds of small kernels a few
// microseconds apart, and waking a sleeping thread costs tens of microseconds), then sleep on a
// condition variable; tasks are taken with one compare-and-swap each, and a parallel_for waits
// for its tasks, not for its workers.
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
  // Claims and runs tasks of claim generation `gen` until none is left (or another generation
  // has started).
  void run_tasks(uint64_t gen);

  // The claim word: [generation: 24 bits | task count: 20 | next task: 20]. A task is taken by
  // one compare-and-swap that also checks the generation, so a worker late to a parallel_for
  // that has finished cannot take a task of the next one by mistake, and the caller waits for
  // the tasks to be done, not for every worker to wake (a sleeping worker's wake-up, tens to
  // hundreds of microseconds, is then off the critical path).
  static constexpr unsigned kIndexBits = 20;
  static constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
  static constexpr uint64_t kGenerationMask = (uint64_t{1} << 24) - 1;

  std::vector<std::thread> workers_;
  // The current parallel_for's function: written by the caller before the claim word (release),
  // read by a worker after it has claimed a task (acquire); valid until its tasks are done.
  const std::function<void(size_t)>* fn_ = nullptr;
  std::atomic<uint64_t> claim_{0};
  std::atomic<size_t> completed_{0};     // tasks of the current parallel_for done
  uint64_t claim_generation_ = 0;        // the caller's last claim generation
  std::atomic<uint64_t> generation_{0};  // incremented for every parallel_for (wakes workers)
  std::atomic<bool> stop_{false};
  // Sleeping: workers wait on start_, the caller on done_, both under mutex_; the counts say
  // whether a notify is needed (sequentially consistent with generation_ and completed_, so that
  // no wake-up is lost).
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::atomic<unsigned> sleeping_workers_{0};
  std::atomic<bool> caller_sleeping_{false};
};

}  // namespace cppnn::cpu
