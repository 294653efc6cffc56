// Runtime dispatch on CPU features for the cpu backend's kernels: CPPNN_CPU_CLONES compiles a
// plain loop function once per instruction set (AVX-512, AVX2, the baseline; feature names, not
// "arch=" CPU models, which dispatch on the CPU's identity) and lets the
// loader pick the best one the CPU has (GCC/Clang function multi-versioning); the hand-written
// AVX-512 and AVX2 kernels check has_avx512() / has_avx2_fma() themselves.
#pragma once

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

}  // namespace cppnn::cpu
