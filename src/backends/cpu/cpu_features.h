// Runtime dispatch on CPU features for the cpu backend's kernels: CPPNN_CPU_CLONES compiles a
// plain loop function once per instruction set (AVX-512, AVX2, the baseline; feature names, not
// "arch=" CPU models, which dispatch on the CPU's identity) and lets the
// loader pick the best one the CPU has (GCC/Clang function multi-versioning); the hand-written
// AVX-512 and AVX2 kernels check has_avx512() / has_avx2_fma() themselves.
#pragma once

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPPNN_CPU_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CPPNN_CPU_SANITIZED 1
#endif

// Function clones (ifunc resolvers) stay out of sanitizer builds, which run the baseline loops.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(CPPNN_CPU_SANITIZED)
#define CPPNN_CPU_X86 1
#define CPPNN_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define CPPNN_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,fma")))
#define CPPNN_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define CPPNN_CPU_X86 0
#define CPPNN_CPU_CLONES
#define CPPNN_TARGET_AVX512
#define CPPNN_TARGET_AVX2
#endif

namespace cppnn::cpu {

// Whether this CPU runs AVX-512 F/VL/DQ/BW (and the kernels were built with it).
bool has_avx512();
// Whether this CPU runs AVX2 with FMA (and the kernels were built with it).
bool has_avx2_fma();

// While it lives, this thread's float32 products read a subnormal operand as zero (x86's
// MXCSR.DAZ; the previous mode comes back at its end). For the multiply-accumulate kernels
// (GEMM tiles, depthwise and direct convolutions): a subnormal operand changes a sum by less than
// 2^-126 times its weight, far inside the tolerance of a float32 accumulation, while an FMA with
// one takes a microcode assist of about a hundred cycles (SiLU's outputs are subnormal below
// -87.3: a YOLO convolution reading them ran 60 times slower). Exact kernels never run under it.
class SubnormalsAsZero {
 public:
#if defined(__x86_64__)
  SubnormalsAsZero() : saved_(_mm_getcsr()) {
    if (!(saved_ & kDaz)) _mm_setcsr(saved_ | kDaz);
  }
  ~SubnormalsAsZero() {
    if (!(saved_ & kDaz)) _mm_setcsr(saved_);
  }

 private:
  static constexpr unsigned kDaz = 0x0040;  // MXCSR bit 6
  unsigned saved_;
#endif
 public:
  SubnormalsAsZero(const SubnormalsAsZero&) = delete;
  SubnormalsAsZero& operator=(const SubnormalsAsZero&) = delete;
};

}  // namespace cppnn::cpu
