// Python values -> cppnn values: JavaScript-like DynValues for the generic op call (exact 64-bit
// integers, NaN and infinities kept), MLNumbers, option names (snake_case -> camelCase) and
// operand/tensor descriptors from dicts.
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <string_view>

#include "cppnn/dynamic_call.h"
#include "cppnn/number.h"
#include "cppnn/tensor.h"

namespace cppnn::py {

// None -> undefined, bool, int (exact: int64, else uint64, saturating beyond), float, str,
// list/tuple -> array, dict -> object (keys kept as given), MLOperand; numpy scalars and arrays
// through .tolist(). TypeError naming `what` for anything else.
DynValue to_dyn(nanobind::handle value, std::string_view what);
// A Python number (int exact, float, bool, numpy scalar) as an MLNumber.
MLNumber to_number(nanobind::handle value, std::string_view what);
// "input_layout" -> "inputLayout"; names without '_' are returned unchanged.
std::string snake_to_camel(std::string_view name);
// A data type given as a spec string ("float32") or anything numpy.dtype() accepts.
std::string data_type_text(nanobind::handle value);
// {dataType|data_type: ..., shape: [...]} -> MLOperandDescriptor (TypeError naming `what`).
MLOperandDescriptor operand_descriptor(nanobind::handle descriptor, std::string_view what);
// The same plus `readable` and `writable` (default false).
MLTensorDescriptor tensor_descriptor(nanobind::handle descriptor, std::string_view what);

}  // namespace cppnn::py
