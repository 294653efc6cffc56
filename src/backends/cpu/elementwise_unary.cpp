// The cpu backend's element-wise activation kernels: float32 relu, clamp, leakyRelu, hardSwish,
// hardSigmoid and linear (webnn-spec.md §2 rows 79, 5, 59, 56, 55, 60), bit-identical to the
// reference kernels (reference/activations_kernels.cpp). The options come from Epilogue::from
// (cast to float32, §3.6; clamp bounds per erratum §6.1). relu, clamp and leakyRelu are exact in
// float32 (a select, or one float32 product). hardSwish, hardSigmoid and linear compute in double
// as the reference does and round once (float32 arithmetic, with several roundings, would be off
// by an ULP now and then; WPT allows 4, 2 and 2 ULP), in vectorised loops (see apply_exact). The
// tensor is split into chunks of kChunk elements spread over the pool.
#include <algorithm>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/fast_kernel.h"

namespace cppnn::cpu {
namespace {

// Elements per pool task (a multiple of every vector width).
constexpr size_t kChunk = 64 * 1024;

// Elements per block of the two-pass ops (their scratch fits in L1).
constexpr size_t kBlock = 512;

// y[i] = step(x[i]) for i in [0, n), computed as the reference does for float32: relu, clamp and
// leakyRelu in float32 (exact), hardSwish, hardSigmoid and linear in double, rounded once.
//
// Every loop is free of conditionally executed float operations, so that the compilers vectorise
// it for each clone's instruction set: under -ftrapping-math GCC keeps a loop scalar where a select
// would make an operation that may raise a floating-point exception (a product, a division, a
// double-to-float conversion) conditional. The ops with such a select compute the operation for
// a block of elements into scratch first and select in a second loop.
CPPNN_CPU_CLONES void apply_exact(const Epilogue::Step& s, const float* x, float* y, size_t n) {
  const float a = s.a, b = s.b;
  const double da = a, db = b;
  float ft[kBlock];
  double dt[kBlock];
  switch (s.kind) {
    case Epilogue::Kind::kRelu:  // x for x > 0 and NaN, else +0 (also for -0)
      for (size_t i = 0; i < n; ++i) y[i] = !(x[i] <= 0.0f) ? x[i] : 0.0f;
      break;
    case Epilogue::Kind::kClamp:  // the input or a bound (NaN stays NaN)
      for (size_t i = 0; i < n; ++i) {
        const float v = x[i];
        y[i] = v < a ? a : (v > b ? b : v);
      }
      break;
    case Epilogue::Kind::kLeakyRelu:  // x for x >= 0, else alpha*x: one float32 product, which
                                      // rounds the exact (double) product as the reference does
      for (size_t at = 0; at < n; at += kBlock) {
        const size_t m = std::min(kBlock, n - at);
        const float* xb = x + at;
        for (size_t i = 0; i < m; ++i) ft[i] = a * xb[i];
        for (size_t i = 0; i < m; ++i) y[at + i] = xb[i] >= 0.0f ? xb[i] : ft[i];
      }
      break;
    case Epilogue::Kind::kHardSwish:  // 0 for x <= -3, x for x >= 3, else x*(x + 3)/6 in double
      for (size_t at = 0; at < n; at += kBlock) {
        const size_t m = std::min(kBlock, n - at);
        const float* xb = x + at;
        for (size_t i = 0; i < m; ++i) {
          const double v = xb[i];
          ft[i] = static_cast<float>(v * (v + 3.0) / 6.0);
        }
        // The bounds compare the same in float32 as in double (x is a float32 value).
        for (size_t i = 0; i < m; ++i) {
          const float v = xb[i];
          y[at + i] = v <= -3.0f ? 0.0f : (v >= 3.0f ? v : ft[i]);
        }
      }
      break;
    case Epilogue::Kind::kHardSigmoid:  // max(0, min(1, alpha*x + beta)) in double, NaN kept
      for (size_t at = 0; at < n; at += kBlock) {
        const size_t m = std::min(kBlock, n - at);
        const float* xb = x + at;
        for (size_t i = 0; i < m; ++i) {
          const double v = da * static_cast<double>(xb[i]) + db;
          dt[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
        }
        for (size_t i = 0; i < m; ++i) y[at + i] = static_cast<float>(dt[i]);
      }
      break;
    case Epilogue::Kind::kLinear:  // alpha*x + beta in double (alpha*x is exact, FMA or not)
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(da * static_cast<double>(x[i]) + db);
      break;
  }
}

}  // namespace

// relu, clamp, leakyRelu, hardSwish, hardSigmoid, linear on float32 (§2 rows 79, 5, 59, 56, 55,
// 60), bit-identical to the reference; float16 and integer inputs return nullopt.
std::optional<FastKernel> compile_fast_unary(const CompileContext& cc, const Operation& op) {
  if (op.inputs.size() != 1 || op.outputs.size() != 1) return std::nullopt;
  const MLOperandDescriptor &din = cc.desc(op.inputs[0]), &dout = cc.desc(op.outputs[0]);
  constexpr MLOperandDataType f32 = MLOperandDataType::kFloat32;
  if (din.dataType != f32 || dout.dataType != f32 || din.shape != dout.shape) return std::nullopt;
  const std::optional<Epilogue> e = Epilogue::from({{op.type, op.attrs}});
  if (!e || e->count != 1) return std::nullopt;
  size_t count = 1;
  for (uint32_t d : dout.shape) count *= d;
  const OperandId in = op.inputs[0], out = op.outputs[0];
  return FastKernel{
      [step = e->steps[0], count, in, out, pool = cc.pool](std::span<std::byte* const> slots) {
        const auto* x = reinterpret_cast<const float*>(slots[in.value]);
        auto* y = reinterpret_cast<float*>(slots[out.value]);
        const size_t tasks = (count + kChunk - 1) / kChunk;
        if (tasks <= 1 || pool->size() == 1) {
          apply_exact(step, x, y, count);
          return;
        }
        pool->parallel_for(tasks, [&](size_t t) {
          const size_t begin = t * kChunk;
          apply_exact(step, x + begin, y + begin, std::min(count, begin + kChunk) - begin);
        });
      },
      false};
}

}  // namespace cppnn::cpu
