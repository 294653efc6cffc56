#include "src/export/onnx/convert.h"

#include <charconv>
#include <string>
#include <unordered_set>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/int4.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/target.h"
#include "src/passes/pipeline.h"

namespace cppnn::onnx_export {

void lower_operation(Emitter& e, const Operation& op) {
  switch (op.type) {
#define CPPNN_OP(E, m, S, O, F)                         \
  case OpType::k##E:                                    \
    lower_##m(e, op, attrs_of<OpType::k##E>(op.attrs)); \
    return;
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  throw OperationError("onnx: unknown operation");
}

namespace {

// The ValueInfo (name, element type, static shape) of a graph input or output.
void set_value_info(onnx::ValueInfoProto* info, const std::string& name,
                    const MLOperandDescriptor& desc) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx_type_of(desc.dataType));
  auto* shape = tensor->mutable_shape();
  for (uint32_t d : desc.shape) shape->add_dim()->set_dim_value(d);
}

// The bytes of a constant as ONNX stores them: int4/uint4 unpacked to one byte per element.
std::vector<std::byte> unpacked_4bit(const MLOperandDescriptor& desc, const ConstantData& data) {
  size_t count = 1;
  for (uint32_t d : desc.shape) count *= d;
  std::vector<std::byte> out(count);
  if (desc.dataType == MLOperandDataType::kInt4) {
    auto v = unpack_int4(data.bytes(), count);
    std::memcpy(out.data(), v.data(), count);
  } else {
    auto v = unpack_uint4(data.bytes(), count);
    std::memcpy(out.data(), v.data(), count);
  }
  return out;
}

// Fills (ConstantData::fill, a file's `@scalar(v)`) over this size are written as
// ConstantOfShape(shape) with the one element as its value: a one-number fill never becomes a
// large initializer (docs/security.md "Memory").
constexpr size_t kFillAsNodeBytes = 64;

bool add_fill_node(const OperandInfo& info, const ConstantData& data, const std::string& name,
                   onnx::GraphProto& g) {
  const MLOperandDescriptor& desc = info.descriptor;
  if (data.fill_element().empty() || data.size() <= kFillAsNodeBytes ||
      data_type_bits(desc.dataType) == 4)
    return false;
  onnx::TensorProto* shape = g.add_initializer();
  shape->set_name(name + "_shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(static_cast<int64_t>(desc.shape.size()));
  for (uint32_t d : desc.shape) shape->add_int64_data(d);
  onnx::NodeProto* n = g.add_node();
  n->set_op_type("ConstantOfShape");
  n->set_name(name + "_fill");
  n->add_input(shape->name());
  n->add_output(name);
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* v = a->mutable_t();
  v->set_data_type(onnx_type_of(desc.dataType));
  v->add_dims(1);
  const auto element = data.fill_element();
  v->set_raw_data(reinterpret_cast<const char*>(element.data()), element.size());
  return true;
}

void add_constants(const Graph& graph, Emitter& e, onnx::GraphProto& g) {
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    const OperandInfo& info = graph.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const MLOperandDescriptor& desc = info.descriptor;
    const ConstantData& data = graph.constants.at(info.producer);
    if (add_fill_node(info, data, e.value(OperandId{static_cast<uint32_t>(i)}), g)) continue;
    onnx::TensorProto* t = g.add_initializer();
    t->set_name(e.value(OperandId{static_cast<uint32_t>(i)}));
    t->set_data_type(onnx_type_of(desc.dataType));
    for (uint32_t d : desc.shape) t->add_dims(d);
    bool four_bit =
        desc.dataType == MLOperandDataType::kInt4 || desc.dataType == MLOperandDataType::kUint4;
    if (four_bit) {
      auto bytes = unpacked_4bit(desc, data);
      t->set_raw_data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    } else if (e.options().external_threshold > 0 &&
               data.size() >= e.options().external_threshold) {
      t->set_data_location(onnx::TensorProto::EXTERNAL);
      e.externals().push_back({t->name(), data.bytes(), g.initializer_size() - 1});
    } else {
      t->set_raw_data(reinterpret_cast<const char*>(data.data()), data.size());
    }
  }
}

// Removes the initializers that no node reads and no graph output names (a lowering may replace
// a constant by a converted copy, e.g. gather indices cast to int64), and the external data of
// removed ones; the others' `initializer` indices follow. ONNX Runtime drops unused initializers
// when it loads a model, so external data declared for one would name nothing.
void drop_unused_initializers(onnx::GraphProto& g, std::vector<ExternalConstant>& externals) {
  std::unordered_set<std::string> used;
  for (const auto& n : g.node())
    for (const auto& in : n.input()) used.insert(in);
  for (const auto& o : g.output()) used.insert(o.name());
  auto* inits = g.mutable_initializer();
  std::vector<int> new_index(static_cast<size_t>(inits->size()), -1);
  int kept = 0;
  for (int i = 0; i < inits->size(); ++i) {
    if (!used.contains(inits->Get(i).name())) continue;
    if (kept != i) inits->SwapElements(kept, i);
    new_index[static_cast<size_t>(i)] = kept++;
  }
  while (inits->size() > kept) inits->RemoveLast();
  std::erase_if(externals, [&](ExternalConstant& ext) {
    ext.initializer = new_index[static_cast<size_t>(ext.initializer)];
    return ext.initializer < 0;
  });
}

// Converts `graph`, whose operations all have a direct lowering.
Conversion convert_native(const Graph& graph, const EmitOptions& options) {
  Conversion result;
  onnx::ModelProto& model = result.model;
  model.set_ir_version(8);
  model.set_producer_name("cppnn");
  model.set_producer_version("0.1.0");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("cppnn");

  Emitter e(graph, g, options);
  // int4/uint4 graph inputs and outputs are int8/uint8 in ONNX (one value per byte; opset 17
  // has no 4-bit type): whoever runs the model unpacks and packs them.
  for (OperandId id : graph.inputs)
    set_value_info(g.add_input(), e.value(id), graph.descriptor(id));
  add_constants(graph, e, g);
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    const Operation& op = graph.operations[i];
    e.begin_operation(i);
    try {
      lower_operation(e, op);
    } catch (const Error& err) {
      std::string where = std::string(op_name(op.type));
      if (!op.label().empty()) where += " [label \"" + op.label() + "\"]";
      throw_error(err.kind(), where + ": " + err.what());
    }
  }
  for (const auto& [name, id] : graph.outputs) {
    const std::string& onnx_name = e.output_name(name);
    if (onnx_name != e.value(id)) {
      onnx::NodeProto* n = g.add_node();
      n->set_op_type("Identity");
      n->set_name("output:" + name);
      n->add_input(e.value(id));
      n->add_output(onnx_name);
    }
    set_value_info(g.add_output(), onnx_name, graph.descriptor(id));
  }
  result.externals = std::move(e.externals());
  drop_unused_initializers(g, result.externals);
  return result;
}

}  // namespace

// The ONNX export runs onnx_target()'s passes like a backend's pipeline (the shared
// decompositions for what it cannot lower directly, batch normalization folded into
// convolutions; target.h); a rewritten graph stays with the result for its externals.
Conversion convert_graph(const Graph& graph, const EmitOptions& options) {
  std::shared_ptr<const Graph> borrowed(&graph, [](const Graph*) {});
  std::shared_ptr<const Graph> prepared = passes::prepare_graph(onnx_target(), borrowed);
  if (prepared == borrowed) return convert_native(graph, options);
  Conversion result = convert_native(*prepared, options);
  result.decomposed = std::move(prepared);
  return result;
}

long operation_of_node(std::string_view node_name) {
  size_t hash = node_name.find('#');
  if (hash == std::string_view::npos) return -1;
  long index = -1;
  const char* begin = node_name.data() + hash + 1;
  auto [ptr, ec] = std::from_chars(begin, node_name.data() + node_name.size(), index);
  if (ec != std::errc() || ptr == begin) return -1;
  return index;
}

}  // namespace cppnn::onnx_export
