// Arguments of the C API's generic builder call: cppnn_value trees (and JSON text) as the
// DynValues of the dynamic builder call (dynamic_call.h), and recording a call's outputs.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cppnn/dynamic_call.h"
#include "src/capi/handles.h"

namespace cppnn::capi {

// Nesting deeper than this is a TypeError (a cppnn_value tree can point back at itself).
inline constexpr int kMaxValueDepth = 64;

// The DynValue of one argument; TypeError naming `method` and `where` for a NULL pointer, an
// unknown kind, invalid JSON or nesting past kMaxValueDepth.
DynValue dyn_value_of(const cppnn_value& value, const std::string& method,
                      const std::string& where);

// Calls `method` on the builder with `args` and stores its output handles (see
// cppnn_builder_call for `capacity` and `output_count`; TypeError when they do not fit).
void record_call(cppnn_builder& builder, const std::string& method, std::span<const DynValue> args,
                 cppnn_operand** outputs, size_t capacity, size_t* output_count);

// record_call for an op with one output: its handle.
cppnn_operand* record_single(cppnn_builder& builder, const std::string& method,
                             std::span<const DynValue> args);

}  // namespace cppnn::capi
