#include "src/export/tflite/emitter.h"

#include <cstring>
#include <limits>
#include <vector>

#include "cppnn/errors.h"

namespace cppnn::tflite_export {

tfl::TensorType compute_type_of(MLOperandDataType t) {
  return t == MLOperandDataType::kFloat16 ? tfl::TensorType::FLOAT32 : io_type_of(t);
}

tfl::TensorType io_type_of(MLOperandDataType t) {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return tfl::TensorType::FLOAT32;
    case MLOperandDataType::kFloat16:
      return tfl::TensorType::FLOAT16;
    case MLOperandDataType::kInt32:
      return tfl::TensorType::INT32;
    case MLOperandDataType::kUint32:
      return tfl::TensorType::UINT32;
    case MLOperandDataType::kInt64:
      return tfl::TensorType::INT64;
    case MLOperandDataType::kUint64:
      return tfl::TensorType::UINT64;
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kInt4:
      return tfl::TensorType::INT8;
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kUint4:
      return tfl::TensorType::UINT8;
  }
  throw NotSupportedError("tflite: unknown data type");
}

size_t element_size(tfl::TensorType t) {
  switch (t) {
    case tfl::TensorType::FLOAT32:
    case tfl::TensorType::INT32:
    case tfl::TensorType::UINT32:
      return 4;
    case tfl::TensorType::FLOAT16:
    case tfl::TensorType::INT16:
    case tfl::TensorType::UINT16:
      return 2;
    case tfl::TensorType::INT64:
    case tfl::TensorType::UINT64:
    case tfl::TensorType::FLOAT64:
      return 8;
    default:
      return 1;
  }
}

std::vector<int32_t> tflite_shape(const std::vector<uint32_t>& shape) {
  std::vector<int32_t> s;
  s.reserve(shape.size());
  for (uint32_t d : shape) {
    if (d > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
      throw NotSupportedError("tflite: dimension " + std::to_string(d) + " exceeds int32");
    s.push_back(static_cast<int32_t>(d));
  }
  return s;
}

namespace {

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& values) {
  std::vector<std::byte> b(values.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}

// `value` as one element of `type`, in its bytes.
std::vector<std::byte> element_bytes(tfl::TensorType type, double value) {
  auto as = [](auto v) {
    std::vector<std::byte> b(sizeof(v));
    std::memcpy(b.data(), &v, sizeof(v));
    return b;
  };
  switch (type) {
    case tfl::TensorType::FLOAT32:
      return as(static_cast<float>(value));
    case tfl::TensorType::INT32:
      return as(static_cast<int32_t>(value));
    case tfl::TensorType::UINT32:
      return as(static_cast<uint32_t>(value));
    case tfl::TensorType::INT64:
      return as(static_cast<int64_t>(value));
    case tfl::TensorType::UINT64:
      return as(static_cast<uint64_t>(value));
    case tfl::TensorType::INT8:
      return as(static_cast<int8_t>(value));
    case tfl::TensorType::UINT8:
      return as(static_cast<uint8_t>(value));
    case tfl::TensorType::BOOL:
      return as(static_cast<uint8_t>(value != 0));
    default:
      throw NotSupportedError("tflite: no scalar constant of this type");
  }
}

// The OperatorCode version written for `code`: the lowest version LiteRT 2.3's resolver registers
// the builtin with (1 for all but BROADCAST_TO, registered from version 2).
int32_t operator_version(tfl::BuiltinOperator code) {
  return code == tfl::BuiltinOperator::BROADCAST_TO ? 2 : 1;
}

}  // namespace

Emitter::Emitter(const Graph& graph) : graph_(graph), fbb_(1 << 16) {
  buffers_.emplace_back();  // buffer 0: empty (TFLite's convention for tensors without data)
  values_.assign(graph.operands.size(), -1);
}

TensorIndex Emitter::value(OperandId id) const {
  const TensorIndex t = id.value < values_.size() ? values_[id.value] : -1;
  if (t < 0) throw OperationError("tflite: operand " + std::to_string(id.value) + " is unbound");
  return t;
}

void Emitter::bind(OperandId id, TensorIndex t) {
  values_.at(id.value) = t;
}

TensorIndex Emitter::output(OperandId id) {
  const MLOperandDescriptor& d = graph_.descriptor(id);
  const TensorIndex t = tensor(compute_type_of(d.dataType), tflite_shape(d.shape));
  bind(id, t);
  return t;
}

TensorIndex Emitter::tensor(tfl::TensorType type, std::vector<int32_t> shape) {
  tensors_.push_back(TensorRecord{type, std::move(shape)});
  return static_cast<TensorIndex>(tensors_.size() - 1);
}

TensorIndex Emitter::add_constant(tfl::TensorType type, std::vector<int32_t> shape,
                                  BufferRecord buffer) {
  buffers_.push_back(std::move(buffer));
  const TensorIndex t = tensor(type, std::move(shape));
  tensors_[t].buffer = static_cast<uint32_t>(buffers_.size() - 1);
  return t;
}

TensorIndex Emitter::constant(tfl::TensorType type, std::vector<int32_t> shape,
                              std::vector<std::byte> bytes) {
  return add_constant(type, std::move(shape), BufferRecord{std::move(bytes), {}});
}

TensorIndex Emitter::constant_view(tfl::TensorType type, std::vector<int32_t> shape,
                                   std::span<const std::byte> bytes) {
  return add_constant(type, std::move(shape), BufferRecord{{}, bytes});
}

TensorIndex Emitter::const_i32(const std::vector<int32_t>& values) {
  return constant(tfl::TensorType::INT32, {static_cast<int32_t>(values.size())}, bytes_of(values));
}

TensorIndex Emitter::const_i64(const std::vector<int64_t>& values) {
  return constant(tfl::TensorType::INT64, {static_cast<int32_t>(values.size())}, bytes_of(values));
}

TensorIndex Emitter::const_f32(const std::vector<float>& values) {
  return constant(tfl::TensorType::FLOAT32, {static_cast<int32_t>(values.size())},
                  bytes_of(values));
}

TensorIndex Emitter::scalar(tfl::TensorType type, double value, std::vector<int32_t> shape) {
  const std::vector<std::byte> element = element_bytes(type, value);
  size_t count = 1;
  for (int32_t d : shape) count *= static_cast<size_t>(d);
  std::vector<std::byte> bytes;
  bytes.reserve(count * element.size());
  for (size_t i = 0; i < count; ++i) bytes.insert(bytes.end(), element.begin(), element.end());
  return constant(type, std::move(shape), std::move(bytes));
}

std::span<const std::byte> Emitter::constant_bytes(TensorIndex t) const {
  const uint32_t b = tensors_.at(t).buffer;
  if (b == 0) return {};
  const BufferRecord& r = buffers_[b];
  return r.owned.empty() ? r.view : std::span<const std::byte>(r.owned);
}

void Emitter::op(tfl::BuiltinOperator code, std::vector<TensorIndex> inputs,
                 std::vector<TensorIndex> outputs, tfl::BuiltinOptions options_type,
                 flatbuffers::Offset<void> options) {
  auto [it, inserted] = opcode_index_.emplace(code, static_cast<uint32_t>(opcodes_.size()));
  if (inserted) opcodes_.push_back(code);
  for (TensorIndex t : outputs) tensors_.at(t).produced = true;
  operators_.push_back(
      OperatorRecord{it->second, std::move(inputs), std::move(outputs), options_type, options});
}

TensorIndex Emitter::op1(tfl::BuiltinOperator code, std::vector<TensorIndex> inputs,
                         tfl::TensorType type, std::vector<int32_t> shape,
                         tfl::BuiltinOptions options_type, flatbuffers::Offset<void> options) {
  const TensorIndex out = tensor(type, std::move(shape));
  op(code, std::move(inputs), {out}, options_type, options);
  return out;
}

TensorIndex Emitter::cast(TensorIndex t, tfl::TensorType to) {
  if (type_of(t) == to) return t;
  return op1(tfl::BuiltinOperator::CAST, {t}, to, shape_of(t), tfl::BuiltinOptions::CastOptions,
             tfl::CreateCastOptions(fbb_, type_of(t), to).Union());
}

TensorIndex Emitter::reshape(TensorIndex t, std::vector<int32_t> shape) {
  const TensorIndex dims = const_i32(shape);
  return op1(tfl::BuiltinOperator::RESHAPE, {t, dims}, type_of(t), std::move(shape));
}

TensorIndex Emitter::transpose(TensorIndex t, const std::vector<int32_t>& perm) {
  std::vector<int32_t> shape;
  for (int32_t p : perm) shape.push_back(shape_of(t).at(static_cast<size_t>(p)));
  return op1(tfl::BuiltinOperator::TRANSPOSE, {t, const_i32(perm)}, type_of(t), std::move(shape));
}

void Emitter::copy_to(TensorIndex from, TensorIndex to) {
  if (type_of(from) != type_of(to)) {
    op(tfl::BuiltinOperator::CAST, {from}, {to}, tfl::BuiltinOptions::CastOptions,
       tfl::CreateCastOptions(fbb_, type_of(from), type_of(to)).Union());
  } else {
    op(tfl::BuiltinOperator::RESHAPE, {from, const_i32(shape_of(to))}, {to});
  }
}

void Emitter::fold_reshape_chains(const std::vector<TensorIndex>& outputs) {
  const auto is_reshape = [&](const OperatorRecord& o) {
    return opcodes_[o.opcode] == tfl::BuiltinOperator::RESHAPE;
  };
  // The RESHAPE writing each tensor (-1: none); operators come in execution order, so the
  // RESHAPE read by a RESHAPE already reads a tensor no RESHAPE writes.
  std::vector<int64_t> reshape_of(tensors_.size(), -1);
  for (size_t i = 0; i < operators_.size(); ++i) {
    OperatorRecord& o = operators_[i];
    if (!is_reshape(o)) continue;
    if (const int64_t j = reshape_of.at(static_cast<size_t>(o.inputs[0])); j >= 0)
      o.inputs[0] = operators_[static_cast<size_t>(j)].inputs[0];
    reshape_of.at(static_cast<size_t>(o.outputs[0])) = static_cast<int64_t>(i);
  }
  std::vector<bool> read(tensors_.size(), false);
  for (const OperatorRecord& o : operators_)
    for (TensorIndex t : o.inputs)
      if (t >= 0) read[static_cast<size_t>(t)] = true;
  for (TensorIndex t : outputs) read.at(static_cast<size_t>(t)) = true;
  std::erase_if(operators_, [&](const OperatorRecord& o) {
    return is_reshape(o) && !read[static_cast<size_t>(o.outputs[0])];
  });
}

std::vector<uint8_t> Emitter::finish(const std::vector<TensorIndex>& inputs,
                                     const std::vector<TensorIndex>& outputs,
                                     const std::vector<std::string>& input_names,
                                     const std::vector<std::string>& output_names) {
  fold_reshape_chains(outputs);
  // Only the tensors an operator or the signature uses are written, and only their buffers (a
  // lowering that permutes or reshapes a constant at export leaves the original unused).
  std::vector<TensorIndex> tensor_index(tensors_.size(), -1);
  std::vector<uint32_t> buffer_index(buffers_.size(), 0);
  std::vector<size_t> kept_tensors, kept_buffers{0};
  auto keep = [&](TensorIndex t) {
    if (t < 0 || tensor_index.at(static_cast<size_t>(t)) >= 0) return;
    tensor_index[t] = static_cast<TensorIndex>(kept_tensors.size());
    kept_tensors.push_back(static_cast<size_t>(t));
    const uint32_t b = tensors_[t].buffer;
    if (b != 0 && buffer_index[b] == 0) {
      buffer_index[b] = static_cast<uint32_t>(kept_buffers.size());
      kept_buffers.push_back(b);
    }
  };
  for (TensorIndex t : inputs) keep(t);
  for (const OperatorRecord& o : operators_) {
    for (TensorIndex t : o.inputs) keep(t);
    for (TensorIndex t : o.outputs) keep(t);
  }
  for (TensorIndex t : outputs) keep(t);
  auto renumber = [&](const std::vector<TensorIndex>& ts) {
    std::vector<int32_t> out;
    out.reserve(ts.size());
    for (TensorIndex t : ts) out.push_back(t < 0 ? t : tensor_index[t]);
    return out;
  };

  // flatbuffers offsets are 32-bit: refuse a model whose constants alone pass 2 GiB.
  uint64_t total = 0;
  for (size_t b : kept_buffers) total += buffers_[b].owned.size() + buffers_[b].view.size() + 16;
  if (total >= (uint64_t{1} << 31) - (uint64_t{1} << 24))
    throw DataError("tflite: the model's constants (" + std::to_string(total) +
                    " bytes) exceed the 2 GiB limit of a TFLite flatbuffer");

  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers;
  buffers.reserve(kept_buffers.size());
  for (size_t index : kept_buffers) {
    const BufferRecord& b = buffers_[index];
    const std::span<const std::byte> data = b.owned.empty() ? b.view : std::span(b.owned);
    if (data.empty()) {
      buffers.push_back(tfl::CreateBuffer(fbb_));
      continue;
    }
    fbb_.ForceVectorAlignment(data.size(), 1, 16);
    auto vec = fbb_.CreateVector(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    buffers.push_back(tfl::CreateBuffer(fbb_, vec));
  }
  std::vector<flatbuffers::Offset<tfl::Tensor>> tensors;
  tensors.reserve(kept_tensors.size());
  for (size_t i : kept_tensors) {
    const TensorRecord& r = tensors_[i];
    const std::string name = r.name.empty() ? "t" + std::to_string(i) : r.name;
    tensors.push_back(
        tfl::CreateTensorDirect(fbb_, &r.shape, r.type, buffer_index[r.buffer], name.c_str()));
  }
  std::vector<flatbuffers::Offset<tfl::Operator>> operators;
  operators.reserve(operators_.size());
  for (const OperatorRecord& o : operators_) {
    const std::vector<int32_t> in = renumber(o.inputs), out = renumber(o.outputs);
    operators.push_back(
        tfl::CreateOperatorDirect(fbb_, o.opcode, &in, &out, o.options_type, o.options));
  }
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes;
  for (tfl::BuiltinOperator code : opcodes_) {
    const int32_t value = static_cast<int32_t>(code);
    codes.push_back(tfl::CreateOperatorCode(fbb_, static_cast<int8_t>(value < 127 ? value : 127), 0,
                                            operator_version(code), code));
  }
  const std::vector<int32_t> graph_inputs = renumber(inputs), graph_outputs = renumber(outputs);
  auto subgraph =
      tfl::CreateSubGraphDirect(fbb_, &tensors, &graph_inputs, &graph_outputs, &operators, "main");
  auto tensor_maps = [&](const std::vector<TensorIndex>& ids,
                         const std::vector<std::string>& names) {
    std::vector<flatbuffers::Offset<tfl::TensorMap>> maps;
    for (size_t i = 0; i < ids.size(); ++i)
      maps.push_back(
          tfl::CreateTensorMapDirect(fbb_, names.at(i).c_str(), static_cast<uint32_t>(ids[i])));
    return maps;
  };
  const auto in_maps = tensor_maps(graph_inputs, input_names);
  const auto out_maps = tensor_maps(graph_outputs, output_names);
  std::vector<flatbuffers::Offset<tfl::SignatureDef>> signatures{
      tfl::CreateSignatureDefDirect(fbb_, &in_maps, &out_maps, "serving_default", 0)};
  std::vector<flatbuffers::Offset<tfl::SubGraph>> subgraphs{subgraph};
  auto model = tfl::CreateModelDirect(fbb_, 3, &codes, &subgraphs, "cppnn", &buffers, nullptr,
                                      nullptr, &signatures);
  tfl::FinishModelBuffer(fbb_, model);
  return std::vector<uint8_t>(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
}

}  // namespace cppnn::tflite_export
