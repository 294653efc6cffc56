// `validate --weights-manifest` (webnn-graph-format.md §6.2, §10 rows 25-27): every external
// weight declaration checked against a strict v1 manifest.
#pragma once

#include <span>
#include <string>

#include "cppnn/descriptor.h"
#include "src/core/result.h"
#include "src/formats/manifest.h"
#include "src/formats/weights_provider.h"

namespace cppnn::formats {

// §6.2, for each declaration in const-name order: the exact entry `tensors[ref]` must exist
// ("missing weights manifest entry for const ref '<ref>'"), its dataType and shape must equal the
// declaration ("weights type/shape mismatch for '<ref>'"), and byteLength must equal numel x
// element size ("weights byteLength mismatch for '<ref>': expected <e> got <g>"). For int4/uint4
// both the packed size ceil(n/2) (cppnn, SafeTensors) and one byte per element (the reference's
// raw tools) are accepted; the message gives the packed size. Offsets and contents are not
// checked. The first failure wins (DataError).
Status check_manifest_declarations(const WeightsManifest& manifest,
                                   std::span<const DeclaredWeight> declarations);

// The byte length a raw-weight tool accepts for `d` (§8): numel x size; for 4-bit types, ceil(n/2)
// or n. Returns the preferred (packed) length, or nullopt on overflow; `alternative` receives the
// other accepted length (equal to the result when there is only one).
std::optional<uint64_t> raw_byte_length(const MLOperandDescriptor& d, uint64_t* alternative);

}  // namespace cppnn::formats
