// Portable SIMD vectors for the cpu backend's plain loops (GCC/Clang vector extensions): a VF is 16
// float32 lanes (GCC; 4 with Clang, see kVectorBytes), compiled into one AVX-512 register, two
// AVX2 ones or four SSE ones by each CPPNN_CPU_CLONES clone, so that a loop written over VF is
// vectorised in every clone whatever the auto-vectoriser decides. The math of vector_math.h is
// written once for float and for VF through the helpers below (sel, to_int, as_float, splat).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

// Every function written over VF (here, vector_math.h, and the lambdas of the loops using them)
// must be inlined into the clone that calls it (CPPNN_SIMD_INLINE): an out-of-line copy would be
// compiled once for the baseline instruction set, and a 64-byte vector passed to it from an
// AVX-512 clone does not even follow the same calling convention (GCC's -Wpsabi note, turned off
// for the cpu backend's files in CMakeLists.txt).
#define CPPNN_SIMD_INLINE inline __attribute__((always_inline))
#define CPPNN_SIMD_LAMBDA __attribute__((always_inline))
namespace cppnn::cpu::simd {

// Bytes of a vector: 64 (an AVX-512 register) with GCC; 16 (an SSE register, the baseline's own)
// with Clang, which checks every call in an instruction-set clone against the baseline calling
// convention and refuses wider vectors there even when the call is inlined.
#if defined(__clang__)
inline constexpr size_t kVectorBytes = 16;
#else
inline constexpr size_t kVectorBytes = 64;
#endif
inline constexpr size_t kWidth = kVectorBytes / sizeof(float);     // lanes of a VF
inline constexpr size_t kDoubles = kVectorBytes / sizeof(double);  // lanes of a VD
using VF = float __attribute__((vector_size(kVectorBytes)));
using VI = int32_t __attribute__((vector_size(kVectorBytes)));
using VFH = float __attribute__((vector_size(kVectorBytes / 2)));  // kDoubles floats
using VD = double __attribute__((vector_size(kVectorBytes)));
using VL = int64_t __attribute__((vector_size(kVectorBytes)));

CPPNN_SIMD_INLINE VF load(const float* p) {
  VF v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
CPPNN_SIMD_INLINE void store(float* p, VF v) {
  std::memcpy(p, &v, sizeof v);
}
CPPNN_SIMD_INLINE VD load(const double* p) {
  VD v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// kDoubles floats widened to double: one conversion from memory (GCC 12 splits a
// __builtin_convertvector of 8 floats into halves and shuffles; it compiles the element list
// into a single vcvtps2pd of a zmm register).
template <size_t... I>
CPPNN_SIMD_INLINE VD load_double_lanes(const float* p, std::index_sequence<I...>) {
  return VD{double(p[I])...};
}
CPPNN_SIMD_INLINE VD load_double(const float* p) {
  return load_double_lanes(p, std::make_index_sequence<kDoubles>{});
}

// The scalar or vector of type V with every lane c.
template <class V>
CPPNN_SIMD_INLINE V splat(double c) {
  if constexpr (std::is_arithmetic_v<V>)
    return static_cast<V>(c);
  else
    return V{} + static_cast<decltype(V{}[0] + 0)>(c);
}

// mask ? a : b lane by lane (the mask of a comparison: bool for float, all-ones lanes for VF).
CPPNN_SIMD_INLINE float sel(bool m, float a, float b) {
  return m ? a : b;
}
CPPNN_SIMD_INLINE VF sel(VI m, VF a, VF b) {
  return std::bit_cast<VF>((m & std::bit_cast<VI>(a)) | (~m & std::bit_cast<VI>(b)));
}
CPPNN_SIMD_INLINE double sel(bool m, double a, double b) {
  return m ? a : b;
}
CPPNN_SIMD_INLINE VD sel(VL m, VD a, VD b) {
  return std::bit_cast<VD>((m & std::bit_cast<VL>(a)) | (~m & std::bit_cast<VL>(b)));
}

// Truncation toward zero to int32 (in range), and an int32's bits as a float.
CPPNN_SIMD_INLINE int32_t to_int(float x) {
  return static_cast<int32_t>(x);
}
CPPNN_SIMD_INLINE VI to_int(VF x) {
  return __builtin_convertvector(x, VI);
}
CPPNN_SIMD_INLINE float as_float(int32_t i) {
  return std::bit_cast<float>(i);
}
CPPNN_SIMD_INLINE VF as_float(VI i) {
  return std::bit_cast<VF>(i);
}
// A float's bits as an int32, an int32 as a float (exact for the small values used), and
// mask ? k : 0 for an int32 mask.
CPPNN_SIMD_INLINE int32_t to_bits(float x) {
  return std::bit_cast<int32_t>(x);
}
CPPNN_SIMD_INLINE VI to_bits(VF x) {
  return std::bit_cast<VI>(x);
}
CPPNN_SIMD_INLINE float to_float(int32_t i) {
  return static_cast<float>(i);
}
CPPNN_SIMD_INLINE VF to_float(VI i) {
  return __builtin_convertvector(i, VF);
}
CPPNN_SIMD_INLINE int32_t sel_int(bool m, int32_t k) {
  return m ? k : 0;
}
CPPNN_SIMD_INLINE VI sel_int(VI m, int32_t k) {
  return m & k;
}
// The same for double and int64.
CPPNN_SIMD_INLINE int64_t to_int(double x) {
  return static_cast<int64_t>(x);
}
CPPNN_SIMD_INLINE VL to_int(VD x) {
  return __builtin_convertvector(x, VL);
}
CPPNN_SIMD_INLINE double as_double(int64_t i) {
  return std::bit_cast<double>(i);
}
CPPNN_SIMD_INLINE VD as_double(VL i) {
  return std::bit_cast<VD>(i);
}
// A double's bits as an int64.
CPPNN_SIMD_INLINE int64_t to_bits(double x) {
  return std::bit_cast<int64_t>(x);
}
CPPNN_SIMD_INLINE VL to_bits(VD x) {
  return std::bit_cast<VL>(x);
}
CPPNN_SIMD_INLINE void store(double* p, VD v) {
  std::memcpy(p, &v, sizeof v);
}

// Whether any lane of a comparison's mask is set.
CPPNN_SIMD_INLINE bool any(bool m) {
  return m;
}
CPPNN_SIMD_INLINE bool any(VI m) {  // through memory: GCC tests a vector's lanes one by one
  uint64_t words[sizeof m / 8], bits = 0;
  std::memcpy(words, &m, sizeof m);
  for (uint64_t w : words) bits |= w;
  return bits != 0;
}

// The lanes of v summed in order.
CPPNN_SIMD_INLINE double sum_lanes(VD v) {
  double s = 0;
  for (size_t i = 0; i < kDoubles; ++i) s += v[i];
  return s;
}

}  // namespace cppnn::cpu::simd
