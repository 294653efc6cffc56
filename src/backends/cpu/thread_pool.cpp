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

void ThreadPool::run_tasks(uint64_t gen) {
  for (;;) {
    uint64_t v = claim_.load(std::memory_order_acquire);
    if ((v >> (2 * kIndexBits)) != gen) return;
    const uint64_t count = (v >> kIndexBits) & kIndexMask, i = v & kIndexMask;
    if (i >= count) return;
    if (!claim_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
    (*fn_)(static_cast<size_t>(i));
    if (completed_.fetch_add(1) + 1 == count && caller_sleeping_.load()) {
      std::lock_guard lock(mutex_);
      done_.notify_one();
    }
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
    run_tasks(claim_.load(std::memory_order_acquire) >> (2 * kIndexBits));
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
  if (count > kIndexMask) {  // more tasks than a claim word counts: in slices
    for (size_t base = 0; base < count; base += kIndexMask) {
      const size_t n = std::min<size_t>(kIndexMask, count - base);
      parallel_for(n, [&](size_t i) { fn(base + i); });
    }
    return;
  }
  fn_ = &fn;
  completed_.store(0, std::memory_order_relaxed);
  claim_generation_ = (claim_generation_ + 1) & kGenerationMask;
  claim_.store((claim_generation_ << (2 * kIndexBits)) | (uint64_t{count} << kIndexBits),
               std::memory_order_release);
  generation_.fetch_add(1);  // wakes the spinning workers
  if (sleeping_workers_.load() > 0) {
    std::lock_guard lock(mutex_);
    start_.notify_all();
  }
  run_tasks(claim_generation_);
  // Done when every task is, whether or not every worker has woken.
  if (!spin_until([&] { return completed_.load(std::memory_order_acquire) == count; })) {
    std::unique_lock lock(mutex_);
    caller_sleeping_.store(true);
    done_.wait(lock, [&] { return completed_.load() == count; });
    caller_sleeping_.store(false);
  }
}

}  // namespace cppnn::cpu
