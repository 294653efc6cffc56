// The dynamic builder call: "call builder method X with these JavaScript-like arguments", the one
// entry point shared by the file loaders, the WPT runners, the ONNX importer and the bindings.
// Arguments are DynValues (undefined/null, boolean, number, string, array, object, MLOperand) and
// are converted the way WebIDL converts a JavaScript call (webnn-spec.md §3.7): every conversion
// error is a TypeError whose message starts with "<method>: <argument or option name>".
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cppnn/descriptor.h"
#include "cppnn/graph_builder.h"
#include "cppnn/number.h"
#include "cppnn/op_type.h"
#include "cppnn/operand.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// A JavaScript-like value. std::monostate stands for both undefined and null; numbers are
// MLNumbers (a double, or an exact 64-bit integer for bigints and large JSON integers).
struct DynValue {
  using Array = std::vector<DynValue>;
  // An object's members in their original order (a repeated key: the last one counts, as in JS).
  using Object = std::vector<std::pair<std::string, DynValue>>;
  using Variant =
      std::variant<std::monostate, bool, MLNumber, std::string, Array, Object, MLOperand>;

  Variant value;

  DynValue() = default;
  DynValue(std::nullptr_t) {}         // NOLINT: null
  DynValue(bool b) : value(b) {}      // NOLINT
  DynValue(MLNumber n) : value(n) {}  // NOLINT
  template <class N>
  requires(std::is_arithmetic_v<N> && !std::is_same_v<N, bool>) DynValue(N n)
      : value(number_of(n)) {}                             // NOLINT
  DynValue(const char* s) : value(std::string(s)) {}       // NOLINT
  DynValue(std::string s) : value(std::move(s)) {}         // NOLINT
  DynValue(std::string_view s) : value(std::string(s)) {}  // NOLINT
  DynValue(Array a) : value(std::move(a)) {}               // NOLINT
  DynValue(Object o) : value(std::move(o)) {}              // NOLINT
  DynValue(MLOperand o) : value(std::move(o)) {}           // NOLINT

  // DynValue::array({1, 2}) and DynValue::object({{"axis", 1}, {"label", "x"}}).
  static DynValue array(std::initializer_list<DynValue> items) { return DynValue(Array(items)); }
  static DynValue object(std::initializer_list<std::pair<std::string, DynValue>> members) {
    return DynValue(Object(members));
  }

  bool is_undefined() const { return std::holds_alternative<std::monostate>(value); }
  template <class T>
  bool is() const {
    return std::holds_alternative<T>(value);
  }
  template <class T>
  const T* get_if() const {
    return std::get_if<T>(&value);
  }
  template <class T>
  T* get_if() {
    return std::get_if<T>(&value);
  }
  // The member `key` of an object (the last one when repeated); nullptr when absent or when this
  // is not an object.
  const DynValue* find(std::string_view key) const;
  DynValue* find(std::string_view key);
  // "undefined", "boolean", "number", "string", "array", "object" or "MLOperand" (for messages).
  std::string_view type_name() const;

 private:
  template <class N>
  static MLNumber number_of(N n) {
    if constexpr (std::is_floating_point_v<N>)
      return MLNumber(static_cast<double>(n));
    else if constexpr (std::is_signed_v<N>)
      return MLNumber(static_cast<long long>(n));
    else
      return MLNumber(static_cast<unsigned long long>(n));
  }
};

// One decoded operation call, ready for MLGraphBuilder::record().
struct DynCall {
  OpType type = OpType::kIdentity;
  std::vector<MLOperand> operands;  // the positional operands
  OpAttributes attrs;               // positional parameters and options

  // The op's inputs in Operation::inputs order: the positional operands, then the operand-valued
  // options in field order (nullopt where absent).
  std::vector<std::optional<MLOperand>> inputs() const;
};

// Converts the arguments of builder operation `method` (one of the 95 of ops.def) as WebIDL
// would: the positional arguments of the op's signature kind, then the optional options
// dictionary (undefined or null: the defaults; unknown keys are ignored). Numbers: `unsigned
// long` and `long` are [EnforceRange] (finite, truncated toward zero, in range) except tile's
// `repetitions` (modulo 2^32); `double` and `float` must be finite; MLNumber accepts NaN and
// +-Infinity. The strings "NaN", "Infinity" and "-Infinity" are accepted wherever a number is
// (as JavaScript's ToNumber reads them; JSON spells non-finite numbers that way); any other
// value of the wrong kind is a TypeError. Throws TypeError for an unknown method.
DynCall decode_builder_call(std::string_view method, std::span<const DynValue> args);

// decode_builder_call() then builder.record(): the op's output operands (one, or several for
// split, gru, lstm and lstmCell).
std::vector<MLOperand> call_builder_method(MLGraphBuilder& builder, std::string_view method,
                                           std::span<const DynValue> args);

// An MLOperandDescriptor from {dataType: "float32", shape: [2, 3]} (shape dimensions are
// [EnforceRange] unsigned long). TypeError for a missing member, an unknown data type or a bad
// dimension; `what` starts the message ("input: descriptor").
MLOperandDescriptor descriptor_from_dyn(const DynValue& value,
                                        std::string_view what = "descriptor");

}  // namespace cppnn

#pragma GCC visibility pop
