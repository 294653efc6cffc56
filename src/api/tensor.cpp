// MLTensor handle methods (webnn-spec.md §1).
#include "cppnn/tensor.h"

#include <mutex>

#include "cppnn/errors.h"
#include "src/api/states.h"

namespace cppnn {

namespace {
const detail::TensorState& state_of(const std::shared_ptr<detail::TensorState>& s) {
  if (!s) throw TypeError("MLTensor: the tensor is null");
  return *s;
}
}  // namespace

MLOperandDataType MLTensor::dataType() const {
  return state_of(state_).descriptor.dataType;
}
const std::vector<uint32_t>& MLTensor::shape() const {
  return state_of(state_).descriptor.shape;
}
const MLOperandDescriptor& MLTensor::descriptor() const {
  return state_of(state_).descriptor;
}
bool MLTensor::readable() const {
  return state_of(state_).readable;
}
bool MLTensor::writable() const {
  return state_of(state_).writable;
}
bool MLTensor::constant() const {
  return state_of(state_).constant;
}
bool MLTensor::is_destroyed() const {
  return state_of(state_).destroyed.load();
}

void MLTensor::destroy() {
  if (!state_) throw TypeError("MLTensor: the tensor is null");
  detail::TensorState& t = *state_;
  std::shared_ptr<detail::ContextState> ctx = t.context_ref.lock();
  if (!ctx) {
    t.destroyed.store(true);
    t.data.reset();
    return;
  }
  // Release the data in timeline order: work already submitted has completed.
  std::lock_guard<std::mutex> timeline(ctx->timeline);
  t.destroyed.store(true);
  t.data.reset();
}

}  // namespace cppnn
