// CPU feature detection for the cpu backend's kernels (cpu_features.h).
#include "src/backends/cpu/cpu_features.h"

namespace cppnn::cpu {

bool has_avx512() {
#if CPPNN_CPU_X86
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  return yes;
#else
  return false;
#endif
}

bool has_avx2_fma() {
#if CPPNN_CPU_X86
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
#else
  return false;
#endif
}

}  // namespace cppnn::cpu
