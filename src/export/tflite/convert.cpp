#include "src/export/tflite/convert.h"

#include <cstring>
#include <set>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "cppnn/int4.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/target.h"
#include "src/passes/pipeline.h"

namespace cppnn::tflite_export {

namespace {

// The activations the fusion pass recorded on `op` (target.cpp's passes.fuse), each lowered after
// it as the op it was, in place: reading op's output operand and rebinding it to the result (the
// activation lowerings read their input before creating their output, lower_activations.cpp).
// XNNPACK fuses the clamp-like ones (RELU, RELU6, RELU_N1_TO_1) into the producing operator
// itself.
void lower_fused_activations(Emitter& e, const Operation& op) {
  for (const FusedActivation& a : op.activations) {
    if (a.times_input)  // the target does not ask for them (PassSelection::fuse_silu)
      throw NotSupportedError("a fused activation times its input is not exported");
    Operation act;
    act.type = a.type;
    act.attrs = a.attrs;
    act.inputs = {op.outputs.at(0)};
    act.outputs = {op.outputs.at(0)};
    lower_operation(e, act);
  }
}

}  // namespace

void lower_operation(Emitter& e, const Operation& op) {
  switch (op.type) {
#define CPPNN_OP(E, m, S, O, F)                         \
  case OpType::k##E:                                    \
    lower_##m(e, op, attrs_of<OpType::k##E>(op.attrs)); \
    return;
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  throw OperationError("tflite: unknown operation");
}

namespace {

// float16 constant bytes as float32 (the compute type, emitter.h).
std::vector<std::byte> widen_float16(std::span<const std::byte> bytes) {
  std::vector<std::byte> out(bytes.size() * 2);
  for (size_t i = 0; i < bytes.size() / 2; ++i) {
    uint16_t h;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    const float f = half_bits_to_float(h);
    std::memcpy(out.data() + 4 * i, &f, 4);
  }
  return out;
}

// int4/uint4 constant bytes (two per byte) unpacked to int8/uint8 (the compute type, emitter.h).
std::vector<std::byte> unpack_four_bit(MLOperandDataType t, std::span<const std::byte> bytes,
                                       const std::vector<int32_t>& shape) {
  size_t count = 1;
  for (int32_t d : shape) count *= static_cast<size_t>(d);
  std::vector<std::byte> out(count);
  if (t == MLOperandDataType::kInt4) {
    const std::vector<int8_t> v = unpack_int4(bytes, count);
    std::memcpy(out.data(), v.data(), count);
  } else {
    const std::vector<uint8_t> v = unpack_uint4(bytes, count);
    std::memcpy(out.data(), v.data(), count);
  }
  return out;
}

// Fills (ConstantData::fill, a file's `@scalar(v)`) over this size are written as a FILL
// operator of the one element, so a one-number fill never becomes a large buffer
// (docs/security.md "Memory").
constexpr size_t kFillAsOpBytes = 64;

// A large fill of a type FILL takes (float32, float16 as float32, int32, int64) as a FILL
// operator; nullopt otherwise.
std::optional<TensorIndex> fill_operator(Emitter& e, MLOperandDataType t, const ConstantData& data,
                                         const std::vector<int32_t>& shape) {
  const auto element = data.fill_element();
  if (element.empty() || data.size() <= kFillAsOpBytes) return std::nullopt;
  TensorIndex value;
  if (t == MLOperandDataType::kFloat16)
    value = e.constant(tfl::TensorType::FLOAT32, {}, widen_float16(element));
  else if (t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kInt32 ||
           t == MLOperandDataType::kInt64)
    value = e.constant(compute_type_of(t), {}, {element.begin(), element.end()});
  else
    return std::nullopt;
  return e.op1(tfl::BuiltinOperator::FILL,
               {e.const_i32(shape.empty() ? std::vector<int32_t>{} : shape), value},
               compute_type_of(t), shape, tfl::BuiltinOptions::FillOptions,
               tfl::CreateFillOptions(e.fbb()).Union());
}

void add_constants(const Graph& graph, Emitter& e) {
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    const OperandInfo& info = graph.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const OperandId id{static_cast<uint32_t>(i)};
    const MLOperandDataType t = info.descriptor.dataType;
    const ConstantData& data = graph.constants.at(info.producer);
    const std::vector<int32_t> shape = tflite_shape(info.descriptor.shape);
    if (auto fill = fill_operator(e, t, data, shape))
      e.bind(id, *fill);
    else if (t == MLOperandDataType::kInt4 || t == MLOperandDataType::kUint4)
      e.bind(id, e.constant(compute_type_of(t), shape, unpack_four_bit(t, data.bytes(), shape)));
    else if (t == MLOperandDataType::kFloat16)
      e.bind(id, e.constant(tfl::TensorType::FLOAT32, shape, widen_float16(data.bytes())));
    else
      e.bind(id, e.constant_view(compute_type_of(t), shape, data.bytes()));
  }
}

// The model's shape of a graph input or output: its WebNN shape, or [1] for a scalar (LiteRT's
// compiled model neither reads nor writes host-memory buffers of rank-0 signature tensors; the
// model reshapes inside).
std::vector<int32_t> io_shape_of(const MLOperandDescriptor& d) {
  return d.shape.empty() ? std::vector<int32_t>{1} : tflite_shape(d.shape);
}

TfliteTensor describe(std::string name, const MLOperandDescriptor& d) {
  return TfliteTensor{std::move(name), d.dataType, d.shape};
}

// The bytes of graph output `id` when it is a constant, or an identity or reshape of one (how
// constant folding writes a folded output); nullopt otherwise.
std::optional<std::span<const std::byte>> constant_output_bytes(const Graph& graph, OperandId id) {
  const OperandInfo& info = graph.operand(id);
  if (info.kind == OperandKind::kConstant) return graph.constant(id).bytes();
  if (info.kind != OperandKind::kOperationResult) return std::nullopt;
  const Operation& op = graph.operations.at(info.producer);
  if ((op.type != OpType::kIdentity && op.type != OpType::kReshape) || op.inputs.empty() ||
      graph.operand(op.inputs[0]).kind != OperandKind::kConstant || !op.activations.empty())
    return std::nullopt;
  return graph.constant(op.inputs[0]).bytes();
}

// A constant tensor of the model (its compute type, emitter.h) as the bytes of a WebNN output of
// descriptor `d`: float32 narrowed to float16, int8/uint8 packed to int4/uint4.
std::vector<std::byte> output_bytes(std::span<const std::byte> bytes,
                                    const MLOperandDescriptor& d) {
  switch (d.dataType) {
    case MLOperandDataType::kFloat16: {
      std::vector<std::byte> out(bytes.size() / 2);
      for (size_t i = 0; i < bytes.size() / 4; ++i) {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        const uint16_t h = float_to_half_bits(f);
        std::memcpy(out.data() + 2 * i, &h, 2);
      }
      return out;
    }
    case MLOperandDataType::kInt4:
      return pack_int4({reinterpret_cast<const int8_t*>(bytes.data()), bytes.size()});
    case MLOperandDataType::kUint4:
      return pack_uint4({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    default:
      return {bytes.begin(), bytes.end()};
  }
}

}  // namespace

Conversion convert_prepared(const Graph& graph, ConstantOutputs constant_outputs) {
  Emitter e(graph);
  Conversion c;
  std::vector<TensorIndex> inputs, outputs;
  std::vector<std::string> input_names, output_names;
  for (OperandId id : graph.inputs) {
    const OperandInfo& info = graph.operand(id);
    const MLOperandDescriptor& d = info.descriptor;
    const TensorIndex in = e.tensor(io_type_of(d.dataType), io_shape_of(d));
    e.set_name(in, info.name);
    TensorIndex v = e.cast(in, compute_type_of(d.dataType));
    if (d.shape.empty()) v = e.reshape(v, {});
    e.bind(id, v);
    inputs.push_back(in);
    input_names.push_back(info.name);
    c.info.inputs.push_back(describe(info.name, d));
  }
  add_constants(graph, e);
  for (const Operation& op : graph.operations) {
    try {
      lower_operation(e, op);
      lower_fused_activations(e, op);
    } catch (const Error& err) {
      std::string where = std::string(op_name(op.type));
      if (!op.label().empty()) where += " [label \"" + op.label() + "\"]";
      throw_error(err.kind(), where + ": " + err.what());
    }
  }
  // Every output gets its own tensor written by an operator, in its I/O type: an output that is
  // an input, a constant, another output's tensor or of another compute type is copied or cast.
  std::set<TensorIndex> used(inputs.begin(), inputs.end());
  for (const auto& [name, id] : graph.outputs) {
    const MLOperandDescriptor& d = graph.descriptor(id);
    c.constant_outputs.emplace_back();
    if (constant_outputs == ConstantOutputs::kExclude) {
      if (auto bytes = constant_output_bytes(graph, id)) {
        c.constant_outputs.back().emplace(bytes->begin(), bytes->end());
        continue;
      }
      if (e.is_constant(e.value(id))) {
        c.constant_outputs.back() = output_bytes(e.constant_bytes(e.value(id)), d);
        continue;
      }
    }
    TensorIndex t = e.value(id);
    const tfl::TensorType io = io_type_of(d.dataType);
    if (d.shape.empty() && !e.is_constant(t)) t = e.reshape(t, io_shape_of(d));
    if (e.type_of(t) != io || !e.is_produced(t) || used.count(t)) {
      const TensorIndex out = e.tensor(io, io_shape_of(d));
      if (e.is_constant(t) && d.shape.empty())
        t = e.constant(
            e.type_of(t), {1},
            std::vector<std::byte>(e.constant_bytes(t).begin(), e.constant_bytes(t).end()));
      e.copy_to(t, out);
      t = out;
    }
    used.insert(t);
    e.set_name(t, name);
    outputs.push_back(t);
    output_names.push_back(name);
    c.info.outputs.push_back(describe(name, d));
  }
  c.bytes = e.finish(inputs, outputs, input_names, output_names);
  return c;
}

Conversion convert_graph(const Graph& graph) {
  auto shared = std::make_shared<const Graph>(graph);
  std::shared_ptr<const Graph> prepared = passes::prepare_graph(tflite_target(), shared);
  return convert_prepared(*prepared);
}

}  // namespace cppnn::tflite_export
