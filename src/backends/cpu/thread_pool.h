// The cpu backend's thread pool: numThreads workers (the caller counts as one) that split a
// kernel's independent tasks between them. A parallel_for returns when every task has run; the
// workers sleep on a condition variable between kernels.
#pragma once

#include <condition_variable>
#include <cstddef>
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
  // must be independent. Not reentrant: a task must not call parallel_for on the same pool.
  void parallel_for(size_t count, const std::function<void(size_t)>& fn);

 private:
  void work(unsigned index);
  void run_tasks();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(size_t)>* fn_ = nullptr;
  size_t count_ = 0;
  size_t next_ = 0;          // the next task to take (guarded by mutex_)
  unsigned busy_ = 0;        // workers still in the current generation
  unsigned generation_ = 0;  // incremented for every parallel_for
  bool stop_ = false;
};

}  // namespace cppnn::cpu
