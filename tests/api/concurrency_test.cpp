// Multi-threaded use of the execution API (webnn-spec.md §4 timeline): several threads
// dispatching the same and different graphs on one context and on separate contexts, with
// writeTensor/readTensor interleaved on each thread's own tensors, graphs built and tensors made
// and destroyed meanwhile, and a context lost while threads use it. Every result is checked
// exactly. Iterations are bounded so the suite takes a few seconds under ASan.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/api/api_test_util.h"

namespace cppnn::testing {
namespace {

constexpr int kThreads = 6;
constexpr int kIterations = 150;
constexpr uint32_t kSize = 257;  // elements per tensor (not a multiple of any vector width)

// Failures seen by worker threads, reported by the main thread.
class Failures {
 public:
  void add(const std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (messages_.size() < 20) messages_.push_back(message);
    ++count_;
  }
  void ExpectNone() {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(count_, 0);
    for (const std::string& m : messages_) ADD_FAILURE() << m;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> messages_;
  int count_ = 0;
};

// Runs body(thread index) on `n` threads at once; an escaping exception is a failure.
void run_threads(int n, Failures& failures, const std::function<void(int)>& body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();  // start together
      try {
        body(t);
      } catch (const std::exception& e) {
        failures.add("thread " + std::to_string(t) + ": " + e.what());
      }
    });
  }
  for (std::thread& th : threads) th.join();
}

// Distinct per-thread, per-iteration data.
std::vector<int32_t> values(int thread, int iteration, int salt = 0) {
  std::vector<int32_t> v(kSize);
  for (uint32_t j = 0; j < kSize; ++j)
    v[j] = thread * 100003 + iteration * 1009 + static_cast<int32_t>(j) * (salt + 1) - 5000;
  return v;
}

// The int32 binary ops used below, computed the way the kernels do (wrapping).
enum class Op { kAdd, kSub, kMul, kMax, kMin };
constexpr Op kOps[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kMax, Op::kMin};

int32_t apply(Op op, int32_t a, int32_t b) {
  const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  switch (op) {
    case Op::kAdd:
      return static_cast<int32_t>(ua + ub);
    case Op::kSub:
      return static_cast<int32_t>(ua - ub);
    case Op::kMul:
      return static_cast<int32_t>(ua * ub);
    case Op::kMax:
      return std::max(a, b);
    case Op::kMin:
      return std::min(a, b);
  }
  return 0;
}

// c = op(a, b) over int32 [kSize].
MLGraph build_op(MLContext& context, Op op) {
  MLGraphBuilder b(context);
  MLOperand x = b.input("a", {I32, {kSize}});
  MLOperand y = b.input("b", {I32, {kSize}});
  MLOperand r;
  switch (op) {
    case Op::kAdd:
      r = b.add(x, y);
      break;
    case Op::kSub:
      r = b.sub(x, y);
      break;
    case Op::kMul:
      r = b.mul(x, y);
      break;
    case Op::kMax:
      r = b.max(x, y);
      break;
    case Op::kMin:
      r = b.min(x, y);
      break;
  }
  return b.build({{"c", r}});
}

// Compares `got` with `want` and records the first difference.
void check(Failures& failures, const std::string& what, const std::vector<int32_t>& got,
           const std::vector<int32_t>& want) {
  if (got == want) return;
  if (got.size() != want.size()) {
    failures.add(what + ": size " + std::to_string(got.size()));
    return;
  }
  for (size_t j = 0; j < got.size(); ++j)
    if (got[j] != want[j]) {
      failures.add(what + ": element " + std::to_string(j) + " is " + std::to_string(got[j]) +
                   ", expected " + std::to_string(want[j]));
      return;
    }
}

// One thread's work on `context`: a chain of dispatches over `graphs` (graph i % n at iteration
// i) with its own tensors: state <- op(state, b_i), the output fed back as the next input without
// synchronisation, writes of b and reads of the state interleaved. Also runs `affine` (y = 2x+1)
// on the side each iteration.
void chain_worker(MLContext& context, const std::vector<std::pair<Op, MLGraph>>& graphs,
                  const MLGraph& affine, int t, Failures& failures) {
  const std::string who = "thread " + std::to_string(t);
  MLTensor state = io_tensor(context, I32, {kSize});
  MLTensor next = io_tensor(context, I32, {kSize});
  MLTensor b = io_tensor(context, I32, {kSize});
  MLTensor x = io_tensor(context, I32, {kSize});
  MLTensor y = output_tensor(context, I32, {kSize});
  std::vector<int32_t> expected = values(t, -1);
  context.writeTensor(state, bytes_of(expected));
  for (int i = 0; i < kIterations; ++i) {
    const auto& [op, graph] = graphs[static_cast<size_t>(t + i) % graphs.size()];
    // Small second operands keep mul chains from collapsing to 0 too soon.
    std::vector<int32_t> bv = values(t, i, i % 3);
    if (op == Op::kMul)
      for (int32_t& v : bv) v = (v & 3) - 1;
    context.writeTensor(b, bytes_of(bv));
    context.dispatch(graph, {{"a", state}, {"b", b}}, {{"c", next}});
    for (uint32_t j = 0; j < kSize; ++j) expected[j] = apply(op, expected[j], bv[j]);
    std::swap(state, next);

    const std::vector<int32_t> xv = values(t, i, 7);
    context.writeTensor(x, bytes_of(xv));
    context.dispatch(affine, {{"x", x}}, {{"y", y}});
    // Overwrite x right away: the dispatch already consumed it.
    context.writeTensor(x, bytes_of(values(t, i, 8)));
    std::vector<int32_t> want(kSize);
    for (uint32_t j = 0; j < kSize; ++j) want[j] = apply(Op::kAdd, apply(Op::kMul, xv[j], 2), 1);
    check(failures, who + " affine at " + std::to_string(i), context.readTensor<int32_t>(y), want);
    check(failures, who + " x at " + std::to_string(i), context.readTensor<int32_t>(x),
          values(t, i, 8));
    if (i % 10 == 9)
      check(failures, who + " chain at " + std::to_string(i), context.readTensor<int32_t>(state),
            expected);
  }
  check(failures, who + " chain at end", context.readTensor<int32_t>(state), expected);
}

std::vector<std::pair<Op, MLGraph>> build_all(MLContext& context) {
  std::vector<std::pair<Op, MLGraph>> graphs;
  for (Op op : kOps) graphs.emplace_back(op, build_op(context, op));
  return graphs;
}

TEST(ApiConcurrency, SameGraphOnOneContext) {
  MLContext context = MLContext::create();
  const std::vector<std::pair<Op, MLGraph>> add = {{Op::kAdd, build_op(context, Op::kAdd)}};
  const MLGraph affine = build_affine_i32(context, {kSize});
  Failures failures;
  run_threads(kThreads, failures, [&](int t) { chain_worker(context, add, affine, t, failures); });
  failures.ExpectNone();
}

TEST(ApiConcurrency, DifferentGraphsOnOneContext) {
  MLContext context = MLContext::create();
  const auto graphs = build_all(context);
  const MLGraph affine = build_affine_i32(context, {kSize});
  Failures failures;
  run_threads(kThreads, failures,
              [&](int t) { chain_worker(context, graphs, affine, t, failures); });
  failures.ExpectNone();
}

TEST(ApiConcurrency, SeparateContexts) {
  Failures failures;
  run_threads(kThreads, failures, [&](int t) {
    MLContext context = MLContext::create();
    const auto graphs = build_all(context);
    const MLGraph affine = build_affine_i32(context, {kSize});
    chain_worker(context, graphs, affine, t, failures);
  });
  failures.ExpectNone();
}

TEST(ApiConcurrency, SharedAndSeparateContextsTogether) {
  // Even threads share one context and its graphs; odd threads build their own graphs on the
  // shared context or on a private one, all at the same time.
  MLContext shared = MLContext::create();
  const auto shared_graphs = build_all(shared);
  const MLGraph shared_affine = build_affine_i32(shared, {kSize});
  Failures failures;
  run_threads(kThreads, failures, [&](int t) {
    if (t % 2 == 0) {
      chain_worker(shared, shared_graphs, shared_affine, t, failures);
      return;
    }
    MLContext context = t % 4 == 1 ? shared : MLContext::create();
    const auto graphs = build_all(context);
    const MLGraph affine = build_affine_i32(context, {kSize});
    chain_worker(context, graphs, affine, t, failures);
  });
  failures.ExpectNone();
}

TEST(ApiConcurrency, BuildsAndTensorChurnWhileDispatching) {
  // Two threads dispatch; two build graphs (with constant tensors they then destroy) and run
  // them once; two create, write, read and destroy tensors. All on one context.
  MLContext context = MLContext::create();
  const auto graphs = build_all(context);
  const MLGraph affine = build_affine_i32(context, {kSize});
  Failures failures;
  run_threads(6, failures, [&](int t) {
    const std::string who = "thread " + std::to_string(t);
    if (t < 2) {
      chain_worker(context, graphs, affine, t, failures);
    } else if (t < 4) {
      for (int i = 0; i < kIterations / 3; ++i) {
        const std::vector<int32_t> kv = values(t, i, 1);
        MLTensor k = context.createConstantTensor({I32, {kSize}}, bytes_of(kv));
        MLGraphBuilder b(context);
        MLOperand x = b.input("x", {I32, {kSize}});
        MLGraph g = b.build({{"y", b.sub(x, b.constant(k))}, {"z", b.max(x, b.constant(k))}});
        k.destroy();
        const std::vector<int32_t> xv = values(t, i, 2);
        MLTensor xt = input_tensor(context, I32, {kSize}, xv);
        MLTensor yt = output_tensor(context, I32, {kSize});
        MLTensor zt = output_tensor(context, I32, {kSize});
        context.dispatch(g, {{"x", xt}}, {{"y", yt}, {"z", zt}});
        g.destroy();
        std::vector<int32_t> wy(kSize), wz(kSize);
        for (uint32_t j = 0; j < kSize; ++j) {
          wy[j] = apply(Op::kSub, xv[j], kv[j]);
          wz[j] = std::max(xv[j], kv[j]);
        }
        check(failures, who + " y at " + std::to_string(i), context.readTensor<int32_t>(yt), wy);
        check(failures, who + " z at " + std::to_string(i), context.readTensor<int32_t>(zt), wz);
        xt.destroy();
      }
    } else {
      for (int i = 0; i < kIterations; ++i) {
        MLTensor u = io_tensor(context, I32, {kSize});
        check(failures, who + " zero-filled", context.readTensor<int32_t>(u),
              std::vector<int32_t>(kSize, 0));
        context.writeTensor(u, bytes_of(values(t, i)));
        check(failures, who + " round trip", context.readTensor<int32_t>(u), values(t, i));
        u.destroy();
        try {
          context.writeTensor(u, bytes_of(values(t, i)));
          failures.add(who + ": write after destroy succeeded");
        } catch (const TypeError&) {
        }
      }
    }
  });
  failures.ExpectNone();
}

TEST(ApiConcurrency, ContextLostWhileThreadsUseIt) {
  // Threads dispatch, write and read until the context is lost under them. Before the loss every
  // result is right; after it every call fails with TypeError or InvalidStateError only.
  MLContext context = MLContext::create();
  const MLGraph affine = build_affine_i32(context, {kSize});
  std::atomic<int> progress{0};
  std::atomic<int> saw_loss{0};
  Failures failures;
  std::thread killer([&] {
    while (progress.load() < kThreads * 10) std::this_thread::yield();
    context.destroy();
  });
  run_threads(kThreads, failures, [&](int t) {
    const std::string who = "thread " + std::to_string(t);
    int after_loss = 0;
    for (int i = 0; after_loss < 5; ++i) {
      try {
        if (t == kThreads - 1 && i % 4 == 0) {
          // A builder racing with the loss: ISE from the constructor or build(), or a graph
          // destroyed by the loss.
          MLGraph g = build_affine_i32(context, {kSize});
          (void)g;
        }
        MLTensor x = io_tensor(context, I32, {kSize});
        MLTensor y = io_tensor(context, I32, {kSize});
        const std::vector<int32_t> xv = values(t, i);
        context.writeTensor(x, bytes_of(xv));
        context.dispatch(affine, {{"x", x}}, {{"y", y}});
        std::vector<int32_t> got = context.readTensor<int32_t>(y);
        std::vector<int32_t> want(kSize);
        for (uint32_t j = 0; j < kSize; ++j)
          want[j] = apply(Op::kAdd, apply(Op::kMul, xv[j], 2), 1);
        check(failures, who + " at " + std::to_string(i), got, want);
        progress.fetch_add(1);
        if (after_loss > 0) failures.add(who + ": an iteration succeeded after the loss");
      } catch (const TypeError&) {
        if (!context.is_lost()) failures.add(who + ": TypeError before the loss");
        ++after_loss;
      } catch (const InvalidStateError&) {
        if (!context.is_lost()) failures.add(who + ": InvalidStateError before the loss");
        ++after_loss;
      }
      if (after_loss == 0 && context.is_lost()) ++after_loss;  // lost between iterations
      if (i > 100000) {
        failures.add(who + ": the loss never showed");
        break;
      }
    }
    saw_loss.fetch_add(1);
  });
  killer.join();
  EXPECT_TRUE(context.is_lost());
  EXPECT_TRUE(affine.is_destroyed());
  EXPECT_EQ(saw_loss.load(), kThreads);
  failures.ExpectNone();
}

}  // namespace
}  // namespace cppnn::testing
