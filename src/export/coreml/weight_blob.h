// The package's weight file (weights/weight.bin) in Apple's MIL blob storage format, version 2,
// as coremltools' milstorage reads it: a 64-byte header (blob count, version 2), then per blob a
// 64-byte metadata record (sentinel 0xDEADBEEF, blob data type, byte size, data offset) at a
// 64-byte aligned offset followed by the data. A const op refers to a blob by the offset of its
// metadata record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "src/export/coreml/mil_types.h"

namespace cppnn::coreml_export {

class WeightBlob {
 public:
  WeightBlob();
  // Appends one blob of `type` (float16, float32, int8, uint8, int16, uint16, int32) and returns
  // the offset its const op names. Sizes are checked (a DataError past 2^62 bytes).
  uint64_t add(mil::DataType type, std::span<const std::byte> data);
  // The file's bytes (the header counts every blob added).
  const std::vector<std::byte>& bytes() const { return bytes_; }
  uint32_t count() const { return count_; }

 private:
  std::vector<std::byte> bytes_;
  uint32_t count_ = 0;
};

// The blob storage data type code of a MIL element type (milstorage's BlobDataType).
uint32_t blob_data_type(mil::DataType type);

}  // namespace cppnn::coreml_export
