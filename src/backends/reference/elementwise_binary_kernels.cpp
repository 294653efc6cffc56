// Reference kernels for the element-wise binary, comparison and logical ops (webnn-spec.md §2
// rows 10-26): both inputs broadcast to the output shape. Floats compute in double and round
// once to the output type (so float16 stays float16 in memory); integers wrap like two's
// complement hardware, and integer division truncates toward zero (#909).
#include <cmath>
#include <type_traits>

#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

// The unsigned type of the same width, for wrapping integer arithmetic without UB.
template <class T>
using Wrap = std::make_unsigned_t<T>;

// Integer x^y with wrapping multiplication; negative y truncates 1/x^|y| toward zero.
template <class T>
T int_pow(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) {
      if (x == 1) return 1;
      if (x == -1) return (y % 2 == 0) ? 1 : -1;
      return 0;  // |x| > 1 gives a magnitude below 1; x == 0 (division by zero) gives 0 too
    }
  }
  Wrap<T> result = 1, base = static_cast<Wrap<T>>(x);
  for (auto e = static_cast<Wrap<T>>(y); e != 0; e >>= 1) {
    if (e & 1) result = static_cast<Wrap<T>>(result * base);
    base = static_cast<Wrap<T>>(base * base);
  }
  return static_cast<T>(result);
}

// The arithmetic ops on one pair of elements.
template <OpType Op, class T>
T arithmetic(T a, T b) {
  if constexpr (kIsFloat<T>) {
    const double x = to_double(a), y = to_double(b);
    double r = 0;
    if constexpr (Op == OpType::kAdd) r = x + y;
    if constexpr (Op == OpType::kSub) r = x - y;
    if constexpr (Op == OpType::kMul) r = x * y;
    if constexpr (Op == OpType::kDiv) r = x / y;
    if constexpr (Op == OpType::kMax) r = (std::isnan(x) || std::isnan(y)) ? NAN : (x > y ? x : y);
    if constexpr (Op == OpType::kMin) r = (std::isnan(x) || std::isnan(y)) ? NAN : (x < y ? x : y);
    if constexpr (Op == OpType::kPow) r = std::pow(x, y);
    return from_double<T>(r);
  } else {
    using U = Wrap<T>;
    if constexpr (Op == OpType::kAdd)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    if constexpr (Op == OpType::kSub)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    if constexpr (Op == OpType::kMul)
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    if constexpr (Op == OpType::kDiv) {
      if (b == 0) return 0;  // implementation-defined; never a trap
      if constexpr (std::is_signed_v<T>)
        if (a == std::numeric_limits<T>::lowest() && b == -1) return a;  // wraps
      return static_cast<T>(a / b);
    }
    if constexpr (Op == OpType::kMax) return a > b ? a : b;
    if constexpr (Op == OpType::kMin) return a < b ? a : b;
    if constexpr (Op == OpType::kPow) return int_pow(a, b);
  }
}

// Comparisons: uint8 0/1. NaN compares false (notEqual: true).
template <OpType Op, class T>
uint8_t compare(T a, T b) {
  if constexpr (kIsFloat<T>) {
    const double x = to_double(a), y = to_double(b);
    if constexpr (Op == OpType::kEqual) return x == y;
    if constexpr (Op == OpType::kNotEqual) return x != y;
    if constexpr (Op == OpType::kGreater) return x > y;
    if constexpr (Op == OpType::kGreaterOrEqual) return x >= y;
    if constexpr (Op == OpType::kLesser) return x < y;
    if constexpr (Op == OpType::kLesserOrEqual) return x <= y;
  } else {
    if constexpr (Op == OpType::kEqual) return a == b;
    if constexpr (Op == OpType::kNotEqual) return a != b;
    if constexpr (Op == OpType::kGreater) return a > b;
    if constexpr (Op == OpType::kGreaterOrEqual) return a >= b;
    if constexpr (Op == OpType::kLesser) return a < b;
    if constexpr (Op == OpType::kLesserOrEqual) return a <= b;
  }
}

// Logical ops on uint8: nonzero is true; the result is 0 or 1.
template <OpType Op>
uint8_t logical(uint8_t a, uint8_t b) {
  if constexpr (Op == OpType::kLogicalAnd) return (a != 0) && (b != 0);
  if constexpr (Op == OpType::kLogicalOr) return (a != 0) || (b != 0);
  if constexpr (Op == OpType::kLogicalXor) return (a != 0) != (b != 0);
}

// A broadcasting binary kernel computing out[i] = fn(a[ia], b[ib]) with element types In and Out.
template <class In, class Out, class Fn>
Kernel broadcast_kernel(const KernelContext& kc, const Operation& op, Fn fn) {
  const OperandId a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
  const Dims shape = kc.desc(out).shape;
  const std::array<Strides, 3> strides{broadcast_strides(kc.desc(a).shape, shape),
                                       broadcast_strides(kc.desc(b).shape, shape),
                                       contiguous_strides(shape)};
  return [=](std::span<std::byte* const> slots) {
    const In* pa = data_of<In>(slots, a);
    const In* pb = data_of<In>(slots, b);
    Out* po = data_of<Out>(slots, out);
    for_each_offset(shape, strides,
                    [&](const std::array<int64_t, 3>& o) { po[o[2]] = fn(pa[o[0]], pb[o[1]]); });
  };
}

template <OpType Op>
Kernel arithmetic_kernel(const KernelContext& kc, const Operation& op) {
  return visit_data_type(kc.desc(op.inputs[0]).dataType, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcast_kernel<T, T>(kc, op, [](T a, T b) { return arithmetic<Op, T>(a, b); });
  });
}

template <OpType Op>
Kernel compare_kernel(const KernelContext& kc, const Operation& op) {
  return visit_data_type(kc.desc(op.inputs[0]).dataType, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcast_kernel<T, uint8_t>(kc, op, [](T a, T b) { return compare<Op, T>(a, b); });
  });
}

}  // namespace

#define CPPNN_ARITHMETIC(E, m)                                                                     \
  Kernel compile_##m(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::k##E>&) { \
    return arithmetic_kernel<OpType::k##E>(kc, op);                                                \
  }
CPPNN_ARITHMETIC(Add, add)
CPPNN_ARITHMETIC(Sub, sub)
CPPNN_ARITHMETIC(Mul, mul)
CPPNN_ARITHMETIC(Div, div)
CPPNN_ARITHMETIC(Max, max)
CPPNN_ARITHMETIC(Min, min)
CPPNN_ARITHMETIC(Pow, pow)
#undef CPPNN_ARITHMETIC

#define CPPNN_COMPARE(E, m)                                                                        \
  Kernel compile_##m(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::k##E>&) { \
    return compare_kernel<OpType::k##E>(kc, op);                                                   \
  }
CPPNN_COMPARE(Equal, equal)
CPPNN_COMPARE(NotEqual, notEqual)
CPPNN_COMPARE(Greater, greater)
CPPNN_COMPARE(GreaterOrEqual, greaterOrEqual)
CPPNN_COMPARE(Lesser, lesser)
CPPNN_COMPARE(LesserOrEqual, lesserOrEqual)
#undef CPPNN_COMPARE

#define CPPNN_LOGICAL(E, m)                                                                        \
  Kernel compile_##m(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::k##E>&) { \
    return broadcast_kernel<uint8_t, uint8_t>(                                                     \
        kc, op, [](uint8_t a, uint8_t b) { return logical<OpType::k##E>(a, b); });                 \
  }
CPPNN_LOGICAL(LogicalAnd, logicalAnd)
CPPNN_LOGICAL(LogicalOr, logicalOr)
CPPNN_LOGICAL(LogicalXor, logicalXor)
#undef CPPNN_LOGICAL

}  // namespace cppnn::ref
