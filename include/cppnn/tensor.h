// MLTensor and MLTensorDescriptor (webnn-spec.md §1, §4): device-side storage for graph inputs and
// outputs, read and written through the context's timeline.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cppnn/descriptor.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

namespace detail {
struct TensorState;
}

// MLTensorDescriptor: an operand descriptor plus the usage flags (both default to false).
struct MLTensorDescriptor {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  std::vector<uint32_t> shape;
  bool readable = false;
  bool writable = false;

  // The operand descriptor part.
  MLOperandDescriptor descriptor() const { return {dataType, shape}; }
  // A tensor descriptor for `d` with the given usage.
  static MLTensorDescriptor of(const MLOperandDescriptor& d, bool readable, bool writable) {
    return {d.dataType, d.shape, readable, writable};
  }
};

// A tensor of one context. Copies share the same tensor (like a JS object reference).
class MLTensor {
 public:
  MLTensor() = default;
  MLOperandDataType dataType() const;
  const std::vector<uint32_t>& shape() const;
  const MLOperandDescriptor& descriptor() const;
  bool readable() const;
  bool writable() const;
  // True for tensors made by createConstantTensor().
  bool constant() const;
  // MLTensor.destroy(): idempotent; the data is released once pending work is done.
  void destroy();
  bool is_destroyed() const;
  bool is_null() const { return !state_; }

  friend bool operator==(const MLTensor& a, const MLTensor& b) { return a.state_ == b.state_; }
  // Internal: the shared state, and a handle wrapping an existing state.
  const std::shared_ptr<detail::TensorState>& state() const { return state_; }
  explicit MLTensor(std::shared_ptr<detail::TensorState> s) : state_(std::move(s)) {}

 private:
  std::shared_ptr<detail::TensorState> state_;
};

}  // namespace cppnn

#pragma GCC visibility pop
