// OptionalList<T>: an optional sequence option (absent is different from empty, as in WebIDL),
// constructible from a braced list so that designated initializers read like JavaScript:
// `{.padding = {1, 1, 1, 1}}`.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

template <class T>
class OptionalList {
 public:
  OptionalList() = default;
  OptionalList(std::nullopt_t) {}                                      // NOLINT
  OptionalList(std::initializer_list<T> l) : v_(std::vector<T>(l)) {}  // NOLINT
  OptionalList(std::vector<T> v) : v_(std::move(v)) {}                 // NOLINT

  bool has_value() const { return v_.has_value(); }
  explicit operator bool() const { return v_.has_value(); }
  const std::vector<T>& value() const { return *v_; }
  std::vector<T>& value() { return *v_; }
  const std::vector<T>& operator*() const { return *v_; }
  const std::vector<T>* operator->() const { return &*v_; }
  // The list, or `fallback` when absent.
  std::vector<T> value_or(std::vector<T> fallback) const { return v_ ? *v_ : std::move(fallback); }
  void reset() { v_.reset(); }
  friend bool operator==(const OptionalList&, const OptionalList&) = default;

 private:
  std::optional<std::vector<T>> v_;
};

}  // namespace cppnn

#pragma GCC visibility pop
