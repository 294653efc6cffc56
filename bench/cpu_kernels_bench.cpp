// The cpu backend's kernels against the machine's limits (docs/performance.md, metric 6): the
// float32 GEMM on the shapes of PP-OCR's 1×1 and 3×3 convolutions and of a transformer's
// projections, in GFLOP/s (against the core's FMA peak: about 135 GFLOP/s with AVX2, 270 with
// AVX-512 on these machines), and the memory-bound kernels (depthwise conv2d, global average
// pooling, a broadcast add) in GB/s of bytes read and written (against about 19 GB/s copy
// bandwidth), on one thread, through the backend itself (a one-op graph on a "cpu" context;
// ONNX Runtime's figures for the same shapes come from backends_bench's whole models).
//
//   cpu_kernels_bench [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/child_process.h"
#include "cppnn/webnn.h"
#include "src/backends/cpu/gemm.h"

namespace {

using namespace cppnn;

// C[M,N] = A[M,K]·B[K,N], A packed once (weights), on the calling thread.
void BM_Gemm(benchmark::State& state) {
  const size_t m = size_t(state.range(0)), n = size_t(state.range(1)), k = size_t(state.range(2));
  const std::vector<float> a = bench::pattern_input(m * k), b = bench::pattern_input(k * n);
  std::vector<float> c(m * n);
  const cpu::PackedA packed = cpu::PackedA::pack(a.data(), m, k, k, 1);
  for (auto _ : state) {
    cpu::GemmOutput out;
    out.c = c.data();
    out.ldc = n;
    cpu::gemm(packed, cpu::MatrixBPacker(b.data(), n, 1), n, out, nullptr);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * double(m * n * k), benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Gemm)
    ->Args({64, 25600, 64})   // 1×1 conv, 160×160
    ->Args({128, 6400, 128})  // 1×1 conv, 80×80
    ->Args({256, 1600, 256})  // 1×1 conv, 40×40
    ->Args({64, 25600, 576})  // 3×3 conv 64→64, 160×160 (im2col depth 576)
    ->Args({80, 768, 256})    // transformer projection (seq 80)
    ->Args({512, 512, 512});

// A one-op graph on the cpu backend, timed per dispatch (numThreads = 1).
template <class Record>
void run_one_op(benchmark::State& state, Record&& record, double bytes) {
  MLContext context = MLContext::create({.backend = "cpu", .numThreads = 1});
  MLGraphBuilder b(context);
  MLNamedOperands outs = record(b);
  MLGraph graph = b.build(outs);
  MLNamedTensors inputs, outputs;
  for (const auto& [name, d] : graph.inputs()) {
    MLTensor t = context.createTensor(MLTensorDescriptor::of(d, false, true));
    const std::vector<float> v = bench::pattern_input(element_count(d.shape));
    context.writeTensor(t, std::as_bytes(std::span(v)));
    inputs.emplace(name, t);
  }
  for (const auto& [name, d] : graph.outputs())
    outputs.emplace(name, context.createTensor(MLTensorDescriptor::of(d, true, false)));
  // Read back into one buffer (a fresh vector per round would time the allocator and the page
  // faults of its first writes).
  std::vector<std::byte> result(byte_length(graph.outputs().begin()->second));
  for (auto _ : state) {
    context.dispatch(graph, inputs, outputs);
    context.readTensor(outputs.begin()->second, result);
    benchmark::DoNotOptimize(result.data());
  }
  state.counters["GB/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate,
                                              benchmark::Counter::kIs1000);
}

// Depthwise 3×3 conv2d, stride state.range(1), on [1, 64, S, S].
void BM_DepthwiseConv(benchmark::State& state) {
  const uint32_t s = uint32_t(state.range(0)), stride = uint32_t(state.range(1));
  const double out = 64.0 * (s / stride) * (s / stride);
  run_one_op(
      state,
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, 64, s, s}});
        MLOperand w =
            b.constant({MLOperandDataType::kFloat32, {64, 1, 3, 3}}, bench::pattern_input(64 * 9));
        MLConv2dOptions o;
        o.groups = 64;
        o.padding = std::vector<uint32_t>{1, 1, 1, 1};
        o.strides = std::vector<uint32_t>{stride, stride};
        return MLNamedOperands{{"y", b.conv2d(x, w, o)}};
      },
      4.0 * (64.0 * s * s + out));
}
BENCHMARK(BM_DepthwiseConv)->Args({160, 1})->Args({160, 2});

// A k×k conv2d (padding k/2) of [1, Cin, S, S] into Cout channels at stride `stride`, on the
// shapes of YOLOv8n at 320×320 (its stem, a downsampling layer, a head layer, a 1×1), in GFLOP/s.
void BM_Conv(benchmark::State& state) {
  const uint32_t cin = uint32_t(state.range(0)), cout = uint32_t(state.range(1));
  const uint32_t s = uint32_t(state.range(2)), k = uint32_t(state.range(3));
  const uint32_t stride = uint32_t(state.range(4)), pad = k / 2;
  const double out = double((s + 2 * pad - k) / stride + 1);
  run_one_op(
      state,
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, cin, s, s}});
        MLOperand w = b.constant({MLOperandDataType::kFloat32, {cout, cin, k, k}},
                                 bench::pattern_input(size_t(cout) * cin * k * k));
        MLConv2dOptions o;
        o.padding = std::vector<uint32_t>{pad, pad, pad, pad};
        o.strides = std::vector<uint32_t>{stride, stride};
        return MLNamedOperands{{"y", b.conv2d(x, w, o)}};
      },
      0);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * cout * cin * k * k * out * out,
                                                 benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Conv)
    ->Args({3, 16, 320, 3, 2})
    ->Args({16, 32, 160, 3, 2})
    ->Args({64, 64, 40, 3, 1})
    ->Args({32, 32, 80, 3, 1})
    ->Args({128, 128, 20, 3, 1})
    ->Args({64, 64, 80, 1, 1});

// matmul of [1, M, K] activations by a constant [K, N] weight (a transformer's projection:
// MiniLM's at 128 tokens), in GFLOP/s.
void BM_Matmul(benchmark::State& state) {
  const uint32_t m = uint32_t(state.range(0)), k = uint32_t(state.range(1));
  const uint32_t n = uint32_t(state.range(2));
  run_one_op(
      state,
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, m, k}});
        MLOperand w =
            b.constant({MLOperandDataType::kFloat32, {k, n}}, bench::pattern_input(size_t(k) * n));
        return MLNamedOperands{{"y", b.matmul(x, w)}};
      },
      0);
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Matmul)
    ->Args({128, 384, 384})
    ->Args({128, 384, 1536})
    ->Args({128, 1536, 384})
    ->Args({20, 1024, 8210})    // a CTC classifier over a sequence (ddddocr: 33 MB of weights)
    ->Args({20, 1024, 32768});  // the same beyond the last-level cache (128 MB)

// A language model's linear layer: gemm of [M, K] activations by a constant [N, K] weight
// (bTranspose, as GGUF and Hugging Face store it) on SmolLM2-135M's shapes: M = 64 (a prefill
// chunk) in GFLOP/s, M = 1 (a decode step) in GB/s of weight read.
void BM_LinearT(benchmark::State& state) {
  const uint32_t m = uint32_t(state.range(0)), k = uint32_t(state.range(1));
  const uint32_t n = uint32_t(state.range(2));
  run_one_op(
      state,
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {m, k}});
        MLOperand w =
            b.constant({MLOperandDataType::kFloat32, {n, k}}, bench::pattern_input(size_t(k) * n));
        return MLNamedOperands{{"y", b.gemm(x, w, {.bTranspose = true})}};
      },
      m == 1 ? 4.0 * k * n : 0);
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_LinearT)
    ->Args({64, 576, 576})
    ->Args({64, 576, 192})
    ->Args({64, 576, 1536})
    ->Args({64, 1536, 576})
    ->Args({1, 576, 1536})
    ->Args({1, 576, 49152});  // the vocabulary projection (113 MB)

// A stack of `layers` up (K → 4K) and down (4K → K) projections of [M, K] activations, each
// with its own constant [N, K] weight: a language model's feed-forward layers, whose weights
// (30 layers of SmolLM2's sizes: 212 MB) stream from memory instead of staying in the caches.
void BM_LinearStack(benchmark::State& state) {
  const uint32_t m = uint32_t(state.range(0)), k = uint32_t(state.range(1));
  const uint32_t layers = uint32_t(state.range(2)), wide = 4 * k;
  run_one_op(
      state,
      [&](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {m, k}});
        const std::vector<float> values = bench::pattern_input(size_t(k) * wide);
        for (uint32_t l = 0; l < layers; ++l) {
          MLOperand up = b.constant({MLOperandDataType::kFloat32, {wide, k}}, values);
          MLOperand down = b.constant({MLOperandDataType::kFloat32, {k, wide}}, values);
          x = b.gemm(b.gemm(x, up, {.bTranspose = true}), down, {.bTranspose = true});
        }
        return MLNamedOperands{{"y", x}};
      },
      m == 1 ? 8.0 * k * wide * layers : 0);
  state.counters["GFLOP/s"] =
      benchmark::Counter(4.0 * m * k * wide * layers, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
}
BENCHMARK(BM_LinearStack)->Args({64, 576, 30})->Args({1, 576, 30});

// Global average pooling of [1, 256, 40, 40].
void BM_GlobalAveragePool(benchmark::State& state) {
  run_one_op(
      state,
      [](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, 256, 40, 40}});
        return MLNamedOperands{{"y", b.averagePool2d(x)}};
      },
      4.0 * 256 * 40 * 40);
}
BENCHMARK(BM_GlobalAveragePool);

// A per-channel broadcast add of [1, 64, 160, 160] and [1, 64, 1, 1].
void BM_BroadcastAdd(benchmark::State& state) {
  run_one_op(
      state,
      [](MLGraphBuilder& b) {
        MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1, 64, 160, 160}});
        MLOperand c = b.input("c", {MLOperandDataType::kFloat32, {1, 64, 1, 1}});
        return MLNamedOperands{{"y", b.add(x, c)}};
      },
      8.0 * 64 * 160 * 160);
}
BENCHMARK(BM_BroadcastAdd);

}  // namespace

BENCHMARK_MAIN();
