#include "src/backends/four_bit_io.h"

#include <cstring>

#include "cppnn/int4.h"

namespace cppnn {

FourBitIo::FourBitIo(const MLOperandDescriptor& desc)
    : desc_(desc),
      four_bit_(desc.dataType == MLOperandDataType::kInt4 ||
                desc.dataType == MLOperandDataType::kUint4) {
  for (uint32_t d : desc.shape) elements_ *= d;
  if (four_bit_) staging_.resize(elements_);
}

size_t FourBitIo::runtime_bytes() const {
  return four_bit_ ? elements_ : static_cast<size_t>(byte_length(desc_));
}

std::byte* FourBitIo::input(const std::byte* data) {
  if (!four_bit_) return const_cast<std::byte*>(data);
  const std::span<const std::byte> bytes(data, (elements_ + 1) / 2);
  if (desc_.dataType == MLOperandDataType::kInt4) {
    const std::vector<int8_t> v = unpack_int4(bytes, elements_);
    std::memcpy(staging_.data(), v.data(), v.size());
  } else {
    const std::vector<uint8_t> v = unpack_uint4(bytes, elements_);
    std::memcpy(staging_.data(), v.data(), v.size());
  }
  return staging_.data();
}

std::byte* FourBitIo::output(std::byte* data) {
  return four_bit_ ? staging_.data() : data;
}

void FourBitIo::finish_output(std::byte* data) const {
  if (!four_bit_) return;
  std::vector<std::byte> packed;
  if (desc_.dataType == MLOperandDataType::kInt4)
    packed = pack_int4({reinterpret_cast<const int8_t*>(staging_.data()), elements_});
  else
    packed = pack_uint4({reinterpret_cast<const uint8_t*>(staging_.data()), elements_});
  std::memcpy(data, packed.data(), packed.size());
}

}  // namespace cppnn
