// The cpu backend's float32 math maps: exp, sigmoid, tanh, erf, gelu (webnn-spec.md §2 rows 33,
// 85, 91, 32, 51) through the vectorised float32 functions of vector_math.h (within the WPT
// tolerances; the reference computes in double), and abs, neg, floor, ceil, reciprocal (rows 27,
// 39, 34, 30, 40), exact in float32 and so bit-identical to the reference. The tensor is split
// into chunks spread over the pool.
#include <algorithm>
#include <cmath>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/vector_math.h"

namespace cppnn::cpu {
namespace {

// Elements per pool task at least.
constexpr size_t kGrain = 16 * 1024;

enum class MathFn { kExp, kSigmoid, kTanh, kErf, kGelu, kAbs, kNeg, kFloor, kCeil, kReciprocal };

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
    default:
      return std::nullopt;
  }
}

// y[i] = fn(x[i]) for i in [0, n), one plain loop per function (vectorised per clone).
CPPNN_CPU_CLONES void apply_math(MathFn fn, const float* x, float* y, size_t n) {
  switch (fn) {
    case MathFn::kExp:
      for (size_t i = 0; i < n; ++i) y[i] = vmath::exp(x[i]);
      break;
    case MathFn::kSigmoid:
      for (size_t i = 0; i < n; ++i) y[i] = vmath::sigmoid(x[i]);
      break;
    case MathFn::kTanh:
      for (size_t i = 0; i < n; ++i) y[i] = vmath::tanh(x[i]);
      break;
    case MathFn::kErf:
      for (size_t i = 0; i < n; ++i) y[i] = vmath::erf(x[i]);
      break;
    case MathFn::kGelu:
      for (size_t i = 0; i < n; ++i) y[i] = vmath::gelu(x[i]);
      break;
    case MathFn::kAbs:  // the sign bit cleared (NaN payloads kept, as the reference's fabs)
      for (size_t i = 0; i < n; ++i)
        y[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(x[i]) & 0x7FFFFFFFu);
      break;
    case MathFn::kNeg:
      for (size_t i = 0; i < n; ++i)
        y[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(x[i]) ^ 0x80000000u);
      break;
    case MathFn::kFloor:
      for (size_t i = 0; i < n; ++i) y[i] = std::floor(x[i]);
      break;
    case MathFn::kCeil:
      for (size_t i = 0; i < n; ++i) y[i] = std::ceil(x[i]);
      break;
    case MathFn::kReciprocal:  // one correctly rounded division, as double's rounded once
      for (size_t i = 0; i < n; ++i) y[i] = 1.0f / x[i];
      break;
  }
}

}  // namespace

std::optional<FastKernel> compile_fast_math(const CompileContext& cc, const Operation& op) {
  const std::optional<MathFn> fn = math_fn(op.type);
  if (!fn || op.inputs.size() != 1 || op.outputs.size() != 1) return std::nullopt;
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
