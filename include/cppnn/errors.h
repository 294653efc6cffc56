// cppnn error types: one exception class per WebNN spec error name (webnn-spec.md §3.7, §4).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// The spec's error names (DOMException names plus the WebIDL TypeError), and DataError for files.
enum class ErrorKind {
  kTypeError,
  kInvalidStateError,
  kOperationError,
  kNotSupportedError,
  kUnknownError,
  kDataError,
  kSecurityError,
};

// The spec name of an error kind, e.g. "TypeError" or "InvalidStateError".
std::string_view error_kind_name(ErrorKind kind) noexcept;

// Base of every exception cppnn throws; carries the spec error kind and a message.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }
  std::string_view name() const noexcept { return error_kind_name(kind_); }

 private:
  ErrorKind kind_;
};

// WebIDL TypeError: bad argument, operand, data type, rank, shape or option.
class TypeError : public Error {
 public:
  explicit TypeError(const std::string& m) : Error(ErrorKind::kTypeError, m) {}
};
// "InvalidStateError": the builder was built already, or the context/graph/tensor is lost.
class InvalidStateError : public Error {
 public:
  explicit InvalidStateError(const std::string& m) : Error(ErrorKind::kInvalidStateError, m) {}
};
// "OperationError": a backend failed to compile or run a graph.
class OperationError : public Error {
 public:
  explicit OperationError(const std::string& m) : Error(ErrorKind::kOperationError, m) {}
};
// "NotSupportedError": the requested context or feature is not available.
class NotSupportedError : public Error {
 public:
  explicit NotSupportedError(const std::string& m) : Error(ErrorKind::kNotSupportedError, m) {}
};
// "UnknownError": allocation or copy failure.
class UnknownError : public Error {
 public:
  explicit UnknownError(const std::string& m) : Error(ErrorKind::kUnknownError, m) {}
};
// "DataError": a malformed file (cppnn extension for the formats).
class DataError : public Error {
 public:
  explicit DataError(const std::string& m) : Error(ErrorKind::kDataError, m) {}
};
// "SecurityError": kept for completeness with the spec (permissions policy).
class SecurityError : public Error {
 public:
  explicit SecurityError(const std::string& m) : Error(ErrorKind::kSecurityError, m) {}
};

// Throws the exception class that matches `kind`.
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);

}  // namespace cppnn

#pragma GCC visibility pop
