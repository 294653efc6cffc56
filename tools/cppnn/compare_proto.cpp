#include "tools/cppnn/compare_proto.h"

#include <cmath>
#include <cstring>
#include <set>

#include "cppnn/errors.h"
#include "cppnn/float16.h"
#include "tools/cppnn/compare_values.h"

namespace cppnn::tool::compare {
namespace {

// onnx.TensorProto.DataType values used here.
constexpr int kFloat = 1, kFloat16 = 10, kDouble = 11, kBfloat16 = 16, kInt64 = 7;

// `v` as one little-endian element of `type` (integers rounded to nearest and saturated).
void write_element(int type, double v, std::byte* out) {
  auto put = [out](auto x) { std::memcpy(out, &x, sizeof x); };
  auto saturate = [v](double lo, double hi) {
    return std::isnan(v) ? 0.0 : std::min(hi, std::max(lo, std::nearbyint(v)));
  };
  switch (type) {
    case kFloat:
      return put(static_cast<float>(v));
    case kFloat16:
      return put(double_to_half_bits(v));
    case kBfloat16:
      return put(float_to_bfloat16_bits(static_cast<float>(v)));
    case kDouble:
      return put(v);
    case 2:  // uint8
      return put(static_cast<uint8_t>(saturate(0, 255)));
    case 3:  // int8
      return put(static_cast<int8_t>(saturate(-128, 127)));
    case 4:  // uint16
      return put(static_cast<uint16_t>(saturate(0, 65535)));
    case 5:  // int16
      return put(static_cast<int16_t>(saturate(-32768, 32767)));
    case 6:  // int32
      return put(static_cast<int32_t>(saturate(-2147483648.0, 2147483647.0)));
    case 9:  // bool
      return put(static_cast<uint8_t>(v != 0));
    case 12:  // uint32
      return put(static_cast<uint32_t>(saturate(0, 4294967295.0)));
    case 13:  // uint64
      return put(static_cast<uint64_t>(saturate(0, 18446744073709549568.0)));
    default:  // int64
      return put(static_cast<int64_t>(saturate(-9223372036854775808.0, 9223372036854774784.0)));
  }
}

size_t element_size_of(int type) {
  switch (type) {
    case 2:
    case 3:
    case 9:
      return 1;
    case 4:
    case 5:
    case kFloat16:
    case kBfloat16:
      return 2;
    case kFloat:
    case 6:
    case 12:
      return 4;
    case kInt64:
    case kDouble:
    case 13:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

std::string node_label(const onnx::NodeProto& node, size_t index) {
  return node.name().empty() ? node.op_type() + "#" + std::to_string(index) : node.name();
}

size_t find_node(const onnx::GraphProto& graph, const std::string& node) {
  for (int i = 0; i < graph.node_size(); ++i)
    if (node_label(graph.node(i), static_cast<size_t>(i)) == node) return static_cast<size_t>(i);
  std::string some;
  for (int i = 0; i < graph.node_size() && i < 5; ++i)
    some += (i ? ", " : "") + node_label(graph.node(i), static_cast<size_t>(i));
  if (graph.node_size() > 5) some += ", ...";
  throw DataError("the model has no node '" + node +
                  "' (nodes: " + (some.empty() ? std::string("none") : some) + ")");
}

std::vector<std::string> expose_node_outputs(onnx::ModelProto& model) {
  onnx::GraphProto& graph = *model.mutable_graph();
  std::set<std::string> outputs;
  for (const auto& out : graph.output()) outputs.insert(out.name());
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& node : graph.node())
    for (const std::string& out : node.output()) {
      if (out.empty() || !seen.insert(out).second) continue;
      names.push_back(out);
      if (outputs.insert(out).second) graph.add_output()->set_name(out);
    }
  return names;
}

void perturb_node(onnx::ModelProto& model, size_t index, double eps, bool float16) {
  onnx::GraphProto& graph = *model.mutable_graph();
  onnx::NodeProto& node = *graph.mutable_node(static_cast<int>(index));
  if (node.output_size() == 0 || node.output(0).empty())
    throw DataError("--perturb: node '" + node_label(node, index) + "' has no first output");
  const std::string value = node.output(0), hidden = value + "__cppnn_unperturbed",
                    eps_name = value + "__cppnn_eps", label = node_label(node, index);
  node.set_output(0, hidden);
  onnx::TensorProto& constant = *graph.add_initializer();
  constant.set_name(eps_name);
  constant.set_data_type(float16 ? kFloat16 : kFloat);
  std::byte bytes[4];
  write_element(float16 ? kFloat16 : kFloat, eps, bytes);
  constant.set_raw_data(bytes, float16 ? 2 : 4);
  onnx::NodeProto& add = *graph.add_node();
  add.set_op_type("Add");
  add.set_name(label);
  add.add_input(hidden);
  add.add_input(eps_name);
  add.add_output(value);
  // Moved up to right after the node, so the graph stays in topological order.
  for (int i = graph.node_size() - 1; i > static_cast<int>(index) + 1; --i)
    graph.mutable_node()->SwapElements(i, i - 1);
}

DeclaredInput declared_input(const onnx::GraphProto& graph, const std::string& name) {
  DeclaredInput d;
  for (const auto& in : graph.input()) {
    if (in.name() != name || !in.type().has_tensor_type()) continue;
    const auto& tt = in.type().tensor_type();
    d.type = tt.elem_type();
    if (tt.has_shape())
      for (const auto& dim : tt.shape().dim())
        d.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  }
  return d;
}

FixedFeed fixed_feed(const onnx::GraphProto& graph, const std::string& name,
                     const OnnxInputValue& value) {
  const DeclaredInput declared = declared_input(graph, name);
  FixedFeed f;
  f.type = declared.type ? declared.type : kInt64;
  const size_t size = element_size_of(f.type);
  if (size == 0)
    throw NotSupportedError("--input-value " + name + ": the input's type " +
                            onnx_type_name(f.type) + " cannot be fed");
  const uint64_t n = element_count(value.descriptor.shape);
  f.shape.assign(value.descriptor.shape.begin(), value.descriptor.shape.end());
  int64_t declared_count = 1;
  bool is_static = !declared.dims.empty() || declared.type != 0;
  for (int64_t d : declared.dims) {
    if (d < 0) is_static = false;
    declared_count *= std::max<int64_t>(d, 0);
  }
  if (is_static && static_cast<uint64_t>(declared_count) == n) f.shape = declared.dims;
  const int source = onnx_type_of(value.descriptor.dataType);
  f.bytes.resize(n * size);
  if (source == f.type && value.bytes.size() == f.bytes.size()) {
    f.bytes = value.bytes;
    return f;
  }
  const auto values = to_doubles(source, value.bytes, n);
  if (!values) throw DataError("--input-value " + name + ": the value does not hold its elements");
  for (uint64_t i = 0; i < n; ++i) write_element(f.type, (*values)[i], f.bytes.data() + i * size);
  return f;
}

}  // namespace cppnn::tool::compare
