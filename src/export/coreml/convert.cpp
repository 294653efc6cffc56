#include "src/export/coreml/convert.h"

#include <set>

#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/target.h"
#include "src/passes/decompose.h"
#include "src/passes/int4_unpacking.h"

namespace cppnn::coreml_export {

void lower_operation(Emitter& e, const Operation& op) {
  switch (op.type) {
#define CPPNN_OP(E, m, S, O, F)                         \
  case OpType::k##E:                                    \
    lower_##m(e, op, attrs_of<OpType::k##E>(op.attrs)); \
    return;
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  throw OperationError("coreml: unknown operation");
}

std::string mil_identifier(std::string_view name) {
  std::string s;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    s += ok ? c : '_';
  }
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) s.insert(s.begin(), '_');
  return s;
}

namespace {

namespace spec = CoreML::Specification;

// Whether `name` has the form of the emitter's own variables (v<N>, c<N>, op<N>_<N>, in_<N>,
// k_<N>, out_<N>).
bool is_internal_name(const std::string& name) {
  auto digits_from = [&](size_t i) {
    return i < name.size() && name.find_first_not_of("0123456789_", i) == std::string::npos;
  };
  return ((name[0] == 'v' || name[0] == 'c') && digits_from(1)) ||
         (name.rfind("op", 0) == 0 && digits_from(2)) ||
         (name.rfind("in_", 0) == 0 && digits_from(3)) ||
         (name.rfind("k_", 0) == 0 && digits_from(2)) ||
         (name.rfind("out_", 0) == 0 && digits_from(4));
}

// Feature names: MIL identifiers, unique, never an internal variable's name.
class FeatureNames {
 public:
  std::string make(std::string_view webnn_name) {
    const std::string base = mil_identifier(webnn_name);
    std::string name = is_internal_name(base) ? base + "_io" : base;
    for (int k = 1; !taken_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }

 private:
  std::set<std::string> taken_;
};

// The package's element type of a feature of WebNN type `t` (see CoremlFeature::packageType).
MLOperandDataType package_type_of(MLOperandDataType t) {
  mil_type_of(t);  // NotSupportedError for types MIL lacks
  return t == MLOperandDataType::kInt8 || t == MLOperandDataType::kUint8 ? MLOperandDataType::kInt32
                                                                         : t;
}

// The package's shape of a feature (see CoremlFeature::packageShape).
std::vector<uint32_t> package_shape_of(const std::vector<uint32_t>& shape) {
  return shape.empty() ? std::vector<uint32_t>{1} : shape;
}

spec::ArrayFeatureType::ArrayDataType array_type_of(MLOperandDataType t) {
  switch (t) {
    case MLOperandDataType::kFloat32:
      return spec::ArrayFeatureType::FLOAT32;
    case MLOperandDataType::kFloat16:
      return spec::ArrayFeatureType::FLOAT16;
    default:
      return spec::ArrayFeatureType::INT32;
  }
}

void describe_feature(spec::FeatureDescription* f, const std::string& name, MLOperandDataType type,
                      const std::vector<uint32_t>& shape) {
  f->set_name(name);
  auto* array = f->mutable_type()->mutable_multiarraytype();
  for (uint32_t d : shape) array->add_shape(d);
  array->set_datatype(array_type_of(type));
}

// Fills (ConstantData::fill, a file's `@scalar(v)`) over this size are written as MIL `fill`
// of the one element: a one-number fill never becomes a large blob (docs/security.md "Memory").
constexpr size_t kFillAsOpBytes = 64;

// The constant's variable: a `fill` op for a large fill of a type fill takes, else a const.
std::string constant_value(Emitter& e, OperandId id, const ConstantData& data) {
  const MilType t = e.mil_type(id);
  const auto element = data.fill_element();
  const bool fill_op = !element.empty() && data.size() > kFillAsOpBytes &&
                       (t.type == mil::FLOAT32 || t.type == mil::FLOAT16 || t.type == mil::INT32);
  if (!fill_op) return e.const_tensor(t.type, t.shape, data.bytes());
  const std::string value = e.const_tensor(t.type, {}, element);
  return e.op("fill", {{"shape", e.const_i32_of(t.shape)}, {"value", value}}, t);
}

void add_constants(const Graph& graph, Emitter& e) {
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    const OperandInfo& info = graph.operands[i];
    if (info.kind != OperandKind::kConstant) continue;
    const OperandId id{static_cast<uint32_t>(i)};
    e.bind(id, constant_value(e, id, graph.constants.at(info.producer)));
  }
}

// Converts `graph`, whose operations all fit coreml_target().
Conversion convert_native(const Graph& graph) {
  Conversion c;
  spec::Model& model = c.model;
  model.set_specificationversion(8);
  spec::ModelDescription* description = model.mutable_description();
  description->mutable_metadata()->set_author("cppnn");
  auto* program = model.mutable_mlprogram();
  program->set_version(1);
  mil::Function& function = (*program->mutable_functions())["main"];
  function.set_opset("CoreML7");
  mil::Block& block = (*function.mutable_block_specializations())["CoreML7"];

  Emitter e(graph, block, c.weights);
  FeatureNames names;
  e.begin_inputs();
  for (OperandId id : graph.inputs) {
    const OperandInfo& info = graph.operand(id);
    const MLOperandDescriptor& desc = info.descriptor;
    const MLOperandDataType package_type = package_type_of(desc.dataType);
    CoremlFeature feature{info.name, names.make(info.name), package_type,
                          package_shape_of(desc.shape)};
    MilType t = mil_type_of(MLOperandDescriptor{package_type, feature.packageShape});
    mil::NamedValueType* in = function.add_inputs();
    in->set_name(feature.feature);
    *in->mutable_type() = value_type_of(t);
    e.declare(feature.feature, t);
    describe_feature(description->add_input(), feature.feature, package_type, feature.packageShape);
    std::string v = e.cast(feature.feature, mil_type_of(desc.dataType));
    if (desc.shape.empty()) v = e.op("squeeze", {{"x", v}}, e.mil_type(id));
    e.bind(id, v);
    c.info.inputs.push_back(std::move(feature));
  }
  e.begin_constants();
  add_constants(graph, e);
  for (uint32_t i = 0; i < graph.operations.size(); ++i) {
    const Operation& op = graph.operations[i];
    e.begin_operation(i);
    try {
      if (!op.activations.empty()) throw NotSupportedError("fused activations are not exported");
      lower_operation(e, op);
    } catch (const Error& err) {
      std::string where = std::string(op_name(op.type));
      if (!op.label().empty()) where += " [label \"" + op.label() + "\"]";
      throw_error(err.kind(), where + ": " + err.what());
    }
  }
  e.begin_outputs();
  for (const auto& [name, id] : graph.outputs) {
    const MLOperandDescriptor& desc = graph.descriptor(id);
    const MLOperandDataType package_type = package_type_of(desc.dataType);
    CoremlFeature feature{name, names.make(name), package_type, package_shape_of(desc.shape)};
    std::string v = e.value(id);
    if (desc.shape.empty())
      v = e.op("expand_dims", {{"x", v}, {"axes", e.const_i32({0})}},
               MilType{e.type_of(v).type, {1}});
    const mil::DataType to = mil_type_of(package_type);
    MilType t = e.type_of(v);
    t.type = to;
    if (e.type_of(v).type == to)
      e.op_to("identity", {{"x", v}}, {{feature.feature, t}});
    else
      e.op_to("cast", {{"x", v}, {"dtype", e.const_string(mil_dtype_name(to))}},
              {{feature.feature, t}});
    block.add_outputs(feature.feature);
    describe_feature(description->add_output(), feature.feature, package_type,
                     feature.packageShape);
    c.info.outputs.push_back(std::move(feature));
  }
  return c;
}

bool fits_target(const Graph& graph) {
  for (const Operation& op : graph.operations)
    if (!coreml_target().fits_natively(graph, op)) return false;
  return true;
}

}  // namespace

Conversion convert_graph(const Graph& graph) {
  for (OperandId id : graph.inputs) package_type_of(graph.descriptor(id).dataType);
  // int4/uint4 constants become int8/uint8 ones first (MIL has no 4-bit arithmetic).
  bool unpacked = false;
  const Graph wide = passes::unpack_int4(graph, coreml_target(), &unpacked);
  const Graph& g = unpacked ? wide : graph;
  if (fits_target(g)) return convert_native(g);
  const Graph decomposed = passes::decompose(g, coreml_target());
  return convert_native(decomposed);
}

}  // namespace cppnn::coreml_export
