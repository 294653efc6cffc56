// The C API's handle types (include/cppnn/cppnn.h): each wraps the C++ object it stands for, and
// the guard that turns every C++ exception into a status and a cppnn_error.
#pragma once

#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cppnn/context.h"
#include "cppnn/cppnn.h"
#include "cppnn/errors.h"
#include "cppnn/graph.h"
#include "cppnn/graph_builder.h"
#include "cppnn/tensor.h"

// A failed call's error (cppnn_error): status, spec name and message, owned by the caller.
struct cppnn_error {
  cppnn_status status = CPPNN_UNKNOWN_ERROR;
  std::string name;
  std::string message;
};

// A context handle: the shared MLContext and its backend name (returned as const char*).
struct cppnn_context {
  cppnn::MLContext context;
  std::string backend;
};

// An operand handle, owned by its builder: the MLOperand and its shape (returned as a pointer).
struct cppnn_operand {
  cppnn::MLOperand operand;
  std::vector<uint32_t> shape;
};

// A builder handle: the MLGraphBuilder and the operand handles it made (a deque keeps their
// addresses stable).
struct cppnn_builder {
  explicit cppnn_builder(const cppnn::MLContext& c) : builder(c) {}
  cppnn::MLGraphBuilder builder;
  std::deque<cppnn_operand> operands;

  // A new operand handle for `operand`, valid until the builder is destroyed.
  cppnn_operand* adopt(const cppnn::MLOperand& operand);
};

// A graph handle: the MLGraph and its inputs and outputs in name order (constants loaded from
// weight files keep their mapping alive on their own).
struct cppnn_graph {
  cppnn::MLGraph graph;
  std::vector<std::pair<std::string, cppnn::MLOperandDescriptor>> inputs, outputs;

  explicit cppnn_graph(cppnn::MLGraph g);
};

// A tensor handle.
struct cppnn_tensor {
  cppnn::MLTensor tensor;
};

namespace cppnn::capi {

// The status of a spec error kind.
cppnn_status status_of(ErrorKind kind) noexcept;
// Stores a new error in *error (when error is not NULL) and returns `status`; never throws.
cppnn_status fail(cppnn_error** error, cppnn_status status, const char* message) noexcept;

// Runs `body` and returns CPPNN_OK, or the status of the exception it threw (with *error set):
// the one place where C++ exceptions stop at the C API.
template <class F>
cppnn_status guard(cppnn_error** error, F&& body) noexcept {
  try {
    body();
    return CPPNN_OK;
  } catch (const Error& e) {
    return fail(error, status_of(e.kind()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(error, CPPNN_UNKNOWN_ERROR, "out of memory");
  } catch (const std::exception& e) {
    return fail(error, CPPNN_UNKNOWN_ERROR, e.what());
  } catch (...) {
    return fail(error, CPPNN_UNKNOWN_ERROR, "unknown exception");
  }
}

// Throws TypeError "<function>: <what> is NULL" when `p` is null; returns `p`.
template <class T>
T* require(T* p, const char* function, const char* what) {
  if (!p) throw TypeError(std::string(function) + ": " + what + " is NULL");
  return p;
}

// Stores `value` in *out after checking `out` (TypeError when NULL).
template <class T>
void store(T** out, T* value, const char* function) {
  require(out, function, "the result pointer");
  *out = value;
}

// The integer a C caller stored in an enum field. C lets any int sit in an enum; in C++ reading
// one outside the enumerators' range is undefined, so the bytes are copied out instead.
template <class E>
long long raw_enum(const E& value) noexcept {
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &value, sizeof raw);
  return static_cast<long long>(raw);
}

// The C++ data type of a C one; TypeError for a value outside the enum.
MLOperandDataType data_type_of(const cppnn_data_type& type, const char* function);
// A C++ operand descriptor from a C one; TypeError for a NULL shape with a nonzero rank.
MLOperandDescriptor descriptor_of(const cppnn_operand_descriptor* d, const char* function);
// The C view of a C++ descriptor (its shape pointer points into `d`).
cppnn_operand_descriptor view_of(const MLOperandDescriptor& d) noexcept;
// A copy of `s` allocated for cppnn_string_free.
char* copy_string(const std::string& s);

}  // namespace cppnn::capi
