#include "src/export/coreml/emitter.h"

#include <cstring>
#include <limits>

#include "cppnn/errors.h"

namespace cppnn::coreml_export {
namespace {

// The WebNN type whose MLNumber cast gives a MIL scalar's value.
MLOperandDataType webnn_type_of(mil::DataType type) {
  switch (type) {
    case mil::FLOAT32:
      return MLOperandDataType::kFloat32;
    case mil::FLOAT16:
      return MLOperandDataType::kFloat16;
    case mil::INT32:
      return MLOperandDataType::kInt32;
    case mil::INT8:
      return MLOperandDataType::kInt8;
    case mil::UINT8:
    case mil::BOOL:
      return MLOperandDataType::kUint8;
    default:
      break;
  }
  throw NotSupportedError("coreml: no scalar constant of element type " + std::to_string(type));
}

size_t element_count(std::span<const int64_t> shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

mil::Value string_value(std::string_view s) {
  mil::Value v;
  v.mutable_type()->mutable_tensortype()->set_datatype(mil::STRING);
  v.mutable_immediatevalue()->mutable_tensor()->mutable_strings()->add_values(std::string(s));
  return v;
}

// The immediate TensorValue of `bytes` (coremltools' field per type: floats for fp32, bytes for
// fp16/int8/uint8, ints for int32, bools for bool).
void fill_immediate(mil::TensorValue* t, mil::DataType type, std::span<const std::byte> bytes) {
  const size_t n = bytes.size() / mil_type_bytes(type);
  switch (type) {
    case mil::FLOAT32: {
      auto* f = t->mutable_floats();
      for (size_t i = 0; i < n; ++i) {
        float v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        f->add_values(v);
      }
      return;
    }
    case mil::INT32: {
      auto* f = t->mutable_ints();
      for (size_t i = 0; i < n; ++i) {
        int32_t v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        f->add_values(v);
      }
      return;
    }
    case mil::BOOL: {
      auto* f = t->mutable_bools();
      for (size_t i = 0; i < n; ++i) f->add_values(bytes[i] != std::byte{0});
      return;
    }
    case mil::FLOAT16:
    case mil::INT8:
    case mil::UINT8:
      t->mutable_bytes()->set_values(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      return;
    default:
      break;
  }
  throw NotSupportedError("coreml: no immediate constant of element type " + std::to_string(type));
}

}  // namespace

std::string describe(const MilType& type) {
  std::string s = std::string("tensor<") + mil_dtype_name(type.type) + ", [";
  for (size_t i = 0; i < type.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(type.shape[i]);
  return s + "]>";
}

Emitter::Emitter(const Graph& graph, mil::Block& block, WeightBlob& blob)
    : graph_(graph), block_(block), blob_(blob), values_(graph.operands.size()) {
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    const OperandInfo& info = graph.operands[i];
    if (info.kind == OperandKind::kOperationResult)
      values_[i] = "v" + std::to_string(i);  // operation results: fixed names
  }
}

const std::string& Emitter::value(OperandId id) const {
  const std::string& name = values_.at(id.value);
  if (name.empty())
    throw OperationError("coreml: operand " + std::to_string(id.value) + " has no MIL variable");
  return name;
}

void Emitter::bind(OperandId id, std::string name) {
  values_.at(id.value) = std::move(name);
}

const MilType& Emitter::type_of(const std::string& name) const {
  auto it = types_.find(name);
  if (it == types_.end()) throw OperationError("coreml: unknown MIL variable " + name);
  return it->second;
}

void Emitter::declare(const std::string& name, MilType type) {
  types_[name] = std::move(type);
}

void Emitter::begin_operation(uint32_t index) {
  begin_section("op" + std::to_string(index) + "_");
}

void Emitter::begin_section(std::string prefix) {
  prefix_ = std::move(prefix);
  next_value_ = 0;
}

std::string Emitter::fresh() {
  return prefix_ + std::to_string(next_value_++);
}

void Emitter::op_to(std::string_view op_type, std::vector<Param> params,
                    std::vector<std::pair<std::string, MilType>> outputs) {
  mil::Operation* op = block_.add_operations();
  op->set_type(std::string(op_type));
  for (Param& p : params) {
    mil::Argument& arg = (*op->mutable_inputs())[p.name];
    for (std::string& v : p.values) {
      type_of(v);  // every bound variable exists
      arg.add_arguments()->set_name(std::move(v));
    }
  }
  for (auto& [name, type] : outputs) {
    mil::NamedValueType* o = op->add_outputs();
    o->set_name(name);
    *o->mutable_type() = value_type_of(type);
    types_[name] = std::move(type);
  }
}

std::string Emitter::op(std::string_view op_type, std::vector<Param> params, MilType out) {
  std::string name = fresh();
  op_to(op_type, std::move(params), {{name, std::move(out)}});
  return name;
}

void Emitter::op_to(std::string_view op_type, std::vector<Param> params, OperandId id) {
  op_to(op_type, std::move(params), {{value(id), mil_type(id)}});
}

std::string Emitter::add_const(mil::DataType type, std::span<const int64_t> shape,
                               std::span<const std::byte> bytes) {
  const MilType t{type, std::vector<int64_t>(shape.begin(), shape.end())};
  const size_t count = element_count(shape);
  if (bytes.size() != count * mil_type_bytes(type))
    throw OperationError("coreml: constant of " + describe(t) + " given " +
                         std::to_string(bytes.size()) + " bytes");
  const bool to_blob = (type == mil::FLOAT32 || type == mil::FLOAT16) && count >= kBlobMinElements;
  std::string key;
  if (!to_blob) {  // small constants are shared by content
    key = describe(t) + ":";
    key.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (auto it = dedup_.find(key); it != dedup_.end()) return it->second;
  }
  const std::string name = "c" + std::to_string(next_const_++);
  mil::Operation* op = block_.add_operations();
  op->set_type("const");
  mil::NamedValueType* o = op->add_outputs();
  o->set_name(name);
  *o->mutable_type() = value_type_of(t);
  mil::Value& val = (*op->mutable_attributes())["val"];
  *val.mutable_type() = value_type_of(t);
  if (to_blob) {
    auto* blob = val.mutable_blobfilevalue();
    blob->set_filename("@model_path/weights/weight.bin");
    blob->set_offset(blob_.add(type, bytes));
  } else {
    fill_immediate(val.mutable_immediatevalue()->mutable_tensor(), type, bytes);
    dedup_.emplace(std::move(key), name);
  }
  (*op->mutable_attributes())["name"] = string_value(name);
  types_[name] = t;
  return name;
}

std::string Emitter::const_tensor(mil::DataType type, std::span<const int64_t> shape,
                                  std::span<const std::byte> bytes) {
  return add_const(type, shape, bytes);
}

std::string Emitter::const_scalar(mil::DataType type, const MLNumber& value) {
  return const_fill(type, {}, value);
}

std::string Emitter::const_fill(mil::DataType type, std::span<const int64_t> shape,
                                const MLNumber& value) {
  const unsigned size = mil_type_bytes(type);
  std::byte element[8] = {};
  if (type == mil::BOOL)
    element[0] = std::byte{value.cast_to_double(MLOperandDataType::kFloat32) != 0};
  else
    value.cast_to_bytes(webnn_type_of(type), element);
  const size_t count = element_count(shape);
  std::vector<std::byte> bytes(count * size);
  for (size_t i = 0; i < count; ++i) std::memcpy(bytes.data() + i * size, element, size);
  return add_const(type, shape, bytes);
}

std::string Emitter::const_i32(std::span<const int32_t> values) {
  const int64_t shape[] = {static_cast<int64_t>(values.size())};
  return add_const(mil::INT32, shape, std::as_bytes(values));
}

std::string Emitter::const_i32_of(std::span<const int64_t> values) {
  std::vector<int32_t> v;
  v.reserve(values.size());
  for (int64_t x : values) {
    if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
      throw NotSupportedError("coreml: value " + std::to_string(x) + " does not fit MIL's int32");
    v.push_back(static_cast<int32_t>(x));
  }
  return const_i32(v);
}

std::string Emitter::const_int(int32_t value) {
  return add_const(mil::INT32, {}, std::as_bytes(std::span<const int32_t>(&value, 1)));
}

std::string Emitter::const_bool(bool value) {
  const std::byte b{value};
  return add_const(mil::BOOL, {}, std::span<const std::byte>(&b, 1));
}

std::string Emitter::const_bools(std::span<const bool> values) {
  std::vector<std::byte> bytes;
  for (bool b : values) bytes.push_back(std::byte{b});
  const int64_t shape[] = {static_cast<int64_t>(values.size())};
  return add_const(mil::BOOL, shape, bytes);
}

std::string Emitter::const_string(std::string_view value) {
  const std::string key = std::string("string:") + std::string(value);
  if (auto it = dedup_.find(key); it != dedup_.end()) return it->second;
  const std::string name = "c" + std::to_string(next_const_++);
  mil::Operation* op = block_.add_operations();
  op->set_type("const");
  mil::NamedValueType* o = op->add_outputs();
  o->set_name(name);
  o->mutable_type()->mutable_tensortype()->set_datatype(mil::STRING);
  (*op->mutable_attributes())["val"] = string_value(value);
  (*op->mutable_attributes())["name"] = string_value(name);
  types_[name] = MilType{mil::STRING, {}};
  dedup_.emplace(key, name);
  return name;
}

std::string Emitter::cast(const std::string& name, mil::DataType to) {
  MilType t = type_of(name);
  if (t.type == to) return name;
  t.type = to;
  return op("cast", {{"x", name}, {"dtype", const_string(mil_dtype_name(to))}}, t);
}

}  // namespace cppnn::coreml_export
