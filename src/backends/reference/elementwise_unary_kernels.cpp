// Reference kernels for the element-wise unary ops and cast (webnn-spec.md §2 rows 4, 23, 27-43;
// cast table §3.6). Floats compute in double and round once to the output type; abs, neg, sign,
// identity and same-type cast are exact and keep float16 bit patterns (NaN payloads, -0 and
// subnormals). Integer abs and neg wrap like two's complement hardware.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "cppnn/descriptor.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/backends/reference/unary_map.h"

namespace cppnn::ref {
namespace {

// A float32/float16 map with a fixed function of double (no options).
template <class Fn>
Kernel float_map(const KernelContext& kc, const Operation& op, Fn fn) {
  return float_map_kernel(kc, op, [fn](auto) { return fn; });
}

// A map over every element type with fn<T>(T) -> T.
template <class Fn>
Kernel same_type_map(const KernelContext& kc, const Operation& op, Fn fn) {
  return visit_data_type(kc.desc(op.inputs[0]).dataType, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_kernel<T, T>(kc, op, [fn](T x) { return fn(x); });
  });
}

// A float32/float16 predicate producing uint8 0/1.
template <class Pred>
Kernel float_predicate(const KernelContext& kc, const Operation& op, Pred pred) {
  const MLOperandDataType type = kc.desc(op.inputs[0]).dataType;
  if (type == MLOperandDataType::kFloat16)
    return map_kernel<Half, uint8_t>(kc, op,
                                     [pred](Half x) -> uint8_t { return pred(to_double(x)); });
  return map_kernel<float, uint8_t>(kc, op,
                                    [pred](float x) -> uint8_t { return pred(to_double(x)); });
}

// A bytewise copy of input 0 into output 0 (identity, same-type cast): bit exact.
Kernel copy_kernel(const KernelContext& kc, const Operation& op) {
  const OperandId in = op.inputs[0], out = op.outputs[0];
  const size_t bytes = byte_length(kc.desc(out));
  return [=](std::span<std::byte* const> slots) {
    if (bytes != 0 && slots[in.value] != slots[out.value])
      std::memmove(slots[out.value], slots[in.value], bytes);
  };
}

// Round half to even, independent of the floating-point rounding mode; keeps the sign of zero
// (roundEven(-0.4) = -0).
double round_half_even(double x) {
  double r = std::floor(x);
  const double frac = x - r;  // exact; NaN for infinities, which keeps r
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return std::copysign(r, x);
}

// One element of cast (§3.6): float -> float rounds to nearest even (float16 -> float32 is exact,
// NaN payloads are kept); float -> integer truncates toward zero, saturates out-of-range values and
// maps NaN to 0; integer -> float rounds once to nearest even; integer -> integer keeps the low N
// bits (two's complement wrap).
template <class In, class Out>
Out convert(In x) {
  if constexpr (kIsFloat<In> && kIsFloat<Out>) {
    if constexpr (std::is_same_v<In, Out>) {
      return x;
    } else if constexpr (std::is_same_v<Out, float>) {
      return static_cast<float>(x);
    } else {
      return Half(x);
    }
  } else if constexpr (kIsFloat<In>) {
    return from_double<Out>(to_double(x));
  } else if constexpr (std::is_same_v<Out, float>) {
    return static_cast<float>(x);  // one rounding, also for 64-bit integers
  } else if constexpr (std::is_same_v<Out, Half>) {
    return Half(static_cast<double>(x));  // exact below 2^53; anything >= 65520 is Inf anyway
  } else {
    return static_cast<Out>(x);  // modular conversion (C++20)
  }
}

}  // namespace

// logicalNot (row 23): uint8 in and out; zero -> 1, nonzero -> 0.
Kernel compile_logicalNot(const KernelContext& kc, const Operation& op,
                          const AttrsOf<OpType::kLogicalNot>&) {
  return map_kernel<uint8_t, uint8_t>(kc, op, [](uint8_t x) -> uint8_t { return x == 0; });
}

// isNaN (row 27): uint8 1 where the float32/float16 element is NaN.
Kernel compile_isNaN(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kIsNaN>&) {
  return float_predicate(kc, op, [](double x) { return std::isnan(x); });
}

// isInfinite (row 28): uint8 1 where the element is +Inf or -Inf.
Kernel compile_isInfinite(const KernelContext& kc, const Operation& op,
                          const AttrsOf<OpType::kIsInfinite>&) {
  return float_predicate(kc, op, [](double x) { return std::isinf(x); });
}

// abs (row 29): floats clear the sign bit (exact, NaN kept); integers wrap (abs(INT_MIN) =
// INT_MIN).
Kernel compile_abs(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kAbs>&) {
  return same_type_map(kc, op, []<class T>(T x) -> T {
    if constexpr (std::is_same_v<T, Half>) {
      return Half::from_bits(static_cast<uint16_t>(x.bits & 0x7fffu));
    } else if constexpr (std::is_same_v<T, float>) {
      return std::fabs(x);
    } else if constexpr (std::is_signed_v<T>) {
      using U = std::make_unsigned_t<T>;
      return x < 0 ? static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x))) : x;
    } else {
      return x;
    }
  });
}

// ceil (row 30): smallest integer >= x (exact; ceil(-0.5) = -0).
Kernel compile_ceil(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kCeil>&) {
  return float_map(kc, op, [](double x) { return std::ceil(x); });
}

// cos (row 31), in double, rounded once.
Kernel compile_cos(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kCos>&) {
  return float_map(kc, op, [](double x) { return std::cos(x); });
}

// erf (row 32), in double, rounded once.
Kernel compile_erf(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kErf>&) {
  return float_map(kc, op, [](double x) { return std::erf(x); });
}

// exp (row 33), in double, rounded once (overflow gives +Inf).
Kernel compile_exp(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kExp>&) {
  return float_map(kc, op, [](double x) { return std::exp(x); });
}

// floor (row 34): largest integer <= x (exact).
Kernel compile_floor(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kFloor>&) {
  return float_map(kc, op, [](double x) { return std::floor(x); });
}

// identity (row 35): a bit-exact copy for every data type.
Kernel compile_identity(const KernelContext& kc, const Operation& op,
                        const AttrsOf<OpType::kIdentity>&) {
  return copy_kernel(kc, op);
}

// log (row 36): natural logarithm in double (log(0) = -Inf, log(x<0) = NaN), rounded once.
Kernel compile_log(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kLog>&) {
  return float_map(kc, op, [](double x) { return std::log(x); });
}

// neg (row 37): floats flip the sign bit (exact, neg(0) = -0); integers wrap (neg(INT_MIN) =
// INT_MIN).
Kernel compile_neg(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kNeg>&) {
  return same_type_map(kc, op, []<class T>(T x) -> T {
    if constexpr (std::is_same_v<T, Half>) {
      return Half::from_bits(static_cast<uint16_t>(x.bits ^ 0x8000u));
    } else if constexpr (std::is_same_v<T, float>) {
      return -x;
    } else {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x)));
    }
  });
}

// reciprocal (row 38): 1/x in double, rounded once (1/±0 = ±Inf).
Kernel compile_reciprocal(const KernelContext& kc, const Operation& op,
                          const AttrsOf<OpType::kReciprocal>&) {
  return float_map(kc, op, [](double x) { return 1.0 / x; });
}

// roundEven (row 39): nearest integer, halves to the even neighbour (exact).
Kernel compile_roundEven(const KernelContext& kc, const Operation& op,
                         const AttrsOf<OpType::kRoundEven>&) {
  return float_map(kc, op, [](double x) { return round_half_even(x); });
}

// sin (row 40), in double, rounded once.
Kernel compile_sin(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kSin>&) {
  return float_map(kc, op, [](double x) { return std::sin(x); });
}

// sign (row 41): -1, 0 or 1; floats keep ±0 and NaN (the input bits); integers give -1/0/1.
Kernel compile_sign(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kSign>&) {
  return same_type_map(kc, op, []<class T>(T x) -> T {
    if constexpr (kIsFloat<T>) {
      const double v = to_double(x);
      if (v > 0) return from_double<T>(1.0);
      if (v < 0) return from_double<T>(-1.0);
      return x;  // ±0 and NaN
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(x > 0 ? 1 : (x < 0 ? -1 : 0));
    } else {
      return static_cast<T>(x > 0 ? 1 : 0);
    }
  });
}

// sqrt (row 42), correctly rounded in double then rounded once (sqrt(x<0) = NaN, sqrt(-0) = -0).
Kernel compile_sqrt(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kSqrt>&) {
  return float_map(kc, op, [](double x) { return std::sqrt(x); });
}

// tan (row 43), in double, rounded once.
Kernel compile_tan(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kTan>&) {
  return float_map(kc, op, [](double x) { return std::tan(x); });
}

// cast (row 4, table §3.6) between any two of the 8 data types; same-type casts are bit copies.
Kernel compile_cast(const KernelContext& kc, const Operation& op, const AttrsOf<OpType::kCast>&) {
  const MLOperandDataType from = kc.desc(op.inputs[0]).dataType;
  const MLOperandDataType to = kc.desc(op.outputs[0]).dataType;
  if (from == to) return copy_kernel(kc, op);
  return visit_data_type(from, [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    return visit_data_type(to, [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      return map_kernel<In, Out>(kc, op, [](In x) { return convert<In, Out>(x); });
    });
  });
}

}  // namespace cppnn::ref
