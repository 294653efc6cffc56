// Result<T>: errors as values inside the library (converted to exceptions at the API boundary).
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <variant>

#include "cppnn/errors.h"

namespace cppnn {

// A spec error kind and its message.
struct ErrorInfo {
  ErrorKind kind = ErrorKind::kTypeError;
  std::string message;
};

// Either a value or an ErrorInfo.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit success
  Result(ErrorInfo error) : v_(std::move(error)) {}  // NOLINT: implicit failure
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const ErrorInfo& error() const { return std::get<1>(v_); }
  ErrorInfo& error() { return std::get<1>(v_); }
  // The value, or throws the matching cppnn exception.
  T value_or_throw() && {
    if (!ok()) throw_error(error().kind, error().message);
    return std::move(value());
  }

 private:
  std::variant<T, ErrorInfo> v_;
};

// Result without a value.
struct Ok {};
using Status = Result<Ok>;

// Concatenates streamable pieces into a string.
template <class... A>
std::string str_cat(const A&... a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}

// A TypeError with a message made of the streamable pieces.
template <class... A>
ErrorInfo type_error(const A&... a) {
  return ErrorInfo{ErrorKind::kTypeError, str_cat(a...)};
}
template <class... A>
ErrorInfo invalid_state_error(const A&... a) {
  return ErrorInfo{ErrorKind::kInvalidStateError, str_cat(a...)};
}

// Returns the error of a failed Result/Status from the current function.
#define CPPNN_RETURN_IF_ERROR(expr)              \
  do {                                           \
    auto&& cppnn_r_ = (expr);                    \
    if (!cppnn_r_.ok()) return cppnn_r_.error(); \
  } while (0)

}  // namespace cppnn
