// The dynamic builder call (include/cppnn/dynamic_call.h): WebIDL-style conversion of
// JavaScript-like arguments into an op's positional parameters and options. The per-op dispatch
// is generated from ops.def; options are decoded generically through their reflected fields, with
// one converter per field type.
#include "cppnn/dynamic_call.h"

#include <cmath>
#include <limits>

#include "cppnn/enums.h"
#include "cppnn/errors.h"
#include "cppnn/reflect.h"
#include "src/ops/op_limits.h"

namespace cppnn {

// ---- DynValue -----------------------------------------------------------------------------------

const DynValue* DynValue::find(std::string_view key) const {
  const Object* o = get_if<Object>();
  if (!o) return nullptr;
  for (auto it = o->rbegin(); it != o->rend(); ++it)
    if (it->first == key) return &it->second;
  return nullptr;
}

DynValue* DynValue::find(std::string_view key) {
  return const_cast<DynValue*>(static_cast<const DynValue*>(this)->find(key));
}

std::string_view DynValue::type_name() const {
  static constexpr std::string_view kNames[] = {"undefined", "boolean", "number",   "string",
                                                "array",     "object",  "MLOperand"};
  return kNames[value.index()];
}

namespace {

// Where a value is converted: the method and the argument or option name (plus a list index), so
// that messages read "conv2d: padding[2] is outside the unsigned long range".
struct Where {
  std::string_view method;
  std::string_view name;
  long index = -1;

  Where at(size_t i) const { return {method, name, static_cast<long>(i)}; }
  std::string str() const {
    std::string s = std::string(method) + ": " + std::string(name);
    if (index >= 0) s += "[" + std::to_string(index) + "]";
    return s;
  }
};

[[noreturn]] void fail(const Where& w, const std::string& what) {
  throw TypeError(w.str() + " " + what);
}

[[noreturn]] void fail_kind(const Where& w, std::string_view expected, const DynValue& v) {
  fail(w, "must be " + std::string(expected) + ", got " + std::string(v.type_name()));
}

// The value as a number: an MLNumber, or one of the strings JSON uses for non-finite numbers.
MLNumber to_number(const DynValue& v, const Where& w) {
  if (const MLNumber* n = v.get_if<MLNumber>()) return *n;
  if (const std::string* s = v.get_if<std::string>()) {
    if (*s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (*s == "Infinity") return std::numeric_limits<double>::infinity();
    if (*s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  fail_kind(w, "a number", v);
}

// [EnforceRange] integer conversion to [lo, hi] (WebIDL ConvertToInt with EnforceRange).
int64_t enforce_range(const DynValue& v, const Where& w, int64_t lo, int64_t hi,
                      std::string_view type) {
  const MLNumber n = to_number(v, w);
  auto out_of_range = [&]() -> std::string {
    return "is outside the " + std::string(type) + " range";
  };
  switch (n.kind()) {
    case MLNumber::Kind::kDouble: {
      const double d = n.as_double();
      if (!std::isfinite(d)) fail(w, "must be a finite number");
      const double t = std::trunc(d);
      if (t < static_cast<double>(lo) || t > static_cast<double>(hi)) fail(w, out_of_range());
      return static_cast<int64_t>(t);
    }
    case MLNumber::Kind::kInt64:
      if (n.raw_int64() < lo || n.raw_int64() > hi) fail(w, out_of_range());
      return n.raw_int64();
    case MLNumber::Kind::kUint64:
      if (n.raw_uint64() > static_cast<uint64_t>(hi)) fail(w, out_of_range());
      return static_cast<int64_t>(n.raw_uint64());
  }
  fail(w, out_of_range());
}

uint32_t to_unsigned_long(const DynValue& v, const Where& w) {
  return static_cast<uint32_t>(enforce_range(v, w, 0, UINT32_MAX, "unsigned long"));
}

// `unsigned long` without [EnforceRange] (WebIDL ToUint32: NaN and +-Infinity give 0, otherwise
// truncate and wrap modulo 2^32).
uint32_t to_uint32_modulo(const DynValue& v, const Where& w) {
  const MLNumber n = to_number(v, w);
  switch (n.kind()) {
    case MLNumber::Kind::kDouble: {
      const double d = n.as_double();
      if (!std::isfinite(d)) return 0;
      double m = std::fmod(std::trunc(d), 4294967296.0);
      if (m < 0) m += 4294967296.0;
      return static_cast<uint32_t>(m);
    }
    case MLNumber::Kind::kInt64:
      return static_cast<uint32_t>(static_cast<uint64_t>(n.raw_int64()));
    case MLNumber::Kind::kUint64:
      return static_cast<uint32_t>(n.raw_uint64());
  }
  return 0;
}

double to_double(const DynValue& v, const Where& w) {
  const double d = to_number(v, w).as_double();
  if (!std::isfinite(d)) fail(w, "must be a finite number (WebIDL double)");
  return d;
}

float to_float(const DynValue& v, const Where& w) {
  const double d = to_number(v, w).as_double();
  if (!std::isfinite(d)) fail(w, "must be a finite number (WebIDL float)");
  // Values from halfway between FLT_MAX and 2^128 up round to infinity (WebIDL: TypeError).
  if (std::fabs(d) >= 0x1.ffffffp127) fail(w, "is outside the float range");
  return static_cast<float>(d);
}

const std::string& to_string_value(const DynValue& v, const Where& w) {
  if (const std::string* s = v.get_if<std::string>()) return *s;
  fail_kind(w, "a string", v);
}

template <class E>
E to_enum(const DynValue& v, const Where& w) {
  const std::string& s = to_string_value(v, w);
  if (auto e = enum_from_string<E>(s)) return *e;
  std::string allowed;
  for (const auto& [value, str] : EnumStrings<E>::values)
    allowed += (allowed.empty() ? "\"" : ", \"") + std::string(str) + "\"";
  fail(w, "\"" + s + "\" is not one of " + allowed);
}

MLOperand to_operand(const DynValue& v, const Where& w) {
  if (const MLOperand* o = v.get_if<MLOperand>()) return *o;
  fail_kind(w, "an MLOperand", v);
}

const DynValue::Array& to_sequence(const DynValue& v, const Where& w) {
  if (const DynValue::Array* a = v.get_if<DynValue::Array>()) return *a;
  fail_kind(w, "a sequence", v);
}

std::vector<uint32_t> to_unsigned_long_list(const DynValue& v, const Where& w) {
  const DynValue::Array& a = to_sequence(v, w);
  std::vector<uint32_t> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) out.push_back(to_unsigned_long(a[i], w.at(i)));
  return out;
}

// ---- option fields: one converter per field type ---------------------------------------------

template <class T>
struct ListElement {
  using type = void;
};
template <class T>
struct ListElement<OptionalList<T>> {
  using type = T;
};
template <class T>
inline constexpr bool kIsOptionalList = !std::is_void_v<typename ListElement<T>::type>;

template <class T>
inline constexpr bool kIsEnum = requires {
  EnumStrings<T>::values;
};

template <class>
inline constexpr bool kNoConverter = false;

template <class T>
T convert(const DynValue& v, const Where& w) {
  if constexpr (std::is_same_v<T, bool>) {
    if (const bool* b = v.get_if<bool>()) return *b;
    fail_kind(w, "a boolean", v);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return to_unsigned_long(v, w);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return static_cast<int32_t>(enforce_range(v, w, INT32_MIN, INT32_MAX, "long"));
  } else if constexpr (std::is_same_v<T, double>) {
    return to_double(v, w);
  } else if constexpr (std::is_same_v<T, float>) {
    return to_float(v, w);
  } else if constexpr (std::is_same_v<T, MLNumber> || std::is_same_v<T, std::optional<MLNumber>>) {
    return to_number(v, w);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return to_string_value(v, w);
  } else if constexpr (kIsEnum<T>) {
    return to_enum<T>(v, w);
  } else if constexpr (std::is_same_v<T, std::optional<MLOperand>>) {
    return to_operand(v, w);
  } else if constexpr (kIsOptionalList<T>) {
    using E = typename ListElement<T>::type;
    const DynValue::Array& a = to_sequence(v, w);
    std::vector<E> out;
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) out.push_back(convert<E>(a[i], w.at(i)));
    return T(std::move(out));
  } else {
    static_assert(kNoConverter<T>, "dynamic_call.cpp has no converter for this option field type");
  }
}

// A WebIDL dictionary: undefined or null give the defaults, unknown keys are ignored, and an
// undefined member (null included) is absent.
template <class Options>
Options decode_options(const DynValue& v, std::string_view method) {
  Options options{};
  if (v.is_undefined()) return options;
  if (!v.is<DynValue::Object>()) fail_kind(Where{method, "options"}, "an object", v);
  reflect::for_each_field<Options>([&](auto field) {
    using T = typename decltype(field)::type;
    const DynValue* member = v.find(field.name);
    if (!member || member->is_undefined()) return;
    options.*field.member = convert<T>(*member, Where{method, field.name});
  });
  return options;
}

// ---- positional parameters per signature kind --------------------------------------------------

// The arguments of one call, with the names used in messages.
class Args {
 public:
  Args(OpType type, std::span<const DynValue> args) : type_(type), args_(args) {}

  std::string_view method() const { return op_name(type_); }
  OpType type() const { return type_; }
  const DynValue& operator[](size_t i) const { return i < args_.size() ? args_[i] : kUndefined; }
  Where where(std::string_view name) const { return {method(), name}; }

  // Positional operand `i` (named after the op's input role when it has one).
  MLOperand operand(size_t i) const {
    const auto& roles = op_limits(type_).inputs;
    std::string_view name =
        i < roles.size() && !roles[i].name.empty() ? roles[i].name : kOperandNames[i];
    return to_operand((*this)[i], where(name));
  }
  // A required (non-operand) positional parameter.
  const DynValue& required(size_t i, std::string_view name) const {
    const DynValue& v = (*this)[i];
    if (v.is_undefined()) fail(where(name), "is required");
    return v;
  }

 private:
  static inline const DynValue kUndefined{};
  static constexpr std::string_view kOperandNames[] = {"operand 0", "operand 1", "operand 2",
                                                       "operand 3", "operand 4"};
  OpType type_;
  std::span<const DynValue> args_;
};

// Each returns the index of the options argument.
template <size_t N>
size_t operands_only(const Args& a, std::vector<MLOperand>& ops) {
  for (size_t i = 0; i < N; ++i) ops.push_back(a.operand(i));
  return N;
}
size_t positional(sig::Unary, const Args& a, std::vector<MLOperand>& ops, NoParams&) {
  return operands_only<1>(a, ops);
}
size_t positional(sig::Binary, const Args& a, std::vector<MLOperand>& ops, NoParams&) {
  return operands_only<2>(a, ops);
}
size_t positional(sig::Ternary, const Args& a, std::vector<MLOperand>& ops, NoParams&) {
  return operands_only<3>(a, ops);
}
size_t positional(sig::Axis, const Args& a, std::vector<MLOperand>& ops, AxisParams& p) {
  ops.push_back(a.operand(0));
  p.axis = to_unsigned_long(a.required(1, "axis"), a.where("axis"));
  return 2;
}
size_t positional(sig::Cast, const Args& a, std::vector<MLOperand>& ops, CastParams& p) {
  ops.push_back(a.operand(0));
  p.dataType = to_enum<MLOperandDataType>(a.required(1, "dataType"), a.where("dataType"));
  return 2;
}
size_t positional(sig::Concat, const Args& a, std::vector<MLOperand>& ops, AxisParams& p) {
  const DynValue::Array& list = to_sequence(a.required(0, "inputs"), a.where("inputs"));
  for (size_t i = 0; i < list.size(); ++i)
    ops.push_back(to_operand(list[i], a.where("inputs").at(i)));
  p.axis = to_unsigned_long(a.required(1, "axis"), a.where("axis"));
  return 2;
}
size_t positional(sig::Shape, const Args& a, std::vector<MLOperand>& ops, ShapeParams& p) {
  ops.push_back(a.operand(0));
  if (a.type() == OpType::kTile) {  // sequence<unsigned long> repetitions: no [EnforceRange]
    const Where w = a.where("repetitions");
    const DynValue::Array& list = to_sequence(a.required(1, "repetitions"), w);
    for (size_t i = 0; i < list.size(); ++i) p.shape.push_back(to_uint32_modulo(list[i], w.at(i)));
  } else {
    p.shape = to_unsigned_long_list(a.required(1, "newShape"), a.where("newShape"));
  }
  return 2;
}
size_t positional(sig::TwoLists, const Args& a, std::vector<MLOperand>& ops, TwoListParams& p) {
  const bool pad = a.type() == OpType::kPad;
  const std::string_view first = pad ? "beginningPadding" : "starts";
  const std::string_view second = pad ? "endingPadding" : "sizes";
  ops.push_back(a.operand(0));
  p.first = to_unsigned_long_list(a.required(1, first), a.where(first));
  p.second = to_unsigned_long_list(a.required(2, second), a.where(second));
  return 3;
}
size_t positional(sig::Split, const Args& a, std::vector<MLOperand>& ops, SplitParams& p) {
  ops.push_back(a.operand(0));
  const DynValue& splits = a.required(1, "splits");
  if (splits.is<DynValue::Array>())
    p.splits = to_unsigned_long_list(splits, a.where("splits"));
  else
    p.splits = to_unsigned_long(splits, a.where("splits"));
  return 2;
}
size_t positional(sig::Recurrent, const Args& a, std::vector<MLOperand>& ops, RecurrentParams& p) {
  operands_only<3>(a, ops);
  p.steps = to_unsigned_long(a.required(3, "steps"), a.where("steps"));
  p.hiddenSize = to_unsigned_long(a.required(4, "hiddenSize"), a.where("hiddenSize"));
  return 5;
}
size_t positional(sig::GruCell, const Args& a, std::vector<MLOperand>& ops, CellParams& p) {
  operands_only<4>(a, ops);
  p.hiddenSize = to_unsigned_long(a.required(4, "hiddenSize"), a.where("hiddenSize"));
  return 5;
}
size_t positional(sig::LstmCell, const Args& a, std::vector<MLOperand>& ops, CellParams& p) {
  operands_only<5>(a, ops);
  p.hiddenSize = to_unsigned_long(a.required(5, "hiddenSize"), a.where("hiddenSize"));
  return 6;
}

template <OpType T>
DynCall decode(std::span<const DynValue> args) {
  using Info = OpInfo<T>;
  const Args a(T, args);
  DynCall call;
  call.type = T;
  typename AttrsOf<T>::Params params{};
  const size_t options_index = positional(typename Info::Signature{}, a, call.operands, params);
  auto options = decode_options<typename Info::Options>(a[options_index], a.method());
  call.attrs = OpAttributes(std::in_place_index<static_cast<size_t>(T)>,
                            AttrsOf<T>{std::move(params), std::move(options)});
  return call;
}

}  // namespace

// ---- DynCall and the entry points ---------------------------------------------------------------

std::vector<std::optional<MLOperand>> DynCall::inputs() const {
  std::vector<std::optional<MLOperand>> out(operands.begin(), operands.end());
  std::visit(
      [&](const auto& a) {
        if constexpr (requires { a.options; }) {
          using Options = std::decay_t<decltype(a.options)>;
          reflect::for_each_field<Options>([&](auto field) {
            if constexpr (std::is_same_v<typename decltype(field)::type, std::optional<MLOperand>>)
              out.push_back(a.options.*field.member);
          });
        }
      },
      attrs);
  return out;
}

DynCall decode_builder_call(std::string_view method, std::span<const DynValue> args) {
  OpType type;
  if (!op_from_name(method, type))
    throw TypeError("\"" + std::string(method) + "\" is not an MLGraphBuilder operation");
  switch (type) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return decode<OpType::k##E>(args);
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  throw TypeError("\"" + std::string(method) + "\" is not an MLGraphBuilder operation");
}

std::vector<MLOperand> call_builder_method(MLGraphBuilder& builder, std::string_view method,
                                           std::span<const DynValue> args) {
  DynCall call = decode_builder_call(method, args);
  return builder.record(call.type, call.operands, std::move(call.attrs));
}

MLOperandDescriptor descriptor_from_dyn(const DynValue& value, std::string_view what) {
  if (!value.is<DynValue::Object>()) fail_kind(Where{what, "descriptor"}, "an object", value);
  MLOperandDescriptor d;
  const DynValue* type = value.find("dataType");
  if (!type || type->is_undefined()) fail(Where{what, "dataType"}, "is required");
  d.dataType = to_enum<MLOperandDataType>(*type, Where{what, "dataType"});
  const DynValue* shape = value.find("shape");
  if (!shape || shape->is_undefined()) fail(Where{what, "shape"}, "is required");
  d.shape = to_unsigned_long_list(*shape, Where{what, "shape"});
  return d;
}

}  // namespace cppnn
