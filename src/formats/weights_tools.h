// The raw-weight CLI operations of webnn-graph (webnn-graph-format.md §8: pack-weights,
// unpack-weights, create-manifest) as library functions, so that tools/cppnn and the tests share
// them. Each checks everything before it writes, and writes atomically: a failure leaves no
// partial output. Tensor names must be usable as file names (`D/<name>.bin`): a name with `/`,
// `\`, NUL, or `.`/`..` is rejected instead of escaping the folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace cppnn::formats {

// pack-weights: a WGWT file at `output` from `input_dir/<name>.bin`, per the strict v1 manifest
// (format "wg-weights-manifest" and version 1 checked). Entries by ascending offset (ties by
// name); offsets must run contiguously from 8 ("Tensor '<n>' has unexpected byte_offset: expected
// E, got G"); byteLength must equal numel x size ("Tensor '<n>' has incorrect byte_length:
// expected E, got G"; 4-bit: ceil(n/2), or n as the reference's tools count); each file must open
// ("Failed to open tensor file: \"<path>\"") and have that size ("Tensor file '<n>' has wrong
// size: expected E bytes, got G").
Status pack_weights(const std::filesystem::path& manifest, const std::filesystem::path& input_dir,
                    const std::filesystem::path& output);

// unpack-weights: `output_dir/<name>.bin` (folders created) for each manifest entry of a WGWT
// file, in name order. The header must pass ("Invalid magic bytes: ...", "Unsupported weights file
// version: N"); an offset below 8 is rejected; the body range [off-8, off-8+len) must fit
// ("Tensor '<n>' extends beyond weights file: offset=O, length=L, file_size=S"). Returns the
// names written.
Result<std::vector<std::string>> unpack_weights(const std::filesystem::path& weights,
                                                const std::filesystem::path& manifest,
                                                const std::filesystem::path& output_dir);

// create-manifest: a v1 manifest at `output` from `input_dir/*.bin` and their `.meta.json`
// (each a full strict tensor entry: "Failed to read metadata file: <path>: ..."). The file size
// must equal numel x size ("Tensor '<n>' file size mismatch: expected E, got G"); offsets are
// assigned contiguously from 8 in name order; layout from the meta file (default "row-major");
// `endianness` copied as given. Returns the number of tensors.
Result<size_t> create_manifest(const std::filesystem::path& input_dir,
                               const std::filesystem::path& output,
                               const std::string& endianness = "little");

}  // namespace cppnn::formats
