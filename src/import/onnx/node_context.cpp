// NodeContext: inputs, attributes and outputs of the node being converted.
#include "src/import/onnx/node_context.h"

#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/import/onnx/importer.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {

NodeContext::NodeContext(Importer& importer, const onnx::NodeProto& node, size_t index,
                         std::vector<Value*> inputs, MLGraphBuilder& builder, bool folding)
    : importer_(importer),
      node_(node),
      inputs_(std::move(inputs)),
      builder_(builder),
      folding_(folding),
      label_(node.name().empty() ? node.op_type() + "#" + std::to_string(index) : node.name()),
      scratch_inputs_(inputs_.size()),
      outputs_(static_cast<size_t>(node.output_size())) {}

int64_t NodeContext::opset() const {
  return importer_.opset();
}

bool NodeContext::has_input(size_t i) const {
  return i < inputs_.size() && inputs_[i];
}

MLOperand NodeContext::input(size_t i) {
  if (!has_input(i)) unsupported("input " + std::to_string(i) + " is required");
  Value& v = *inputs_[i];
  if (!folding_) return importer_.materialize(v);
  if (!scratch_inputs_[i]) scratch_inputs_[i] = constant_operand(*v.host);
  return *scratch_inputs_[i];
}

const MLOperandDescriptor& NodeContext::input_desc(size_t i) const {
  if (!has_input(i)) unsupported("input " + std::to_string(i) + " is required");
  return inputs_[i]->desc;
}

bool NodeContext::is_constant(size_t i) const {
  return has_input(i) && inputs_[i]->host;
}

bool NodeContext::all_constant() const {
  for (const Value* v : inputs_)
    if (v && !v->host) return false;
  return true;
}

const HostTensor& NodeContext::constant(size_t i, const char* what) const {
  if (!is_constant(i)) {
    const std::string input =
        "input " + std::to_string(i) + (*what ? std::string(" (") + what + ")" : "");
    if (has_input(i) && inputs_[i]->graph_input)
      unsupported(input + " is needed when the graph is built: graph input '" + inputs_[i]->name +
                  "' must be fixed at conversion (--input-value)");
    if (has_input(i) && !inputs_[i]->depends_on.empty())
      unsupported(input +
                  " is needed when the graph is built and is computed from run-time "
                  "inputs: graph input '" +
                  inputs_[i]->depends_on.front() + "' must be fixed at conversion (--input-value)");
    unsupported(input + " must be a constant (known at conversion time)");
  }
  return *inputs_[i]->host;
}

std::vector<int64_t> NodeContext::ints(size_t i, const char* what) const {
  return constant(i, what).to_int64();
}

const onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool NodeContext::has_attr(const std::string& name) const {
  return attr(name) != nullptr;
}

namespace {

// Integer attributes are sizes, axes, pads, strides, flags: any beyond int32 is malformed, and
// bounding them keeps the handlers' 64-bit arithmetic from overflowing. The exceptions carry data
// or ONNX's "to the end" sentinels (INT64_MAX / INT64_MIN).
constexpr int64_t kAttributeLimit = INT32_MAX;

bool unbounded_attribute(const std::string& name) {
  return name == "value_int" || name == "value_ints" || name == "starts" || name == "ends" ||
         name == "ignore_index";
}

}  // namespace

void NodeContext::check_attribute_value(const std::string& name, int64_t v) const {
  if ((v > kAttributeLimit || v < -kAttributeLimit) && !unbounded_attribute(name))
    invalid("attribute '" + name + "' value " + std::to_string(v) + " is out of range");
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  check_attribute_value(name, a->i());
  return a->i();
}

float NodeContext::attr_float(const std::string& name, float fallback) const {
  const auto* a = attr(name);
  return a ? a->f() : fallback;
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
  const auto* a = attr(name);
  return a ? a->s() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name,
                                            const std::vector<int64_t>& fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  for (int64_t v : a->ints()) check_attribute_value(name, v);
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> NodeContext::attr_floats(const std::string& name,
                                            const std::vector<float>& fallback) const {
  const auto* a = attr(name);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : fallback;
}

HostTensor NodeContext::attr_tensor(const std::string& name) const {
  const auto* a = attr(name);
  if (!a || !a->has_t()) invalid("attribute '" + name + "' must be a tensor");
  return host_tensor_of(a->t(), {}, "attribute '" + name + "'");
}

bool NodeContext::wants_output(size_t i) const {
  return i < outputs_.size() && !node_.output(static_cast<int>(i)).empty();
}

void NodeContext::set_output(size_t i, const MLOperand& value) {
  if (i >= outputs_.size()) return;  // an optional output the model does not list
  outputs_[i].operand = value;
  outputs_[i].host.reset();
}

void NodeContext::set_output(size_t i, HostTensor value) {
  if (i >= outputs_.size()) return;
  outputs_[i].host = std::move(value);
  outputs_[i].operand.reset();
}

void NodeContext::set_output_alias(size_t i, std::shared_ptr<Value> value) {
  if (i >= outputs_.size()) return;
  outputs_[i] = Output{};
  outputs_[i].alias = std::move(value);
}

MLOperand NodeContext::constant_operand(const HostTensor& t) {
  if (t.elements() == 0)
    unsupported("an empty tensor (shape " + shape_to_string(t.desc.shape) +
                ") cannot be a WebNN operand");
  auto holder = std::make_shared<ConstantData>(t.data);
  return builder_.constant_view(t.desc, holder, holder->bytes());
}

MLOperand NodeContext::scalar(MLOperandDataType type, double value) {
  return builder_.constant(type, MLNumber(value));
}

MLOperand NodeContext::constant_ints(const std::vector<int64_t>& values, MLOperandDataType type) {
  return constant_operand(
      HostTensor::of_int64(values, {static_cast<uint32_t>(values.size())}, type));
}

void NodeContext::unsupported(const std::string& what) const {
  throw NotSupportedError(what);
}

void NodeContext::invalid(const std::string& what) const {
  throw DataError(what);
}

void NodeContext::warn(const std::string& what) const {
  importer_.warn("ONNX node '" + label_ + "' (" + op_type() + "): " + what);
}

}  // namespace cppnn::onnx_import
