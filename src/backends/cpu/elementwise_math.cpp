// The cpu backend's float32 math maps: exp, log, sigmoid, tanh, erf, gelu (webnn-spec.md §2 rows
// 33, 36, 85, 91, 32, 51) through the vectorised float32 functions of vector_math.h (within the WPT
// tolerances; the reference computes in double), and abs, ceil, floor, neg, reciprocal, sqrt
// (rows 29, 30, 34, 37, 38, 42) and pow with a constant exponent of 2, 0.5 or 1 (row 16), exact in
// float32 and so bit-identical to the reference. The tensor is split into chunks spread over the
// pool.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/vector_math.h"

namespace cppnn::cpu {
namespace {

// Elements per pool task at least.
constexpr size_t kGrain = 16 * 1024;

enum class MathFn {
  kExp,
  kSigmoid,
  kTanh,
  kErf,
  kGelu,
  kAbs,
  kNeg,
  kFloor,
  kCeil,
  kReciprocal,
  kSqrt,
  kLog,
  kSquare,    // pow(x, 2)
  kPowHalf,   // pow(x, 0.5)
  kIdentity,  // pow(x, 1)
};

std::optional<MathFn> math_fn(OpType type) {
  switch (type) {
    case OpType::kExp:
      return MathFn::kExp;
    case OpType::kSigmoid:
      return MathFn::kSigmoid;
    case OpType::kTanh:
      return MathFn::kTanh;
    case OpType::kErf:
      return MathFn::kErf;
    case OpType::kGelu:
      return MathFn::kGelu;
    case OpType::kAbs:
      return MathFn::kAbs;
    case OpType::kNeg:
      return MathFn::kNeg;
    case OpType::kFloor:
      return MathFn::kFloor;
    case OpType::kCeil:
      return MathFn::kCeil;
    case OpType::kReciprocal:
      return MathFn::kReciprocal;
    case OpType::kSqrt:
      return MathFn::kSqrt;
    case OpType::kLog:
      return MathFn::kLog;
    default:
      return std::nullopt;
  }
}

// y[i] = f(x[i]) for i in [0, n): 16 lanes at a time (simd::VF), then the rest one by one.
template <class F>
CPPNN_SIMD_INLINE void map_rows(const float* x, float* y, size_t n, F f) {
  size_t i = 0;
  for (; i + simd::kWidth <= n; i += simd::kWidth) simd::store(y + i, f(simd::load(x + i)));
  for (; i < n; ++i) y[i] = f(x[i]);
}

// y[i] = fn(x[i]) for i in [0, n), one loop per function (vector code in every clone).
CPPNN_CPU_CLONES void apply_math(MathFn fn, const float* x, float* y, size_t n) {
  switch (fn) {
    case MathFn::kExp:
      return map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::exp(v); });
    case MathFn::kSigmoid:  // the fast form where no x is below -87 (all but the rarest rows)
      if (!vmath::any_below_minus_87(x, n))
        return map_rows(x, y, n,
                        [](auto v) CPPNN_SIMD_LAMBDA { return vmath::sigmoid_above_minus_87(v); });
      return map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::sigmoid(v); });
    case MathFn::kTanh:
      return map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::tanh(v); });
    case MathFn::kErf:
      return map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::erf(v); });
    case MathFn::kGelu:
      return map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::gelu(v); });
    case MathFn::kAbs:  // the sign bit cleared (NaN payloads kept, as the reference's fabs)
      for (size_t i = 0; i < n; ++i)
        y[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(x[i]) & 0x7FFFFFFFu);
      return;
    case MathFn::kNeg:
      for (size_t i = 0; i < n; ++i)
        y[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(x[i]) ^ 0x80000000u);
      return;
    case MathFn::kFloor:
      for (size_t i = 0; i < n; ++i) y[i] = std::floor(x[i]);
      return;
    case MathFn::kCeil:
      for (size_t i = 0; i < n; ++i) y[i] = std::ceil(x[i]);
      return;
    case MathFn::kReciprocal:  // one correctly rounded division, as double's rounded once
      for (size_t i = 0; i < n; ++i) y[i] = 1.0f / x[i];
      return;
    case MathFn::kLog:
      return map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::log(v); });
    case MathFn::kSqrt:  // correctly rounded, as double's rounded once
      for (size_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
      return;
    case MathFn::kSquare:  // exact in double, so one float32 rounding is the reference's
      for (size_t i = 0; i < n; ++i) y[i] = x[i] * x[i];
      return;
    case MathFn::kPowHalf:  // √x, but pow(−0, 0.5) = +0 and pow(−Inf, 0.5) = +Inf
      for (size_t i = 0; i < n; ++i) {
        const float v = x[i];
        y[i] =
            v == 0.0f ? 0.0f : (v == -std::numeric_limits<float>::infinity() ? -v : std::sqrt(v));
      }
      return;
    case MathFn::kIdentity:
      if (x != y) std::memmove(y, x, n * sizeof(float));
      return;
  }
}

// pow(x, e) with a constant exponent whose every element is 2, 0.5 or 1 (exported squares and
// square roots), as a map of x.
std::optional<MathFn> pow_fn(const CompileContext& cc, const Operation& op) {
  const std::byte* e = cc.constant(op.inputs[1]);
  const MLOperandDescriptor& ed = cc.desc(op.inputs[1]);
  if (!e || ed.dataType != MLOperandDataType::kFloat32 ||
      cc.desc(op.inputs[0]).shape != cc.desc(op.outputs[0]).shape)
    return std::nullopt;
  const size_t count = element_count(ed.shape);
  float first;
  std::memcpy(&first, e, sizeof first);
  for (size_t i = 1; i < count; ++i)
    if (std::memcmp(e + i * sizeof(float), e, sizeof(float)) != 0) return std::nullopt;
  if (first == 2.0f) return MathFn::kSquare;
  if (first == 0.5f) return MathFn::kPowHalf;
  if (first == 1.0f) return MathFn::kIdentity;
  return std::nullopt;
}

}  // namespace

std::optional<FastKernel> compile_fast_math(const CompileContext& cc, const Operation& op) {
  std::optional<MathFn> fn = math_fn(op.type);
  if (op.type == OpType::kPow && op.inputs.size() == 2) fn = pow_fn(cc, op);
  if (!fn || op.outputs.size() != 1) return std::nullopt;
  const MLOperandDescriptor &din = cc.desc(op.inputs[0]), &dout = cc.desc(op.outputs[0]);
  constexpr MLOperandDataType f32 = MLOperandDataType::kFloat32;
  if (din.dataType != f32 || dout.dataType != f32 || din.shape != dout.shape) return std::nullopt;
  const size_t count = element_count(dout.shape);
  const OperandId in = op.inputs[0], out = op.outputs[0];
  return FastKernel{[fn = *fn, count, in, out, pool = cc.pool](std::span<std::byte* const> slots) {
                      const auto* x = reinterpret_cast<const float*>(slots[in.value]);
                      auto* y = reinterpret_cast<float*>(slots[out.value]);
                      pool->parallel_ranges(count, kGrain, [&](size_t begin, size_t end) {
                        apply_math(fn, x + begin, y + begin, end - begin);
                      });
                    },
                    false};
}

}  // namespace cppnn::cpu
