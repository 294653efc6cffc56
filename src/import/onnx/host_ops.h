// Data movement on host tensors, for folding shape computations that may involve empty tensors
// (which WebNN operands cannot hold): concat, gather and strided slice on raw elements.
#pragma once

#include <cstdint>
#include <vector>

#include "src/import/onnx/host_tensor.h"

namespace cppnn::onnx_import {

// Concatenation along `axis` (empty parts allowed; all share type and the other dimensions).
HostTensor host_concat(const std::vector<const HostTensor*>& parts, uint32_t axis);
// ONNX Gather along `axis` with indices already in [0, dim).
HostTensor host_gather(const HostTensor& data, const std::vector<int64_t>& indices,
                       const std::vector<uint32_t>& indices_shape, uint32_t axis);
// Per-axis start and step (step may be negative) with `count` elements per axis.
HostTensor host_slice(const HostTensor& data, const std::vector<int64_t>& starts,
                      const std::vector<int64_t>& steps, const std::vector<uint32_t>& counts);

}  // namespace cppnn::onnx_import
