#include "src/export/coreml/weight_blob.h"

#include <cstring>
#include <string>

#include "cppnn/errors.h"
#include "src/core/checked_math.h"

namespace cppnn::coreml_export {
namespace {

constexpr size_t kAlignment = 64;  // every metadata record and every data block
constexpr uint32_t kVersion = 2;   // storage format version
constexpr uint32_t kSentinel = 0xDEADBEEF;

// `value` or a DataError: the weight file would pass 2^63 bytes.
uint64_t checked(std::optional<uint64_t> value) {
  if (!value || *value > (uint64_t{1} << 62))
    throw DataError("coreml: the weight file would be too large");
  return *value;
}

template <class T>
void put(std::vector<std::byte>& out, size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof(T));
}

}  // namespace

uint32_t blob_data_type(mil::DataType type) {
  switch (type) {
    case mil::FLOAT16:
      return 1;
    case mil::FLOAT32:
      return 2;
    case mil::UINT8:
      return 3;
    case mil::INT8:
      return 4;
    case mil::INT16:
      return 6;
    case mil::UINT16:
      return 7;
    case mil::INT32:
      return 14;
    default:
      break;
  }
  throw NotSupportedError("coreml: element type " + std::to_string(type) +
                          " has no weight blob form");
}

WeightBlob::WeightBlob() : bytes_(kAlignment) {
  put(bytes_, 4, kVersion);
}

uint64_t WeightBlob::add(mil::DataType type, std::span<const std::byte> data) {
  const uint32_t code = blob_data_type(type);
  const uint64_t metadata =
      checked(checked_add(bytes_.size(), kAlignment - 1)) / kAlignment * kAlignment;
  const uint64_t offset = metadata + kAlignment;
  const uint64_t end = checked(checked_add(offset, data.size()));
  bytes_.resize(static_cast<size_t>(end));
  put(bytes_, metadata, kSentinel);
  put(bytes_, metadata + 4, code);
  put(bytes_, metadata + 8, static_cast<uint64_t>(data.size()));
  put(bytes_, metadata + 16, offset);
  if (!data.empty()) std::memcpy(bytes_.data() + offset, data.data(), data.size());
  put(bytes_, 0, ++count_);
  return metadata;
}

}  // namespace cppnn::coreml_export
