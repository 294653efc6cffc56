// MLOperand: a handle to an operand recorded by an MLGraphBuilder (webnn-spec.md §1).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cppnn/descriptor.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

namespace detail {
struct BuilderState;
}

// Strong index of an operand inside one graph.
struct OperandId {
  uint32_t value = UINT32_MAX;
  constexpr bool valid() const { return value != UINT32_MAX; }
  friend constexpr bool operator==(OperandId, OperandId) = default;
  friend constexpr auto operator<=>(OperandId, OperandId) = default;
};
inline constexpr OperandId kNoOperand{};

// An operand of one builder: its descriptor is readable; it keeps its builder's state alive.
// A default-constructed MLOperand is null and is rejected by every builder method.
class MLOperand {
 public:
  MLOperand() = default;
  MLOperandDataType dataType() const;
  // Copies: the builder's operand storage grows as ops are added, so a reference into it would
  // dangle after the next builder call.
  std::vector<uint32_t> shape() const;
  MLOperandDescriptor descriptor() const;
  OperandId id() const { return id_; }
  bool is_null() const { return !builder_; }
  // The state of the builder that made this operand (identity checks).
  const std::shared_ptr<detail::BuilderState>& builder_state() const { return builder_; }
  // True when both handles name the same operand of the same builder.
  friend bool operator==(const MLOperand& a, const MLOperand& b) {
    return a.builder_ == b.builder_ && a.id_ == b.id_;
  }

 private:
  friend struct detail::BuilderState;
  friend class MLGraphBuilder;
  MLOperand(std::shared_ptr<detail::BuilderState> b, OperandId id)
      : builder_(std::move(b)), id_(id) {}
  std::shared_ptr<detail::BuilderState> builder_;
  OperandId id_;
};

}  // namespace cppnn

#pragma GCC visibility pop
