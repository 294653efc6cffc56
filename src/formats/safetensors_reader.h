// The SafeTensors reader (webnn-graph-format.md §7.2): a mapped archive whose tensors are served
// to graph declarations as views (no copy), converted only for BF16 -> float32 or misaligned data.
#pragma once

#include <filesystem>
#include <memory>
#include <span>

#include "src/formats/mapped_file.h"
#include "src/formats/safetensors_header.h"
#include "src/formats/weights_names.h"
#include "src/formats/weights_provider.h"

namespace cppnn::formats {

// An opened, validated SafeTensors archive.
class SafeTensorsFile final : public WeightsProvider {
 public:
  // Maps and validates `path` (parse_safetensors_header's rules).
  static Result<std::shared_ptr<const SafeTensorsFile>> open(const std::filesystem::path& path);
  // Validates an existing mapping.
  static Result<std::shared_ptr<const SafeTensorsFile>> from_mapping(
      std::shared_ptr<const MappedFile> file);

  // §7.2 "Reading a tensor": shape must equal the declaration; BF16 may serve float32 (converted
  // bit-exactly); int4/uint4 declarations need the packed4 marker "1", U8 storage of physical
  // shape [ceil(n/2)]; any other pairing of dtypes is a mismatch.
  Result<ConstantData> load(std::string_view ref, std::string_view const_name,
                            const MLOperandDescriptor& declared) const override;
  Result<std::optional<std::string>> find(std::string_view ref) const override {
    return index_.find(ref);
  }
  std::vector<std::string> names() const override;
  const std::filesystem::path& path() const override { return file_->path(); }

  const SafeTensorsHeader& header() const { return header_; }
  // The stored bytes of a tensor of this archive.
  std::span<const std::byte> data(const SafeTensorsEntry& e) const;

  SafeTensorsFile(std::shared_ptr<const MappedFile> file, SafeTensorsHeader header);

 private:
  template <class... A>
  ErrorInfo fail(const A&... a) const;
  ConstantData view(std::span<const std::byte> bytes) const;

  std::shared_ptr<const MappedFile> file_;
  SafeTensorsHeader header_;
  WeightNameIndex index_;
};

// BF16 -> float32 as the reference does it: the f32 bits are the bf16 bits shifted left 16, and a
// NaN gets its quiet bit set (signalling NaNs become quiet). `out` holds 4 x the input's count.
void convert_bf16_to_f32(std::span<const std::byte> bf16, std::span<std::byte> out);

}  // namespace cppnn::formats
