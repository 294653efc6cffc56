// How the gather and scatter ops resolve an index against a dimension (webnn-spec.md §2 rows
// 48-50 and 83-84, erratum §6: out-of-range indices are clamped), shared by the reference kernels
// and the cpu backend's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cppnn::ref {

// An index value resolved against a dimension of size d: clamped into −d..d−1, then wrapped.
template <class I>
int64_t resolve_index(I value, int64_t d) {
  int64_t v = 0;
  if constexpr (std::is_unsigned_v<I>) {
    v = static_cast<int64_t>(std::min<uint64_t>(value, static_cast<uint64_t>(d - 1)));
  } else {
    v = std::clamp<int64_t>(value, -d, d - 1);
  }
  return v < 0 ? v + d : v;
}

}  // namespace cppnn::ref
