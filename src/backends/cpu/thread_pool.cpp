// The cpu backend's thread pool (thread_pool.h).
#include "src/backends/cpu/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cppnn::cpu {
namespace {

// One step of a spin-wait: a pause hint where the CPU has one.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until `ready()` or ThreadPool::kSpin has passed; returns ready().
template <class F>
bool spin_until(F ready) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point until = Clock::now() + ThreadPool::kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      relax();
    }
    if (Clock::now() >= until) return ready();
  }
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_.store(true);
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// Takes tasks until none is left.
void ThreadPool::run_tasks() {
  for (;;) {
    const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= count_) return;
    (*fn_)(i);
  }
}

void ThreadPool::work() {
  uint64_t seen = 0;
  for (;;) {
    auto started = [&] {
      return stop_.load(std::memory_order_relaxed) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spin_until(started)) {
      std::unique_lock lock(mutex_);
      sleeping_workers_.fetch_add(1);
      start_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
      sleeping_workers_.fetch_sub(1);
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    run_tasks();
    if (busy_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
      std::lock_guard lock(mutex_);
      done_.notify_one();
    }
  }
}

void ThreadPool::parallel_ranges(size_t n, size_t grain,
                                 const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  const size_t tasks = std::min<size_t>(size_t{size()} * 4, n / std::max<size_t>(grain, 1));
  if (tasks <= 1) return fn(0, n);
  parallel_for(tasks, [&](size_t t) { fn(n * t / tasks, n * (t + 1) / tasks); });
}

void ThreadPool::parallel_for(size_t count, const std::function<void(size_t)>& fn) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  fn_ = &fn;
  count_ = count;
  next_.store(0, std::memory_order_relaxed);
  busy_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1);  // publishes the above
  if (sleeping_workers_.load() > 0) {
    std::lock_guard lock(mutex_);
    start_.notify_all();
  }
  run_tasks();
  if (!spin_until([&] { return busy_.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock lock(mutex_);
    caller_sleeping_.store(true);
    done_.wait(lock, [&] { return busy_.load() == 0; });
    caller_sleeping_.store(false);
  }
  fn_ = nullptr;
}

}  // namespace cppnn::cpu
