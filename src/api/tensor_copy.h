// Copying a box of elements from one MLTensor into another of the same context, on the
// context's timeline, without a host round trip (cppnn internal: the language-model runtime
// moves a step's new keys and values into its cache tensors this way, llm/generator.h).
#pragma once

#include <cstdint>
#include <span>

#include "cppnn/context.h"
#include "cppnn/tensor.h"

namespace cppnn::detail {

// Copies the elements [source_starts, source_starts + sizes) of `source` to
// [destination_starts, destination_starts + sizes) of `destination` (row-major boxes of equal
// rank). TypeError for tensors of another context, destroyed ones, different data types or
// ranks, 4-bit data, or a box outside either tensor; InvalidStateError when the context is lost.
void copy_tensor_region(const MLContext& context, const MLTensor& source,
                        std::span<const uint32_t> source_starts, const MLTensor& destination,
                        std::span<const uint32_t> destination_starts,
                        std::span<const uint32_t> sizes);

}  // namespace cppnn::detail
