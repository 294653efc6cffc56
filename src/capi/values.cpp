// cppnn_value trees and JSON text as DynValues, and recording a generic call's outputs (the C
// API's cppnn_builder_call and its typed forms).
#include "src/capi/values.h"

#include <nlohmann/json.hpp>

namespace cppnn::capi {
namespace {

// A parsed JSON value as a DynValue (integers stay exact 64-bit numbers).
DynValue from_json(const nlohmann::json& j, const std::string& method, const std::string& where,
                   int depth) {
  if (depth > kMaxValueDepth)
    throw TypeError(method + ": " + where + ": nested deeper than " +
                    std::to_string(kMaxValueDepth) + " levels");
  switch (j.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return DynValue();
    case nlohmann::json::value_t::boolean:
      return DynValue(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return DynValue(MLNumber(static_cast<long long>(j.get<int64_t>())));
    case nlohmann::json::value_t::number_unsigned:
      return DynValue(MLNumber(static_cast<unsigned long long>(j.get<uint64_t>())));
    case nlohmann::json::value_t::number_float:
      return DynValue(MLNumber(j.get<double>()));
    case nlohmann::json::value_t::string:
      return DynValue(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      DynValue::Array a;
      a.reserve(j.size());
      for (const nlohmann::json& item : j) a.push_back(from_json(item, method, where, depth + 1));
      return DynValue(std::move(a));
    }
    case nlohmann::json::value_t::object: {
      DynValue::Object o;
      o.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it)
        o.emplace_back(it.key(), from_json(it.value(), method, where, depth + 1));
      return DynValue(std::move(o));
    }
    case nlohmann::json::value_t::binary:
      break;
  }
  throw TypeError(method + ": " + where + ": binary JSON values are not arguments");
}

DynValue convert(const cppnn_value& v, const std::string& method, const std::string& where,
                 int depth) {
  if (depth > kMaxValueDepth)
    throw TypeError(method + ": " + where + ": nested deeper than " +
                    std::to_string(kMaxValueDepth) + " levels");
  auto null_check = [&](const void* p, const char* what) {
    if (!p) throw TypeError(method + ": " + where + ": " + what + " is NULL");
  };
  const long long kind = raw_enum(v.kind);
  if (kind < CPPNN_VALUE_UNDEFINED || kind > CPPNN_VALUE_JSON)
    throw TypeError(method + ": " + where + ": value kind " + std::to_string(kind) +
                    " is not a cppnn_value_kind");
  switch (v.kind) {
    case CPPNN_VALUE_UNDEFINED:
      return DynValue();
    case CPPNN_VALUE_BOOL:
      return DynValue(v.as.boolean);
    case CPPNN_VALUE_DOUBLE:
      return DynValue(MLNumber(v.as.number));
    case CPPNN_VALUE_INT64:
      return DynValue(MLNumber(static_cast<long long>(v.as.int64)));
    case CPPNN_VALUE_UINT64:
      return DynValue(MLNumber(static_cast<unsigned long long>(v.as.uint64)));
    case CPPNN_VALUE_STRING:
      null_check(v.as.string, "the string");
      return DynValue(std::string(v.as.string));
    case CPPNN_VALUE_OPERAND:
      null_check(v.as.operand, "the operand");
      return DynValue(v.as.operand->operand);
    case CPPNN_VALUE_ARRAY: {
      if (v.as.array.count > 0) null_check(v.as.array.items, "the array's items");
      DynValue::Array a;
      a.reserve(v.as.array.count);
      for (size_t i = 0; i < v.as.array.count; ++i)
        a.push_back(
            convert(v.as.array.items[i], method, where + "[" + std::to_string(i) + "]", depth + 1));
      return DynValue(std::move(a));
    }
    case CPPNN_VALUE_OBJECT: {
      if (v.as.object.count > 0) null_check(v.as.object.members, "the object's members");
      DynValue::Object o;
      o.reserve(v.as.object.count);
      for (size_t i = 0; i < v.as.object.count; ++i) {
        const cppnn_member& m = v.as.object.members[i];
        null_check(m.key, "a member's key");
        o.emplace_back(m.key, convert(m.value, method, where + "." + m.key, depth + 1));
      }
      return DynValue(std::move(o));
    }
    case CPPNN_VALUE_JSON: {
      null_check(v.as.string, "the JSON text");
      nlohmann::json j = nlohmann::json::parse(v.as.string, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) throw TypeError(method + ": " + where + ": invalid JSON text");
      return from_json(j, method, where, depth);
    }
  }
  throw TypeError(method + ": " + where + ": value kind " + std::to_string(int(v.kind)) +
                  " is not a cppnn_value_kind");
}

}  // namespace

DynValue dyn_value_of(const cppnn_value& value, const std::string& method,
                      const std::string& where) {
  return convert(value, method, where, 0);
}

void record_call(cppnn_builder& builder, const std::string& method, std::span<const DynValue> args,
                 cppnn_operand** outputs, size_t capacity, size_t* output_count) {
  std::vector<MLOperand> results = call_builder_method(builder.builder, method, args);
  if (output_count) *output_count = results.size();
  if (results.size() > capacity)
    throw TypeError(method + ": makes " + std::to_string(results.size()) +
                    " outputs, room was given for " + std::to_string(capacity));
  for (size_t i = 0; i < results.size(); ++i) outputs[i] = builder.adopt(results[i]);
}

cppnn_operand* record_single(cppnn_builder& builder, const std::string& method,
                             std::span<const DynValue> args) {
  cppnn_operand* out = nullptr;
  record_call(builder, method, args, &out, 1, nullptr);
  return out;
}

}  // namespace cppnn::capi
