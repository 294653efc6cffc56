// The importer's walk over an ONNX graph (see importer.h).
#include "src/import/onnx/importer.h"

#include <algorithm>
#include <cctype>

#include "cppnn/errors.h"
#include "src/api/states.h"
#include "src/core/text_check.h"
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/tensor_proto.h"
#include "src/passes/constant_folding.h"
#include "src/passes/rewriter.h"

namespace cppnn::onnx_import {
namespace {

OperandInfo& info_of(const MLOperand& o) {
  return o.builder_state()->graph.operands[o.id().value];
}

std::string node_label(const onnx::NodeProto& node, size_t index) {
  return node.name().empty() ? node.op_type() + "#" + std::to_string(index) : node.name();
}

// Default values of symbolic dimensions (webnn-graph-format.md §8 "Dimension overrides").
std::optional<uint32_t> default_dimension(const std::string& lower) {
  static constexpr std::string_view kBatch[] = {"batch_size", "batch", "n", "b"};
  static constexpr std::string_view kSequence[] = {"sequence_length", "seq_len", "seq", "s", "t"};
  for (std::string_view name : kBatch)
    if (lower == name) return 1;
  for (std::string_view name : kSequence)
    if (lower == name) return 128;
  return std::nullopt;
}

std::string lowercase(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// A fixed input value (OnnxImportOptions::inputValues) as the input's type, shaped as declared
// when the declaration is static and holds as many elements.
HostTensor fixed_input_value(const OnnxInputValue& fixed, MLOperandDataType type,
                             const onnx::TypeProto_Tensor& declared, const std::string& where) {
  HostTensor t;
  try {
    t = HostTensor::of_bytes(fixed.descriptor, fixed.bytes);
  } catch (const Error& e) {
    throw DataError(where + ": fixed value: " + e.what());
  }
  if (t.desc.dataType != type) {
    const bool is_float =
        type == MLOperandDataType::kFloat32 || type == MLOperandDataType::kFloat16;
    t = is_float ? HostTensor::of_double(t.to_double(), t.desc.shape, type)
                 : HostTensor::of_int64(t.to_int64(), t.desc.shape, type);
  }
  if (declared.has_shape()) {
    std::vector<uint32_t> shape;
    for (const auto& d : declared.shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0 || d.dim_value() > UINT32_MAX) return t;
      shape.push_back(static_cast<uint32_t>(d.dim_value()));
    }
    if (element_count(shape) == t.elements()) t.desc.shape = shape;
  }
  return t;
}

// A folded result as a host tensor (the byte length checked as HostTensor::of_bytes does).
HostTensor folded_host_tensor(const MLOperandDescriptor& desc, ConstantData data) {
  HostTensor t;
  t.desc = desc;
  if (data.size() != t.elements() * element_size(desc.dataType))
    throw OperationError("host tensor: byte length does not match " + to_string(desc));
  t.data = std::move(data);
  return t;
}

}  // namespace

int64_t onnx_opset_of(const onnx::ModelProto& model) {
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return op.version();
  return 1;
}

Importer::Importer(MLGraphBuilder& builder, const OnnxImportOptions& options,
                   std::filesystem::path base_dir)
    : builder_(builder), options_(options), base_dir_(std::move(base_dir)) {}

std::string Importer::unique_name(const std::string& onnx_name) {
  const std::string base = sanitize_onnx_name(onnx_name.empty() ? "value" : onnx_name);
  std::string name = base;
  for (int k = 1; !used_names_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
  return name;
}

void Importer::check_supported(const onnx::GraphProto& graph) const {
  std::map<std::string, int> missing;
  count_unsupported(graph, missing);  // also in subgraphs (subgraph.cpp)
  if (missing.empty()) return;
  std::string message = "unsupported ONNX operators (" + std::to_string(missing.size()) + "): ";
  bool first = true;
  for (const auto& [op, count] : missing) {
    message += (first ? "" : ", ") + op + " (" + std::to_string(count) + ")";
    first = false;
  }
  throw NotSupportedError(message);
}

void Importer::add_initializers(const onnx::GraphProto& graph) {
  if (graph.sparse_initializer_size() > 0)
    throw NotSupportedError("sparse initializers are not supported");
  for (const auto& init : graph.initializer()) {
    auto v = std::make_unique<Value>();
    v->name = init.name();
    v->host = host_tensor_of(init, base_dir_, "initializer '" + init.name() + "'");
    v->desc = v->host->desc;
    values_[init.name()] = std::move(v);
  }
}

void Importer::add_inputs(const onnx::GraphProto& graph) {
  std::vector<std::string> unresolved;
  struct Pending {
    std::string name;
    MLOperandDescriptor desc;
  };
  std::vector<Pending> pending;
  for (const auto& in : graph.input()) {
    if (values_.count(in.name())) continue;  // an initializer listed as input (IR < 4): constant
    const std::string where = "input '" + in.name() + "'";
    if (!in.type().has_tensor_type())
      throw NotSupportedError(where + ": only tensor inputs are supported");
    const auto& tt = in.type().tensor_type();
    const auto type = webnn_type_of(tt.elem_type());
    if (!type)
      throw NotSupportedError(where + ": element type " + onnx_type_name(tt.elem_type()) +
                              " cannot be expressed in WebNN");
    MLOperandDescriptor desc{*type, {}};
    if (auto fixed = options_.inputValues.find(in.name()); fixed != options_.inputValues.end()) {
      auto v = std::make_unique<Value>();
      v->name = in.name();
      v->host = fixed_input_value(fixed->second, *type, tt, where);
      v->desc = v->host->desc;
      values_[in.name()] = std::move(v);
      continue;
    }
    if (auto it = options_.inputShapes.find(in.name()); it != options_.inputShapes.end()) {
      desc.shape = it->second;
    } else if (!tt.has_shape()) {
      unresolved.push_back(" - " + where + " has no shape: --input-shape " + in.name() +
                           "=D0,D1,...");
    } else {
      for (int i = 0; i < tt.shape().dim_size(); ++i) {
        const auto& dim = tt.shape().dim(i);
        if (dim.has_dim_value()) {
          if (dim.dim_value() <= 0 || dim.dim_value() > UINT32_MAX)
            throw NotSupportedError(where + ": dimension " + std::to_string(i) + " is " +
                                    std::to_string(dim.dim_value()) +
                                    " (WebNN dimensions are 1 to 2^32-1)");
          desc.shape.push_back(static_cast<uint32_t>(dim.dim_value()));
          continue;
        }
        const std::string& param = dim.dim_param();
        std::optional<uint32_t> value;
        if (!param.empty()) free_dims_seen_.insert(param);
        if (auto f = options_.freeDimensions.find(param); f != options_.freeDimensions.end())
          value = f->second;
        else if (auto g = options_.freeDimensions.find(lowercase(param));
                 g != options_.freeDimensions.end())
          value = g->second;
        else
          value = default_dimension(lowercase(param));
        // The leading dimension of a batched input (rank >= 2) is the batch: 1 by default, as
        // exporters name it freely (p2o.DynamicDimension.0, unk__123, N ...).
        if (!value && i == 0 && tt.shape().dim_size() >= 2) {
          value = 1;
          warn(where + ": leading dimension '" + param + "' set to 1 (override with " +
               "--override-dim " + (param.empty() ? "<name>" : param) + "=<value>)");
        }
        if (!value) {
          const std::string d = param.empty() ? std::to_string(i) : param;
          unresolved.push_back(" - " + where + " dim '" + d + "': --override-dim " + d +
                               "=<value>");
          continue;
        }
        desc.shape.push_back(*value);
      }
    }
    pending.push_back({in.name(), desc});
  }
  if (!unresolved.empty()) {
    std::string message = "Dynamic dimensions require explicit overrides:";
    for (const std::string& line : unresolved) message += "\n" + line;
    throw DataError(message);
  }
  for (const Pending& p : pending) {
    if (element_count(p.desc.shape) == 0)
      throw NotSupportedError("input '" + p.name + "' is empty (shape " +
                              shape_to_string(p.desc.shape) +
                              "; WebNN inputs cannot be): graph "
                              "input '" +
                              p.name + "' must be fixed at conversion");
    auto v = std::make_unique<Value>();
    v->name = p.name;
    v->desc = p.desc;
    v->graph_input = true;
    v->depends_on = {p.name};
    const std::string name = unique_name(p.name);
    v->operand = builder_.input(name, p.desc);
    result_.inputNames.emplace_back(p.name, name);
    values_[p.name] = std::move(v);
  }
}

MLOperand Importer::materialize(Value& value) {
  if (value.operand) return *value.operand;
  if (!value.host) throw OperationError("value '" + value.name + "' has no operand");
  if (value.host->elements() == 0)
    throw NotSupportedError("value '" + value.name + "' is empty (shape " +
                            shape_to_string(value.desc.shape) +
                            "); WebNN operands cannot have a zero dimension");
  auto holder = std::make_shared<ConstantData>(value.host->data);
  MLOperand o = builder_.constant_view(value.desc, holder, holder->bytes());
  info_of(o).name = unique_name(value.name);
  value.operand = o;
  return o;
}

bool Importer::try_fold(const onnx::NodeProto& node, size_t index, std::vector<Value*>& inputs) {
  // Recorded on a builder without a backend and evaluated by the reference kernels directly.
  MLGraphBuilder scratch = passes::pass_builder();
  NodeContext c(*this, node, index, inputs, scratch, true);
  find_handler(node.op_type())(c);
  MLNamedOperands outs;
  for (size_t i = 0; i < c.outputs().size(); ++i) {
    auto& out = c.outputs()[i];
    if (!out.operand) continue;
    if (byte_length(out.operand->descriptor()) > options_.foldLimitBytes) return false;
    MLOperand o = *out.operand;
    if (info_of(o).kind != OperandKind::kOperationResult) o = scratch.identity(o);
    std::string key = "o";  // appended: GCC 12 -O3 reports a false -Wrestrict on "o" + string
    key += std::to_string(i);
    outs.emplace(std::move(key), o);
  }
  if (!outs.empty()) {
    const Graph graph = scratch.pruned_graph(outs);
    std::vector<ConstantData> values = passes::evaluate_constant_graph(graph);
    for (size_t k = 0; k < graph.outputs.size(); ++k) {
      const auto& [name, id] = graph.outputs[k];
      const size_t i = std::stoul(name.substr(1));
      c.outputs()[i].operand.reset();
      c.outputs()[i].host = folded_host_tensor(graph.descriptor(id), std::move(values[k]));
    }
  }
  store_outputs(node, c);
  return true;
}

void Importer::store_outputs(const onnx::NodeProto& node, NodeContext& c) {
  for (size_t i = 0; i < c.outputs().size(); ++i) {
    if (!c.wants_output(i)) continue;
    auto& out = c.outputs()[i];
    if (out.alias) {  // a subgraph's value, shared (control flow, ops_control.cpp)
      const Value& a = *out.alias;
      if (options_.recordValues)
        result_.values[node.output(static_cast<int>(i))] = {a.desc, a.operand, a.host.has_value(),
                                                            a.host ? a.host->data : ConstantData{}};
      define_value(out.alias, node.output(static_cast<int>(i)));
      continue;
    }
    auto v = std::make_unique<Value>();
    v->name = node.output(static_cast<int>(i));
    if (out.host) {
      v->desc = out.host->desc;
      v->host = std::move(out.host);
    } else if (out.operand) {
      v->desc = out.operand->descriptor();
      v->operand = out.operand;
      // Provenance for error messages: the graph inputs this value is computed from.
      std::set<std::string> deps;
      for (const std::string& in : node.input()) {
        const Value* known = in.empty() ? nullptr : find_value(in).get();
        if (known && !known->host) deps.insert(known->depends_on.begin(), known->depends_on.end());
      }
      if (deps.size() <= 8) v->depends_on.assign(deps.begin(), deps.end());
      OperandInfo& info = info_of(*out.operand);
      if (info.kind == OperandKind::kOperationResult && info.name.empty()) {
        auto reserved = output_names_.find(v->name);
        info.name = reserved != output_names_.end() ? reserved->second : unique_name(v->name);
      }
    } else {
      throw OperationError("output " + std::to_string(i) + " was not produced (importer bug)");
    }
    if (options_.recordValues)  // `cppnn compare` (onnx_import.h)
      result_.values[v->name] = {v->desc, v->operand, v->host.has_value(),
                                 v->host ? v->host->data : ConstantData{}};
    const std::string name = v->name;
    define_value(std::move(v), name);
  }
}

void Importer::convert_node(const onnx::NodeProto& node, size_t index) {
  const std::string label = node_label(node, index);
  try {
    std::vector<Value*> inputs;
    bool all_known = true;
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      Value* v = find_value(name).get();
      if (!v)
        throw DataError("input '" + name +
                        "' is not produced by an earlier node, an input or an "
                        "initializer");
      inputs.push_back(v);
      all_known = all_known && v->host.has_value();
    }
    if (node.output_size() == 0) return;
    // Control flow (If, Loop, Scan) imports its subgraphs on the model's builder: its subgraphs
    // may read run-time values of enclosing scopes, and fold node by node themselves.
    if (all_known && !has_subgraph(node) && try_fold(node, index, inputs)) return;
    NodeContext c(*this, node, index, inputs, builder_, false);
    find_handler(node.op_type())(c);
    store_outputs(node, c);
  } catch (const Error& e) {
    const std::string prefix = "ONNX node '" + label + "' (" + node.op_type() + "): ";
    const std::string message = e.what();
    throw_error(e.kind(), message.rfind("ONNX node '", 0) == 0 ? message : prefix + message);
  }
}

void Importer::reserve_output_names(const onnx::GraphProto& graph) {
  for (const auto& out : graph.output())
    if (!output_names_.count(out.name())) output_names_[out.name()] = unique_name(out.name());
}

void Importer::add_outputs(const onnx::GraphProto& graph) {
  std::set<uint32_t> used;
  for (const auto& out : graph.output()) {
    auto it = values_.find(out.name());
    if (it == values_.end())
      throw DataError("graph output '" + out.name() + "' is not produced by any node");
    MLOperand o = materialize(*it->second);
    if (info_of(o).kind != OperandKind::kOperationResult || !used.insert(o.id().value).second) {
      MLOperatorOptions options;
      options.label = "output " + out.name();
      o = builder_.identity(o, options);
    }
    used.insert(o.id().value);
    const std::string& name = output_names_.at(out.name());
    info_of(o).name = name;
    result_.outputNames.emplace_back(out.name(), name);
    result_.outputs.emplace(name, o);
  }
}

void Importer::check_opset(const onnx::ModelProto& model) const {
  bool declared = false;
  for (const auto& op : model.opset_import())
    declared = declared || op.domain().empty() || op.domain() == "ai.onnx";
  if (!declared)
    throw DataError("the model imports no ai.onnx opset (opset_import has no default domain)");
  if (opset_ < kMinOnnxOpset || opset_ > kMaxOnnxOpset)
    throw NotSupportedError("opset " + std::to_string(opset_) + " is not supported (opsets " +
                            std::to_string(kMinOnnxOpset) + " to " + std::to_string(kMaxOnnxOpset) +
                            " are)");
}

void Importer::check_single_assignment(const onnx::GraphProto& graph) const {
  std::map<std::string, std::string> producer;  // value name -> what defines it
  for (const auto& init : graph.initializer()) producer.emplace(init.name(), "an initializer");
  for (const auto& in : graph.input()) producer.emplace(in.name(), "a graph input");
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    const std::string where =
        "ONNX node '" + node.name() + "' (#" + std::to_string(i) + ", " + node.op_type() + ")";
    for (const std::string& out : node.output()) {
      if (out.empty()) continue;  // an omitted optional output
      auto [it, inserted] = producer.emplace(out, where);
      if (!inserted)
        throw DataError(where + ": output '" + out + "' is already defined by " + it->second +
                        " (every value must have one producer)");
    }
  }
}

void Importer::warn_unused_overrides(const onnx::GraphProto& graph) {
  std::set<std::string> inputs;
  for (const auto& in : graph.input()) inputs.insert(in.name());
  auto list = [](const std::set<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? std::string("none") : out;
  };
  std::set<std::string> lower_seen;
  for (const std::string& d : free_dims_seen_) lower_seen.insert(lowercase(d));
  for (const auto& [name, value] : options_.freeDimensions)
    if (!free_dims_seen_.count(name) && !lower_seen.count(name))
      warn("--override-dim " + name + "=" + std::to_string(value) +
           ": the model has no free dimension '" + name +
           "' (free dimensions: " + list(free_dims_seen_) + ")");
  for (const auto& [name, shape] : options_.inputShapes)
    if (!inputs.count(name))
      warn("--input-shape " + name + ": the model has no input '" + name +
           "' (inputs: " + list(inputs) + ")");
  for (const auto& [name, value] : options_.inputValues)
    if (!inputs.count(name))
      warn("--input-value " + name + ": the model has no input '" + name +
           "' (inputs: " + list(inputs) + ")");
}

OnnxImportResult Importer::run(const onnx::ModelProto& model) {
  opset_ = onnx_opset_of(model);
  check_opset(model);
  const onnx::GraphProto& graph = model.graph();
  check_single_assignment(graph);
  result_.graphName = graph.name().empty() ? "graph" : graph.name();  // as written (§8)
  if (auto problem = name_problem(graph.name())) {  // never written into a graph file
    warn("the graph name " + quoted_for_message(graph.name()) + " " + *problem +
         "; using \"graph\"");
    result_.graphName = "graph";
  }
  check_supported(graph);
  add_initializers(graph);
  add_inputs(graph);
  warn_unused_overrides(graph);
  reserve_output_names(graph);
  for (int i = 0; i < graph.node_size(); ++i) convert_node(graph.node(i), static_cast<size_t>(i));
  add_outputs(graph);
  return std::move(result_);
}

}  // namespace cppnn::onnx_import
