#include "cppnn/errors.h"

namespace cppnn {

std::string_view error_kind_name(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::kTypeError:
      return "TypeError";
    case ErrorKind::kInvalidStateError:
      return "InvalidStateError";
    case ErrorKind::kOperationError:
      return "OperationError";
    case ErrorKind::kNotSupportedError:
      return "NotSupportedError";
    case ErrorKind::kUnknownError:
      return "UnknownError";
    case ErrorKind::kDataError:
      return "DataError";
    case ErrorKind::kSecurityError:
      return "SecurityError";
  }
  return "Error";
}

void throw_error(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::kTypeError:
      throw TypeError(message);
    case ErrorKind::kInvalidStateError:
      throw InvalidStateError(message);
    case ErrorKind::kOperationError:
      throw OperationError(message);
    case ErrorKind::kNotSupportedError:
      throw NotSupportedError(message);
    case ErrorKind::kUnknownError:
      throw UnknownError(message);
    case ErrorKind::kDataError:
      throw DataError(message);
    case ErrorKind::kSecurityError:
      throw SecurityError(message);
  }
  throw Error(kind, message);
}

}  // namespace cppnn
