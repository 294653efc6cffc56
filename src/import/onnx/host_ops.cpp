// Host concat, gather and slice over raw elements.
#include "src/import/onnx/host_ops.h"

#include <cstring>
#include <string>

#include "cppnn/errors.h"

namespace cppnn::onnx_import {
namespace {

// Product of dims [from, to).
uint64_t span_product(const std::vector<uint32_t>& shape, size_t from, size_t to) {
  uint64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= shape[i];
  return p;
}

}  // namespace

HostTensor host_concat(const std::vector<const HostTensor*>& parts, uint32_t axis) {
  MLOperandDescriptor desc = parts.front()->desc;
  // Every part must match the first in type, rank and every dimension but `axis`, and hold the
  // bytes its shape says (found by the onnx_import fuzz target: a mismatch overran the copy).
  for (const HostTensor* p : parts) {
    bool fits = p->desc.dataType == desc.dataType && p->desc.shape.size() == desc.shape.size() &&
                axis < desc.shape.size() &&
                p->data.size() == element_count(p->desc.shape) * element_size(p->desc.dataType);
    for (size_t d = 0; fits && d < desc.shape.size(); ++d)
      fits = d == axis || p->desc.shape[d] == desc.shape[d];
    if (!fits)
      throw DataError("Concat: input " + shape_to_string(p->desc.shape) + " does not match " +
                      shape_to_string(desc.shape) + " on axis " + std::to_string(axis));
  }
  desc.shape[axis] = 0;
  for (const HostTensor* p : parts) desc.shape[axis] += p->desc.shape[axis];
  const size_t size = element_size(desc.dataType);
  const uint64_t outer = span_product(desc.shape, 0, axis);
  const uint64_t inner = span_product(desc.shape, axis + 1, desc.shape.size());
  std::vector<std::byte> out(element_count(desc.shape) * size);
  uint64_t offset = 0;  // in elements within one outer row
  const uint64_t row = desc.shape[axis] * inner;
  for (const HostTensor* p : parts) {
    const uint64_t chunk = p->desc.shape[axis] * inner;
    for (uint64_t o = 0; o < outer && chunk > 0; ++o)
      std::memcpy(out.data() + (o * row + offset) * size, p->data.data() + o * chunk * size,
                  chunk * size);
    offset += chunk;
  }
  return HostTensor::of_bytes(desc, std::move(out));
}

HostTensor host_gather(const HostTensor& data, const std::vector<int64_t>& indices,
                       const std::vector<uint32_t>& indices_shape, uint32_t axis) {
  MLOperandDescriptor desc{data.desc.dataType, {}};
  for (size_t i = 0; i < axis; ++i) desc.shape.push_back(data.desc.shape[i]);
  for (uint32_t d : indices_shape) desc.shape.push_back(d);
  for (size_t i = axis + 1; i < data.desc.shape.size(); ++i)
    desc.shape.push_back(data.desc.shape[i]);
  const size_t size = element_size(desc.dataType);
  const uint64_t outer = span_product(data.desc.shape, 0, axis);
  const uint64_t inner = span_product(data.desc.shape, axis + 1, data.desc.shape.size());
  const uint64_t dim = data.desc.shape[axis];
  std::vector<std::byte> out(element_count(desc.shape) * size);
  if (out.empty()) return HostTensor::of_bytes(desc, std::move(out));
  std::byte* dst = out.data();
  for (uint64_t o = 0; o < outer; ++o)
    for (int64_t index : indices) {
      std::memcpy(dst, data.data.data() + ((o * dim + static_cast<uint64_t>(index)) * inner) * size,
                  inner * size);
      dst += inner * size;
    }
  return HostTensor::of_bytes(desc, std::move(out));
}

HostTensor host_slice(const HostTensor& data, const std::vector<int64_t>& starts,
                      const std::vector<int64_t>& steps, const std::vector<uint32_t>& counts) {
  const MLOperandDescriptor desc{data.desc.dataType, counts};
  const size_t rank = counts.size();
  const size_t size = element_size(desc.dataType);
  std::vector<uint64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * data.desc.shape[i];
  const uint64_t total = element_count(counts);
  std::vector<std::byte> out(total * size);
  if (total == 0) return HostTensor::of_bytes(desc, std::move(out));
  std::vector<uint32_t> index(rank, 0);
  for (uint64_t n = 0; n < total; ++n) {
    uint64_t src = 0;
    for (size_t i = 0; i < rank; ++i)
      src += static_cast<uint64_t>(starts[i] + steps[i] * index[i]) * strides[i];
    std::memcpy(out.data() + n * size, data.data.data() + src * size, size);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < counts[i]) break;
      index[i] = 0;
    }
  }
  return HostTensor::of_bytes(desc, std::move(out));
}

}  // namespace cppnn::onnx_import
