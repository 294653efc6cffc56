// The C API's errors, strings, version and data types (include/cppnn/cppnn.h "Status and errors",
// "Data types and descriptors").
#include <cstdlib>
#include <cstring>

#include "cppnn/data_type.h"
#include "cppnn/version.h"
#include "src/capi/handles.h"

namespace cppnn::capi {

cppnn_status status_of(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::kTypeError:
      return CPPNN_TYPE_ERROR;
    case ErrorKind::kInvalidStateError:
      return CPPNN_INVALID_STATE_ERROR;
    case ErrorKind::kOperationError:
      return CPPNN_OPERATION_ERROR;
    case ErrorKind::kNotSupportedError:
      return CPPNN_NOT_SUPPORTED_ERROR;
    case ErrorKind::kUnknownError:
      return CPPNN_UNKNOWN_ERROR;
    case ErrorKind::kDataError:
      return CPPNN_DATA_ERROR;
    case ErrorKind::kSecurityError:
      return CPPNN_SECURITY_ERROR;
  }
  return CPPNN_UNKNOWN_ERROR;
}

cppnn_status fail(cppnn_error** error, cppnn_status status, const char* message) noexcept {
  if (!error) return status;
  try {
    auto* e = new cppnn_error;
    e->status = status;
    e->name = cppnn_status_name(status);
    e->message = message ? message : "";
    *error = e;
  } catch (...) {
    *error = nullptr;  // no memory even for the error: the status still says what happened
  }
  return status;
}

MLOperandDataType data_type_of(const cppnn_data_type& type, const char* function) {
  const long long v = raw_enum(type);
  if (v < 0 || v >= kAllDataTypeCount)
    throw TypeError(std::string(function) + ": data type " + std::to_string(v) +
                    " is not a cppnn_data_type");
  return static_cast<MLOperandDataType>(v);
}

MLOperandDescriptor descriptor_of(const cppnn_operand_descriptor* d, const char* function) {
  require(d, function, "the descriptor");
  if (d->rank > 0) require(d->shape, function, "the descriptor's shape");
  MLOperandDescriptor out;
  out.dataType = data_type_of(d->data_type, function);
  out.shape.assign(d->shape, d->shape + d->rank);
  return out;
}

cppnn_operand_descriptor view_of(const MLOperandDescriptor& d) noexcept {
  return {static_cast<cppnn_data_type>(d.dataType), d.shape.empty() ? nullptr : d.shape.data(),
          d.shape.size()};
}

char* copy_string(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

}  // namespace cppnn::capi

extern "C" {

const char* cppnn_status_name(cppnn_status status) {
  const long long raw = cppnn::capi::raw_enum(status);
  if (raw < CPPNN_OK || raw > CPPNN_SECURITY_ERROR) return "UnknownError";
  switch (status) {
    case CPPNN_OK:
      return "OK";
    case CPPNN_TYPE_ERROR:
      return "TypeError";
    case CPPNN_INVALID_STATE_ERROR:
      return "InvalidStateError";
    case CPPNN_OPERATION_ERROR:
      return "OperationError";
    case CPPNN_NOT_SUPPORTED_ERROR:
      return "NotSupportedError";
    case CPPNN_UNKNOWN_ERROR:
      return "UnknownError";
    case CPPNN_DATA_ERROR:
      return "DataError";
    case CPPNN_SECURITY_ERROR:
      return "SecurityError";
  }
  return "UnknownError";
}

cppnn_status cppnn_error_status(const cppnn_error* error) {
  return error ? error->status : CPPNN_OK;
}

const char* cppnn_error_name(const cppnn_error* error) {
  return error ? error->name.c_str() : "OK";
}

const char* cppnn_error_message(const cppnn_error* error) {
  return error ? error->message.c_str() : "";
}

void cppnn_error_destroy(cppnn_error* error) {
  delete error;
}

void cppnn_string_free(char* string) {
  std::free(string);
}

const char* cppnn_version(void) {
  return cppnn::version();
}

const char* cppnn_data_type_name(cppnn_data_type type) {
  const long long v = cppnn::capi::raw_enum(type);
  if (v < 0 || v >= cppnn::kAllDataTypeCount) return nullptr;
  return cppnn::data_type_name(static_cast<cppnn::MLOperandDataType>(v)).data();
}

cppnn_status cppnn_data_type_from_name(const char* name, cppnn_data_type* out,
                                       cppnn_error** error) {
  return cppnn::capi::guard(error, [&] {
    cppnn::capi::require(name, __func__, "the name");
    cppnn::capi::require(out, __func__, "the result pointer");
    const std::optional<cppnn::MLOperandDataType> t = cppnn::parse_data_type(name);
    if (!t) throw cppnn::TypeError(std::string(__func__) + ": unknown data type '" + name + "'");
    *out = static_cast<cppnn_data_type>(*t);
  });
}

}  // extern "C"
