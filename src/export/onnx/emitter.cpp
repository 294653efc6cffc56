#include "src/export/onnx/emitter.h"

#include <algorithm>
#include <cstring>

#include "cppnn/errors.h"

namespace cppnn::onnx_export {

int32_t onnx_type_of(MLOperandDataType type) {
  switch (type) {
    case MLOperandDataType::kFloat32:
      return onnx::TensorProto::FLOAT;
    case MLOperandDataType::kFloat16:
      return onnx::TensorProto::FLOAT16;
    case MLOperandDataType::kInt32:
      return onnx::TensorProto::INT32;
    case MLOperandDataType::kUint32:
      return onnx::TensorProto::UINT32;
    case MLOperandDataType::kInt64:
      return onnx::TensorProto::INT64;
    case MLOperandDataType::kUint64:
      return onnx::TensorProto::UINT64;
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kInt4:
      return onnx::TensorProto::INT8;
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kUint4:
      return onnx::TensorProto::UINT8;
  }
  return onnx::TensorProto::UNDEFINED;
}

Emitter::Emitter(const Graph& graph, onnx::GraphProto& out, const EmitOptions& options)
    : graph_(graph), out_(out), options_(options), values_(graph.operands.size()) {
  // Graph inputs keep their names; a graph output produced by an operation names that
  // operation's result directly (the first output name in sorted order), so no Identity is
  // needed; everything else gets "_v<id>".
  for (OperandId id : graph.inputs) values_[id.value] = unique_name(graph.operand(id).name);
  for (const auto& [name, id] : graph.outputs) {
    if (graph.operand(id).kind == OperandKind::kOperationResult && values_[id.value].empty()) {
      values_[id.value] = unique_name(name);
      outputs_[name] = values_[id.value];
    } else {
      outputs_[name] = unique_name(name);
    }
  }
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].empty()) {
      const char* prefix = graph.operands[i].kind == OperandKind::kConstant ? "_c" : "_v";
      values_[i] = unique_name(prefix + std::to_string(i));
    }
  }
}

std::vector<int64_t> Emitter::dims(OperandId id) const {
  const auto& shape = desc(id).shape;
  return std::vector<int64_t>(shape.begin(), shape.end());
}

const std::string& Emitter::value(OperandId id) const {
  static const std::string kAbsent;
  return id == kNoOperand ? kAbsent : values_.at(id.value);
}

void Emitter::begin_operation(uint32_t index) {
  current_op_ = index;
  next_value_ = 0;
  next_node_ = 0;
}

std::string Emitter::unique_name(std::string base) {
  // WebNN names may hold NUL bytes (WPT unprintableNames); ONNX Runtime takes names as C strings,
  // so a NUL would truncate them and bind the wrong tensors: it becomes '_' (then made unique).
  std::replace(base.begin(), base.end(), '\0', '_');
  auto [it, inserted] = taken_.try_emplace(base, 1);
  if (inserted) return base;
  while (true) {
    std::string candidate = base + "_" + std::to_string(++it->second);
    if (taken_.try_emplace(candidate, 1).second) return candidate;
  }
}

std::string Emitter::fresh() {
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on `"_" + std::string`.
  std::string name = "_";
  name += std::to_string(current_op_);
  name += '.';
  name += std::to_string(next_value_++);
  return unique_name(name);
}

std::string Emitter::node_name() {
  std::string name = std::string(op_name(graph_.operations.at(current_op_).type)) + "#" +
                     std::to_string(current_op_);
  if (next_node_ > 0) {
    name += '.';
    name += std::to_string(next_node_);
  }
  ++next_node_;
  return name;
}

void Emitter::node_to(std::string_view op_type, std::vector<std::string> inputs,
                      std::vector<std::string> outputs, std::vector<Attr> attrs) {
  onnx::NodeProto* n = out_.add_node();
  n->set_op_type(std::string(op_type));
  n->set_name(node_name());
  // Trailing absent optional inputs are dropped; inner ones stay as "".
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  for (auto& in : inputs) n->add_input(std::move(in));
  for (auto& o : outputs) n->add_output(std::move(o));
  for (auto& a : attrs) {
    onnx::AttributeProto* p = n->add_attribute();
    p->set_name(a.name);
    std::visit(
        [&](auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, int64_t>) {
            p->set_type(onnx::AttributeProto::INT);
            p->set_i(v);
          } else if constexpr (std::is_same_v<V, float>) {
            p->set_type(onnx::AttributeProto::FLOAT);
            p->set_f(v);
          } else if constexpr (std::is_same_v<V, std::string>) {
            p->set_type(onnx::AttributeProto::STRING);
            p->set_s(v);
          } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
            p->set_type(onnx::AttributeProto::INTS);
            for (int64_t x : v) p->add_ints(x);
          } else if constexpr (std::is_same_v<V, std::vector<float>>) {
            p->set_type(onnx::AttributeProto::FLOATS);
            for (float x : v) p->add_floats(x);
          } else {
            p->set_type(onnx::AttributeProto::STRINGS);
            for (const std::string& x : v) p->add_strings(x);
          }
        },
        a.value);
  }
}

std::string Emitter::node(std::string_view op_type, std::vector<std::string> inputs,
                          std::vector<Attr> attrs) {
  std::string out = fresh();
  node_to(op_type, std::move(inputs), {out}, std::move(attrs));
  return out;
}

std::vector<std::string> Emitter::node_n(std::string_view op_type, std::vector<std::string> inputs,
                                         size_t count, std::vector<Attr> attrs) {
  std::vector<std::string> outs;
  for (size_t i = 0; i < count; ++i) outs.push_back(fresh());
  node_to(op_type, std::move(inputs), outs, std::move(attrs));
  return outs;
}

std::string Emitter::add_initializer(onnx::TensorProto tensor, std::string_view key) {
  // Identical small constants are emitted once (named after their first use).
  std::string dedup_key = std::to_string(tensor.data_type()) + ":";
  for (int64_t d : tensor.dims()) dedup_key += std::to_string(d) + ",";
  dedup_key += ":";
  dedup_key.append(key);
  auto it = dedup_.find(dedup_key);
  if (it != dedup_.end()) return it->second;
  std::string name =
      unique_name("_k" + std::to_string(current_op_) + "." + std::to_string(dedup_.size()));
  tensor.set_name(name);
  *out_.add_initializer() = std::move(tensor);
  dedup_.emplace(std::move(dedup_key), name);
  return name;
}

std::string Emitter::const_i64(std::span<const int64_t> values) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  std::string raw(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  t.set_raw_data(raw);
  return add_initializer(std::move(t), raw);
}

std::string Emitter::const_scalar(MLOperandDataType type, const MLNumber& value) {
  std::byte bytes[8] = {};
  if (type == MLOperandDataType::kInt4) {  // one byte per element in ONNX (int8)
    bytes[0] = static_cast<std::byte>(static_cast<int8_t>(value.cast_to_int64(type)));
    return const_tensor(type, {}, std::span<const std::byte>(bytes, 1));
  }
  if (type == MLOperandDataType::kUint4) {
    bytes[0] = static_cast<std::byte>(static_cast<uint8_t>(value.cast_to_uint64(type)));
    return const_tensor(type, {}, std::span<const std::byte>(bytes, 1));
  }
  value.cast_to_bytes(type, bytes);
  return const_tensor(type, {}, std::span<const std::byte>(bytes, data_type_bits(type) / 8));
}

std::string Emitter::const_tensor(MLOperandDataType type, std::span<const int64_t> shape,
                                  std::span<const std::byte> bytes) {
  onnx::TensorProto t;
  t.set_data_type(onnx_type_of(type));
  for (int64_t d : shape) t.add_dims(d);
  std::string raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  t.set_raw_data(raw);
  return add_initializer(std::move(t), raw);
}

std::string Emitter::cast(const std::string& input, MLOperandDataType from, MLOperandDataType to) {
  if (onnx_type_of(from) == onnx_type_of(to)) return input;
  return node("Cast", {input}, {{"to", int64_t{onnx_type_of(to)}}});
}

}  // namespace cppnn::onnx_export
