// JavaScript -> cppnn value conversions (values.h).
#include "values.h"

#include <napi.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "addon_data.h"
#include "cppnn/enums.h"
#include "cppnn/errors.h"
#include "cppnn/graph_builder.h"
#include "objects.h"

namespace cppnn::node {
namespace {

constexpr int kMaxDepth = 64;

// A bigint as an MLNumber: exact when it fits int64 or uint64, else saturated to the nearest
// of the two ends (the §3.6 cast clamps to the data type's range afterwards anyway).
MLNumber bigint_number(Napi::BigInt b) {
  bool lossless = false;
  const int64_t s = b.Int64Value(&lossless);
  if (lossless) return MLNumber(static_cast<long long>(s));
  const uint64_t u = b.Uint64Value(&lossless);
  if (lossless) return MLNumber(static_cast<unsigned long long>(u));
  int sign = 0;
  size_t words = 0;
  b.ToWords(&sign, &words, nullptr);
  if (sign) return MLNumber(std::numeric_limits<long long>::min());
  return MLNumber(std::numeric_limits<unsigned long long>::max());
}

}  // namespace

DynValue to_dyn(Napi::Value value, std::string_view what, int depth) {
  Napi::Env env = value.Env();
  if (depth > kMaxDepth)
    throw TypeError(std::string(what) + ": the value nests deeper than 64 levels");
  switch (value.Type()) {
    case napi_undefined:
    case napi_null:
      return DynValue();
    case napi_boolean:
      return DynValue(value.As<Napi::Boolean>().Value());
    case napi_number:
      return DynValue(MLNumber(value.As<Napi::Number>().DoubleValue()));
    case napi_bigint:
      return DynValue(bigint_number(value.As<Napi::BigInt>()));
    case napi_string:
      return DynValue(value.As<Napi::String>().Utf8Value());
    case napi_symbol:
      throw TypeError(std::string(what) + ": a Symbol cannot be converted");
    default:
      break;
  }
  Napi::Object object = value.As<Napi::Object>();
  if (const MLOperand* operand = unwrap_operand(value)) return DynValue(*operand);
  if (value.IsArray() || value.IsTypedArray()) {
    const uint32_t n = value.IsArray()
                           ? value.As<Napi::Array>().Length()
                           : static_cast<uint32_t>(value.As<Napi::TypedArray>().ElementLength());
    DynValue::Array items;
    items.reserve(n);
    for (uint32_t i = 0; i < n; ++i) items.push_back(to_dyn(object.Get(i), what, depth + 1));
    return DynValue(std::move(items));
  }
  DynValue::Object members;
  Napi::Array keys = object.GetPropertyNames();
  for (uint32_t i = 0; i < keys.Length(); ++i) {
    Napi::Value key = keys.Get(i);
    members.emplace_back(key.ToString().Utf8Value(), to_dyn(object.Get(key), what, depth + 1));
  }
  (void)env;
  return DynValue(std::move(members));
}

MLNumber to_number(Napi::Value value, std::string_view what) {
  if (value.IsBigInt()) return bigint_number(value.As<Napi::BigInt>());
  if (value.IsSymbol()) throw TypeError(std::string(what) + ": a Symbol is not a number");
  return MLNumber(value.ToNumber().DoubleValue());
}

MLOperandDescriptor to_operand_descriptor(Napi::Value value, std::string_view what) {
  if (!value.IsObject()) throw TypeError(std::string(what) + " must be an object");
  Napi::Object o = value.As<Napi::Object>();
  // Only the two members matter: a dictionary conversion reads them by name.
  DynValue d = DynValue::object(
      {{"dataType", to_dyn(o.Get("dataType"), what)}, {"shape", to_dyn(o.Get("shape"), what)}});
  return descriptor_from_dyn(d, what);
}

MLTensorDescriptor to_tensor_descriptor(Napi::Value value, std::string_view what) {
  const MLOperandDescriptor d = to_operand_descriptor(value, what);
  Napi::Object o = value.As<Napi::Object>();
  return MLTensorDescriptor::of(d, o.Get("readable").ToBoolean().Value(),
                                o.Get("writable").ToBoolean().Value());
}

std::span<std::byte> buffer_bytes(Napi::Value value, std::string_view what) {
  napi_env env = value.Env();
  if (value.IsArrayBuffer()) {
    if (is_detached(value)) throw TypeError(std::string(what) + ": the buffer is detached");
    Napi::ArrayBuffer b = value.As<Napi::ArrayBuffer>();
    return {static_cast<std::byte*>(b.Data()), b.ByteLength()};
  }
  if (value.IsTypedArray() || value.IsDataView()) {
    if (is_detached(value)) throw TypeError(std::string(what) + ": the buffer is detached");
    void* data = nullptr;
    size_t length = 0;
    napi_status status;
    if (value.IsTypedArray()) {
      napi_typedarray_type type;
      size_t elements = 0;
      status = napi_get_typedarray_info(env, value, &type, &elements, &data, nullptr, nullptr);
      length = value.As<Napi::TypedArray>().ByteLength();
    } else {
      status = napi_get_dataview_info(env, value, &length, &data, nullptr, nullptr);
    }
    NAPI_THROW_IF_FAILED(env, status, {});
    return {static_cast<std::byte*>(data), length};
  }
  Napi::Value shared = Napi::Env(env).Global().Get("SharedArrayBuffer");
  if (value.IsObject() && shared.IsFunction() &&
      value.As<Napi::Object>().InstanceOf(shared.As<Napi::Function>())) {
    Napi::Function uint8 = Napi::Env(env).Global().Get("Uint8Array").As<Napi::Function>();
    return buffer_bytes(uint8.New({value}), what);  // a view of the whole shared buffer
  }
  throw TypeError(std::string(what) +
                  " must be an ArrayBuffer, a SharedArrayBuffer, a typed array or a DataView");
}

namespace {

// The typed array type of data of `type` (§3.1); napi_uint8_array where only a Uint8Array fits.
napi_typedarray_type view_type_of(MLOperandDataType type) {
  switch (type) {
    case MLOperandDataType::kFloat32:
      return napi_float32_array;
    case MLOperandDataType::kFloat16:
      return napi_uint16_array;  // Node has no Float16Array: the raw bits (WPT accepts them)
    case MLOperandDataType::kInt32:
      return napi_int32_array;
    case MLOperandDataType::kUint32:
      return napi_uint32_array;
    case MLOperandDataType::kInt64:
      return napi_bigint64_array;
    case MLOperandDataType::kUint64:
      return napi_biguint64_array;
    case MLOperandDataType::kInt8:
      return napi_int8_array;
    default:
      return napi_uint8_array;  // uint8, and int4/uint4 packed two per byte
  }
}

// "Uint8Array", "DataView", ... for messages.
std::string view_name(Napi::Value value) {
  Napi::Value ctor = value.As<Napi::Object>().Get("constructor");
  if (ctor.IsFunction()) return ctor.As<Napi::Function>().Get("name").ToString().Utf8Value();
  return "view";
}

}  // namespace

std::span<std::byte> typed_buffer_bytes(Napi::Value value, MLOperandDataType type,
                                        std::string_view what) {
  const std::span<std::byte> bytes = buffer_bytes(value, what);
  if (value.IsDataView() ||
      (value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array &&
       value.As<Napi::TypedArray>().TypedArrayType() != view_type_of(type)))
    throw TypeError(std::string(what) + ": a " + view_name(value) + " cannot hold " +
                    std::string(data_type_name(type)) +
                    " data (use an ArrayBuffer, a Uint8Array or the matching typed array)");
  return bytes;
}

bool is_detached(Napi::Value value) {
  napi_env env = value.Env();
  napi_value buffer = value;
  if (value.IsTypedArray()) {
    buffer = value.As<Napi::TypedArray>().ArrayBuffer();
  } else if (value.IsDataView()) {
    buffer = value.As<Napi::DataView>().ArrayBuffer();
  } else if (!value.IsArrayBuffer()) {
    return false;
  }
  bool detached = false;
  if (napi_is_detached_arraybuffer(env, buffer, &detached) != napi_ok) return false;
  return detached;
}

}  // namespace cppnn::node
