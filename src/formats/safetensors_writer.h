// The SafeTensors writer (webnn-graph-format.md §7.2 "Writer"): one tensor per distinct weight
// name under the reader's dtype, shape, packed-length and marker rules, written atomically.
#pragma once

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cppnn/descriptor.h"
#include "src/core/atomic_file.h"
#include "src/core/result.h"
#include "src/formats/safetensors_dtype.h"

namespace cppnn::formats {

// One stored tensor: its name, storage dtype, stored shape and bytes.
struct SafeTensorsTensor {
  std::string name;
  StDtype dtype = StDtype::kU8;
  std::vector<uint64_t> shape;
  std::span<const std::byte> bytes;
};

// Serializes `tensors` (names unique, bytes = numel x dtype size) with `metadata` to `dest`
// atomically. Tensors are laid out by descending element size, then name, after a header padded
// with spaces to a multiple of 8 bytes, so that every tensor is aligned for its element type in a
// page-aligned mapping. Deterministic: the same input gives the same bytes.
Status write_safetensors_file(const std::filesystem::path& dest,
                              std::vector<SafeTensorsTensor> tensors,
                              const std::map<std::string, std::string>& metadata);

// One external weight of a graph: its name (the @weights ref), its logical declaration and its
// bytes in cppnn's layout (4-bit packed).
struct WeightToWrite {
  std::string name;
  MLOperandDescriptor descriptor;
  std::span<const std::byte> bytes;
};

// Writes graph weights as SafeTensors at `dest` atomically (the §7.2 writer): float/int types
// under their mapped dtype; int4/uint4 as U8 [ceil(n/2)] with the packed4 marker (the odd
// padding nibble written as zero). Rejects (DataError): bytes whose length does not match the
// declaration; two weights sharing a name with different declarations or bytes; size overflow.
Status write_weights_safetensors(const std::filesystem::path& dest,
                                 std::span<const WeightToWrite> weights);

// The same two writers into an open atomic file, left uncommitted (for files that must land
// together, commit_together()).
Status write_safetensors_into(AtomicFile& file, std::vector<SafeTensorsTensor> tensors,
                              const std::map<std::string, std::string>& metadata);
Status write_weights_into(AtomicFile& file, std::span<const WeightToWrite> weights);

}  // namespace cppnn::formats
