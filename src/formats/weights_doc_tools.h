// The document-level weight tools of webnn-graph (webnn-graph-format.md §8 extract-weights,
// inline-weights): moving constants between `inlineBytes` inits and a WGWT file + manifest.
#pragma once

#include <filesystem>

#include "src/core/result.h"
#include "src/formats/graph_doc.h"

namespace cppnn::formats {

// extract-weights: every `inlineBytes` const, in name order, must hold numel x element size
// bytes ("Const '<n>' has wrong byte count: expected E, got G"; int4/uint4: ceil(n/2), or n); its
// bytes go to `output_dir/tensors/<name>.bin`, to a manifest entry keyed by the const name at the
// next offset from 8 (layout "row-major"), and its init becomes `{kind: "weights", ref: <name>}`.
// Other consts are unchanged. The manifest is written to `manifest` and the packed WGWT file to
// `weights` (an 8-byte file when nothing is inline). All checks come first; files are written
// atomically. Returns the number of extracted consts.
Result<size_t> extract_weights(GraphDoc& doc, const std::filesystem::path& output_dir,
                               const std::filesystem::path& weights,
                               const std::filesystem::path& manifest);

// inline-weights: the strict manifest (format and version not checked) and a WGWT file (header
// checked: "Invalid magic bytes: ...", "Unsupported weights file version: N"); every `weights`
// const, in name order, looks its ref up exactly ("Weight reference '<r>' not found in
// manifest"), its range [off, off+len) must lie after the header and inside the file ("Weight
// reference '<r>' extends beyond weights file"), and it becomes `inlineBytes` (no dtype or shape
// check, as the reference). Returns the number of inlined consts.
Result<size_t> inline_weights(GraphDoc& doc, const std::filesystem::path& weights,
                              const std::filesystem::path& manifest);

}  // namespace cppnn::formats
