// int4/uint4 graph inputs and outputs for backends whose runtime carries 4-bit data as int8 /
// uint8, one element per byte (ONNX Runtime, LiteRT): MLTensors hold 4-bit data packed two per
// byte, so dispatch unpacks such inputs into and packs such outputs from a staging buffer, the
// only case where these backends copy tensor data.
#pragma once

#include <cstddef>
#include <vector>

#include "cppnn/descriptor.h"

namespace cppnn {

// One graph input or output of a compiled graph: its descriptor and, for 4-bit types, the
// staging buffer of its unpacked elements.
class FourBitIo {
 public:
  explicit FourBitIo(const MLOperandDescriptor& desc);
  const MLOperandDescriptor& descriptor() const { return desc_; }
  bool four_bit() const { return four_bit_; }
  size_t elements() const { return elements_; }
  // The byte length the runtime sees: one byte per element for 4-bit types, else the
  // descriptor's byte length.
  size_t runtime_bytes() const;
  // Input: `data` itself, or (4-bit) the staging buffer holding its unpacked elements.
  std::byte* input(const std::byte* data);
  // Output: `data` itself, or (4-bit) the staging buffer the runtime writes.
  std::byte* output(std::byte* data);
  // Output, after the run: packs the staging buffer into `data` (nothing unless 4-bit).
  void finish_output(std::byte* data) const;

 private:
  MLOperandDescriptor desc_;
  bool four_bit_;
  size_t elements_ = 1;
  std::vector<std::byte> staging_;
};

}  // namespace cppnn
