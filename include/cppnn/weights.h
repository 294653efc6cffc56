// External weights (cppnn extension, webnn-graph-format.md §7): SafeTensors archives and
// manifest-addressed `.weights` blobs, memory-mapped read-only. Constants loaded from them are
// views into the mapping (weights resident once), copied only when converted (BF16 -> float32,
// one-byte-per-element 4-bit) or misaligned.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/graph_builder.h"
#include "cppnn/graph_model.h"
#include "cppnn/operand.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

namespace formats {
class WeightsProvider;
}

// An opened weight file. Copies share the mapping; constants keep it alive on their own.
class ExternalWeights {
 public:
  // Opens one file by its extension: `.safetensors`/`.safetensor` (any case) is a SafeTensors
  // archive (§7.2; `manifest` is ignored); anything else is a raw blob addressed by `manifest`
  // (§7.3), WGWT or headerless. DataError for a missing, unreadable or malformed file.
  static ExternalWeights open(const std::filesystem::path& file,
                              const std::optional<std::filesystem::path>& manifest = std::nullopt);
  // The sidecar of a graph file (§7.1): explicit paths relative to the graph's folder, else the
  // first of <stem>.safetensors, <stem>.weights, model.safetensors, model.weights (a blob's
  // manifest: <stem>.manifest.json, then manifest.json). DataError "[weights] ..." when none.
  static ExternalWeights for_graph(
      const std::filesystem::path& graph_file,
      const std::optional<std::filesystem::path>& weights = std::nullopt,
      const std::optional<std::filesystem::path>& manifest = std::nullopt);

  // The bytes of weight `ref` for a constant declared as `declared` (authoritative): exact name,
  // else the one stored name that normalizes to `ref` (`::` -> `__`, `.` -> `_`). DataError on a
  // missing or ambiguous name, a shape or dtype mismatch (BF16 may serve float32), a bad packed
  // 4-bit tensor or a bad byte range; `constant_name` appears in messages.
  ConstantData load(const std::string& ref, const MLOperandDescriptor& declared,
                    const std::string& constant_name = "") const;
  // builder.constant(...) of that weight, without copying the bytes.
  MLOperand constant(MLGraphBuilder& builder, const std::string& ref,
                     const MLOperandDescriptor& declared) const;
  // The stored tensor names, sorted.
  std::vector<std::string> names() const;
  // The opened file.
  const std::filesystem::path& path() const;

 private:
  explicit ExternalWeights(std::shared_ptr<const formats::WeightsProvider> provider)
      : provider_(std::move(provider)) {}
  std::shared_ptr<const formats::WeightsProvider> provider_;
};

// One weight to write: its name, logical descriptor and bytes (int4/uint4 packed 2 per byte).
struct NamedWeight {
  std::string name;
  MLOperandDescriptor descriptor;
  std::span<const std::byte> bytes;
};

// Writes a SafeTensors archive atomically (temporary file beside `dest`, fsync, rename; nothing
// left on failure). int4/uint4 are stored as U8 [ceil(n/2)] with the metadata marker
// "rustnn.webnn.packed4": "1". DataError for bytes that do not match their descriptor, or a name
// given twice with different declarations or bytes.
void write_safetensors(const std::filesystem::path& dest, std::span<const NamedWeight> weights);

// Writes the constants of `graph` listed in `constants` (constant operand -> weight name) as a
// SafeTensors archive, atomically. TypeError for an id that is not a constant of the graph.
void save_graph_weights(const Graph& graph,
                        std::span<const std::pair<OperandId, std::string>> constants,
                        const std::filesystem::path& dest);

}  // namespace cppnn

#pragma GCC visibility pop
