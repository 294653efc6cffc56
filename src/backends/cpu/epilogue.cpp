// The cpu kernels' fused activations (epilogue.h).
#include "src/backends/cpu/epilogue.h"

#include <algorithm>
#include <cstring>

#include "cppnn/number.h"
#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/simd.h"
#include "src/backends/cpu/vector_math.h"
#include "src/ops/activations_params.h"

namespace cppnn::cpu {
namespace {

// A double option cast to float32 (§3.6).
float as_float(double v) {
  return static_cast<float>(MLNumber(v).cast_to_double(MLOperandDataType::kFloat32));
}

// y[i] = f(x[i]) for i in [0, n): 16 lanes at a time (simd::VF), then the rest one by one.
template <class F>
CPPNN_SIMD_INLINE void map_rows(const float* x, float* y, size_t n, F f) {
  size_t i = 0;
  for (; i + simd::kWidth <= n; i += simd::kWidth) simd::store(y + i, f(simd::load(x + i)));
  for (; i < n; ++i) y[i] = f(x[i]);
}

// y[i] = x[i]·sigmoid(x[i]) for i in [0, n), rounded as mul(x, sigmoid(x)) is (bit-identical to
// the two kernels; x and y may be the same). Where x < -87.3 sigmoid(x) is subnormal or 0 and a
// float32 product with it takes a microcode assist on x86 (YOLO's activations reach there): those
// lanes are computed by vmath::product_with_subnormal instead, found by one test per four vectors.
// A row without such x (nearly all) takes sigmoid's fast form (vmath::sigmoid_above_minus_87).
CPPNN_SIMD_INLINE void silu_rows(const float* x, float* y, size_t n) {
  if (!vmath::any_below_minus_87(x, n)) {  // no subnormal sigmoid: the fast form, one product
    map_rows(x, y, n,
             [](auto v) CPPNN_SIMD_LAMBDA { return v * vmath::sigmoid_above_minus_87(v); });
    return;
  }
  constexpr size_t W = simd::kWidth;
  constexpr float kMinNormal = 1.17549435e-38f;
  size_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    simd::VF v[4], s[4], r[4];
    simd::VI tiny[4], seen = {};
    for (size_t j = 0; j < 4; ++j) {
      v[j] = simd::load(x + i + W * j);
      s[j] = vmath::sigmoid(v[j]);
      tiny[j] = (simd::to_bits(s[j]) - 0x00800000) >> 31;  // s < 2^-126 (s >= 0): a sign
                                                           // shift, as GCC combines masks by lane
      seen |= tiny[j];
      r[j] = v[j] * simd::sel(tiny[j], simd::splat<simd::VF>(1.0), s[j]);
    }
    if (simd::any(seen)) [[unlikely]]
      for (size_t j = 0; j < 4; ++j)
        r[j] = simd::sel(tiny[j], vmath::product_with_subnormal(v[j], s[j]), r[j]);
    for (size_t j = 0; j < 4; ++j) simd::store(y + i + W * j, r[j]);
  }
  for (; i < n; ++i) {
    const float s = vmath::sigmoid(x[i]);
    y[i] = s < kMinNormal ? vmath::product_with_subnormal(x[i], s) : x[i] * s;
  }
}

// Elements per block of the two-pass ops (their scratch fits in L1).
constexpr size_t kBlock = 512;

// hardSwish (webnn-spec.md §2 row 56) of a float32 value widened to double, as the reference
// computes it: 0 for x <= -3, x for x >= 3, else RN(RN(x·RN(x + 3)) / 6), rounded to float32 by
// the caller. The quotient p/6 without a division (a vector double division costs about 2 cycles
// per element): q0 = p·RN(1/6) is within an ulp of p/6, r = p − 6·q0 is exact as two
// subtractions (Sterbenz: p − 4·q0 lies in [q0, 4·q0]), and q0 + r·RN(1/6) differs from p/6 by
// far less than p/6's distance to a rounding midpoint (p/6 is exact or at least a sixth of an ulp
// away from one: p/3 has a periodic binary expansion), so it rounds to RN(p/6); r = 0 means q0 is
// p/6 (and keeps the sign of p = −0). For x a double or a simd::VD.
template <class D>
CPPNN_SIMD_INLINE D hard_swish(D x) {
  constexpr double kSixth = 1.0 / 6.0;
  const D p = x * (x + 3.0);
  const D q0 = p * kSixth;
  const D r = (p - 4.0 * q0) - 2.0 * q0;
  const D q = simd::sel(r == 0.0, q0, q0 + r * kSixth);  // q0 exact (and −0 kept for x = −0)
  return simd::sel(x <= -3.0, simd::splat<D>(0.0), simd::sel(x >= 3.0, x, q));
}

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
    case Epilogue::Kind::kHardSwish: {  // in double as the reference, rounded once
      size_t i = 0;
      for (; i + simd::kDoubles <= n; i += simd::kDoubles) {
        const simd::VFH f =
            __builtin_convertvector(hard_swish(simd::load_double(x + i)), simd::VFH);
        std::memcpy(y + i, &f, sizeof f);
      }
      if (i < n) {  // the rest as one vector too (a scalar loop mispredicts its selects)
        float rest[simd::kDoubles] = {};
        std::memcpy(rest, x + i, (n - i) * sizeof(float));
        const simd::VFH f = __builtin_convertvector(hard_swish(simd::load_double(rest)), simd::VFH);
        std::memcpy(y + i, &f, (n - i) * sizeof(float));
      }
      break;
    }
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
    case Epilogue::Kind::kSigmoid:  // the cpu backend's sigmoid (elementwise_math.cpp)
      if (!vmath::any_below_minus_87(x, n))
        map_rows(x, y, n,
                 [](auto v) CPPNN_SIMD_LAMBDA { return vmath::sigmoid_above_minus_87(v); });
      else
        map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::sigmoid(v); });
      break;
    case Epilogue::Kind::kSilu:  // x·sigmoid(x), both rounded as sigmoid's and mul's kernels do
      silu_rows(x, y, n);
      break;
    case Epilogue::Kind::kGelu:  // the cpu backend's gelu (elementwise_math.cpp)
      map_rows(x, y, n, [](auto v) CPPNN_SIMD_LAMBDA { return vmath::gelu(v); });
      break;
  }
}

// hardSwish as a fused activation, in float32: x·min(max(x + 3, 0), 6)·RN(1/6), within 2 ULP of
// the exact value; x itself from 3 up and 0 up to -3 (-Inf included), as the exact form gives,
// NaN kept. The product before it is itself only within its tolerance of the exact sum, and a
// vector of 16 floats here costs about a quarter of the exact double form (a PP-LCNet spends a
// sixth of its time on it); the hardSwish op stays exact (apply_step).
CPPNN_CPU_CLONES void hard_swish_float(float* p, size_t n) {
  map_rows(p, p, n, [](auto x) CPPNN_SIMD_LAMBDA {
    using V = decltype(x);
    V t = x + 3.0f;
    t = simd::sel(t < 0.0f, simd::splat<V>(0.0f), t);
    t = simd::sel(t > 6.0f, simd::splat<V>(6.0f), t);
    const V y = x * t * 0.166666672f;
    return simd::sel(x >= 3.0f, x, simd::sel(x <= -3.0f, simd::splat<V>(0.0f), y));
  });
}

}  // namespace

std::optional<Epilogue> Epilogue::from(const std::vector<FusedActivation>& activations) {
  Epilogue e;
  if (activations.size() > e.steps.size()) return std::nullopt;
  for (const FusedActivation& act : activations) {
    Step s;
    if (act.times_input) {  // x·sigmoid(x) only
      if (act.type != OpType::kSigmoid) return std::nullopt;
      e.steps[e.count++] = {Kind::kSilu, 0, 0};
      continue;
    }
    switch (act.type) {
      case OpType::kRelu:
        s.kind = Kind::kRelu;
        break;
      case OpType::kClamp: {  // absent or NaN bounds are unbounded (erratum §6.1)
        const ClampBounds c = clamp_bounds(attrs_of<OpType::kClamp>(act.attrs).options);
        s = {Kind::kClamp, as_float(c.min.cast_to_double(MLOperandDataType::kFloat32)),
             as_float(c.max.cast_to_double(MLOperandDataType::kFloat32))};
        break;
      }
      case OpType::kLeakyRelu:
        s = {Kind::kLeakyRelu, as_float(attrs_of<OpType::kLeakyRelu>(act.attrs).options.alpha), 0};
        break;
      case OpType::kHardSwish:
        s.kind = Kind::kHardSwish;
        break;
      case OpType::kHardSigmoid: {
        const auto& o = attrs_of<OpType::kHardSigmoid>(act.attrs).options;
        s = {Kind::kHardSigmoid, as_float(o.alpha), as_float(o.beta)};
        break;
      }
      case OpType::kLinear: {
        const auto& o = attrs_of<OpType::kLinear>(act.attrs).options;
        s = {Kind::kLinear, as_float(o.alpha), as_float(o.beta)};
        break;
      }
      case OpType::kSigmoid:
        s.kind = Kind::kSigmoid;
        break;
      case OpType::kGelu:
        s.kind = Kind::kGelu;
        break;
      default:
        return std::nullopt;
    }
    e.steps[e.count++] = s;
  }
  return e;
}

void Epilogue::apply_step(const Step& s, const float* x, float* y, size_t n) {
  apply_exact(s, x, y, n);
}

void Epilogue::apply(float* p, size_t n) const {
  for (uint8_t i = 0; i < count; ++i) {
    if (steps[i].kind == Kind::kHardSwish)
      hard_swish_float(p, n);
    else
      apply_exact(steps[i], p, p, n);
  }
}

}  // namespace cppnn::cpu
