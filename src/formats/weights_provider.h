// The interface of an opened external-weights sidecar (webnn-graph-format.md §7): a SafeTensors
// archive (§7.2) or a raw blob addressed by a manifest (§7.3). The graph's declaration is
// authoritative: a provider returns bytes in cppnn's in-memory layout for it (row-major little
// endian, 4-bit packed two per byte), as views into the mapped file when no conversion is needed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/graph_model.h"
#include "src/core/result.h"

namespace cppnn::formats {

// A constant of a graph whose init is `{kind: "weights", ref}` (§4.1 ConstInit).
struct DeclaredWeight {
  std::string const_name;
  std::string ref;
  MLOperandDescriptor descriptor;
};

// A source of external weight tensors. Thread-safe: every method is const and stateless.
class WeightsProvider {
 public:
  virtual ~WeightsProvider() = default;
  // The bytes for weight `ref` of the constant `const_name` declared as `declared` (exact name,
  // then the §7.1 normalized fallback). A DataError names the file, the ref and the constant.
  virtual Result<ConstantData> load(std::string_view ref, std::string_view const_name,
                                    const MLOperandDescriptor& declared) const = 0;
  // The stored name that serves `ref` (§7.1 lookup), nullopt when none; an error when ambiguous.
  virtual Result<std::optional<std::string>> find(std::string_view ref) const = 0;
  // The stored tensor names, sorted.
  virtual std::vector<std::string> names() const = 0;
  // The sidecar file.
  virtual const std::filesystem::path& path() const = 0;
};

// Checked element count of a declaration; nullopt on overflow.
std::optional<uint64_t> declared_element_count(const MLOperandDescriptor& d);
// Checked byte length of a declaration in cppnn's layout (4-bit: ceil(n/2)); nullopt on overflow.
std::optional<uint64_t> declared_byte_length(const MLOperandDescriptor& d);
// True when a view of `bytes` may be read as elements of `type` (aligned to the element size).
bool is_aligned_for(std::span<const std::byte> bytes, MLOperandDataType type);

}  // namespace cppnn::formats
