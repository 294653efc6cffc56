// CHECK(condition) for the libFuzzer targets: aborts (a finding for libFuzzer) with the failed
// invariant on stderr.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK(condition)                                                                     \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)
