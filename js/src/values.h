// JavaScript values -> cppnn values, following WebIDL where the C++ API leaves the conversion to
// its caller: DynValues for the generic op call (which applies the rest of WebIDL's rules),
// MLNumbers (bigint exact), descriptors, buffer sources and records.
#pragma once

#include <napi.h>

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "cppnn/descriptor.h"
#include "cppnn/dynamic_call.h"
#include "cppnn/number.h"
#include "cppnn/tensor.h"

namespace cppnn::node {

// undefined/null -> undefined, boolean, number, bigint (exact 64-bit; saturated beyond), string,
// MLOperand, arrays and typed arrays -> array, any other object -> its enumerable properties.
// TypeError naming `what` for a symbol, or nesting deeper than 64 (a cycle).
DynValue to_dyn(Napi::Value value, std::string_view what, int depth = 0);
// An MLNumber (bigint or unrestricted double); TypeError for anything else that ToNumber
// rejects (symbols, bigint-less objects are converted with ToNumber as WebIDL does).
MLNumber to_number(Napi::Value value, std::string_view what);
// MLOperandDescriptor {dataType, shape}.
MLOperandDescriptor to_operand_descriptor(Napi::Value value, std::string_view what);
// MLTensorDescriptor {dataType, shape, readable = false, writable = false}.
MLTensorDescriptor to_tensor_descriptor(Napi::Value value, std::string_view what);
// The bytes of an AllowSharedBufferSource (ArrayBuffer, SharedArrayBuffer, typed array or
// DataView); TypeError naming `what` for anything else or a detached buffer.
std::span<std::byte> buffer_bytes(Napi::Value value, std::string_view what);
// The bytes of an AllowSharedBufferSource for data of `type` ("validate buffer with descriptor",
// webnn-spec.md §3.2): an ArrayBuffer or SharedArrayBuffer, or a Uint8Array, or the typed array
// of `type` (Uint16Array for float16; int4/uint4 take a Uint8Array); TypeError otherwise. The
// byte length is the caller's to check.
std::span<std::byte> typed_buffer_bytes(Napi::Value value, MLOperandDataType type,
                                        std::string_view what);
// True when `value` is a buffer source whose ArrayBuffer has been detached.
bool is_detached(Napi::Value value);
// The own enumerable string-keyed properties of a record<USVString, T> argument, converted by
// `convert`; TypeError naming `what` when it is not an object.
template <class T, class Convert>
std::map<std::string, T> to_record(Napi::Value value, std::string_view what, Convert convert) {
  if (!value.IsObject())
    throw Napi::TypeError::New(value.Env(), std::string(what) + " must be an object");
  Napi::Object object = value.As<Napi::Object>();
  Napi::Array keys = object.GetPropertyNames();
  std::map<std::string, T> out;
  for (uint32_t i = 0; i < keys.Length(); ++i) {
    Napi::Value key = keys.Get(i);
    if (!object.HasOwnProperty(key)) continue;
    const std::string name = key.ToString().Utf8Value();
    out.insert_or_assign(name, convert(object.Get(key), name));
  }
  return out;
}

}  // namespace cppnn::node
