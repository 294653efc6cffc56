// Size bounds of the importer's decompositions (GridSample, RoiAlign, Det, accumulating scatters):
// checked 64-bit products of tensor sizes, with a NotSupportedError naming the node past a limit.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "src/import/onnx/node_context.h"

namespace cppnn::onnx_import {

// Elements a decomposition may materialize in one intermediate tensor (2^27, 512 MiB of float32).
inline constexpr uint64_t kMaxDecompositionElements = uint64_t{1} << 27;

// The product of `factors`, or NotSupportedError "<what> needs more than <limit> elements" as soon
// as it would exceed `limit` (no overflow: each step is checked before it multiplies).
inline uint64_t bounded_product(const NodeContext& c, std::initializer_list<uint64_t> factors,
                                const std::string& what,
                                uint64_t limit = kMaxDecompositionElements) {
  uint64_t p = 1;
  for (const uint64_t f : factors) {
    if (f != 0 && p > limit / f)
      c.unsupported(what + " needs more than " + std::to_string(limit) +
                    " elements in one intermediate tensor");
    p *= f;
  }
  return p;
}

}  // namespace cppnn::onnx_import
