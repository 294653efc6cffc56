// `cppnn compare MODEL.onnx`: the converted model on a cppnn backend against ONNX Runtime on the
// original, every ONNX node output exposed on both sides (compare.h). The importer reports which
// WebNN operand holds each ONNX value (OnnxImportOptions::recordValues); those operands become
// extra graph outputs of the compared build only, and a copy of the ModelProto with every node
// output as a graph output runs in ORT from memory.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>

#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "src/passes/rewriter.h"
#include "tools/cppnn/compare.h"
#include "tools/cppnn/compare_ort.h"
#include "tools/cppnn/compare_proto.h"
#include "tools/cppnn/compare_report.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool::compare {
namespace {

using Clock = std::chrono::steady_clock;
double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Folded values up to this size are compared on the host.
constexpr uint64_t kFoldedCompareBytes = uint64_t{64} << 20;

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// The converted model (perturbed with --perturb): the importer's serialized input.
std::string model_to_import(const onnx::ModelProto& original, const std::string& bytes,
                            const Options& o, const std::filesystem::path& base_dir) {
  if (!o.perturb) return bytes;
  const auto& [node_name, eps] = *o.perturb;
  const size_t index = find_node(original.graph(), node_name);
  const onnx::NodeProto& node = original.graph().node(static_cast<int>(index));
  if (node.output_size() == 0 || node.output(0).empty())
    throw DataError("--perturb: node '" + node_name + "' has no first output");
  // The type of its output, from a conversion recorded without a backend.
  OnnxImportOptions options = o.import;
  options.recordValues = true;
  MLGraphBuilder scratch = passes::pass_builder();
  const OnnxImportResult r = import_onnx_bytes(scratch, as_bytes(bytes), options, base_dir);
  auto it = r.values.find(node.output(0));
  if (it == r.values.end())
    throw DataError("--perturb: node '" + node_name + "' was not converted");
  const MLOperandDataType type = it->second.descriptor.dataType;
  if (type != MLOperandDataType::kFloat32 && type != MLOperandDataType::kFloat16)
    throw DataError("--perturb: node '" + node_name + "' has a " +
                    std::string(data_type_name(type)) +
                    " output; only float32 and float16 outputs can be perturbed");
  onnx::ModelProto perturbed = original;
  perturb_node(perturbed, index, eps, type == MLOperandDataType::kFloat16);
  return perturbed.SerializeAsString();
}

}  // namespace

int compare_onnx_model(const Options& o) {
  if (!ort_available()) {
    std::cerr << "compare: ONNX Runtime is not compiled in; skipped\n";
    return 77;
  }
  auto content = read_file(o.path);
  if (!content) throw_error(content.error().kind, content.error().message);
  onnx::ModelProto original;
  if (content->size() > static_cast<size_t>(INT32_MAX) || !original.ParseFromString(*content) ||
      !original.has_graph())
    throw DataError(o.path + ": not an ONNX model (the bytes do not parse as an onnx.ModelProto)");
  const std::filesystem::path model_path(o.path);
  const std::filesystem::path base_dir =
      model_path.has_parent_path() ? model_path.parent_path() : ".";
  const onnx::GraphProto& graph = original.graph();

  // ---- the conversion, every node output exposed ----
  MLContextOptions context_options;
  context_options.backend = o.backend;
  MLContext context = MLContext::create(context_options);
  MLGraphBuilder builder(context);
  const auto t0 = Clock::now();
  OnnxImportResult imported;
  try {
    OnnxImportOptions options = o.import;
    options.recordValues = true;
    imported = import_onnx_bytes(
        builder, as_bytes(model_to_import(original, *content, o, base_dir)), options, base_dir);
  } catch (const Error& e) {
    throw_error(e.kind(), o.path + ": " + e.what());
  }
  for (const std::string& w : imported.warnings) std::cerr << "warning: " << w << "\n";
  const auto t1 = Clock::now();

  MLNamedOperands outputs = imported.outputs;
  std::map<uint32_t, std::string> exposed;          // operand id -> graph output name
  std::map<std::string, std::string> value_output;  // ONNX value -> graph output name
  std::map<std::string, std::string> not_exposed;   // ONNX value -> why
  for (const auto& [name, operand] : outputs) exposed[operand.id().value] = name;
  const MLOpSupportLimits limits = context.opSupportLimits();
  const auto& types = limits.output.dataTypes;
  for (const auto& node : graph.node())
    for (const std::string& out : node.output()) {
      auto it = imported.values.find(out);
      if (it == imported.values.end() || it->second.folded || !it->second.operand) continue;
      MLOperand operand = *it->second.operand;
      if (auto e = exposed.find(operand.id().value); e != exposed.end()) {
        value_output[out] = e->second;
        continue;
      }
      const MLOperandDescriptor& desc = it->second.descriptor;
      if (std::find(types.begin(), types.end(), desc.dataType) == types.end()) {
        not_exposed[out] =
            "the backend has no " + std::string(data_type_name(desc.dataType)) + " graph outputs";
        continue;
      }
      const auto rank = static_cast<uint32_t>(desc.shape.size());
      if (rank < limits.output.rankRange.min || rank > limits.output.rankRange.max) {
        not_exposed[out] = "the backend has no rank-" + std::to_string(rank) + " graph outputs";
        continue;
      }
      const auto& state = operand.builder_state();
      if (state->graph.operands.at(operand.id().value).kind != OperandKind::kOperationResult)
        operand = builder.identity(operand);  // a graph input or constant: no op of its own
      const std::string name = "cppnn_compare_" + std::to_string(exposed.size());
      exposed[it->second.operand->id().value] = name;
      exposed[operand.id().value] = name;
      outputs.emplace(name, operand);
      value_output[out] = name;
    }
  MLGraph built = builder.build(outputs);
  const auto t2 = Clock::now();

  // ---- inputs: the same bytes on both sides ----
  std::map<std::string, std::string> aliases;  // ONNX input name -> graph input name
  for (const auto& [onnx_name, name] : imported.inputNames) aliases[onnx_name] = name;
  auto values = input_values(built.inputs(), o, aliases);
  std::map<std::string, OrtFeed> feeds;
  std::vector<FixedFeed> fixed;
  fixed.reserve(o.import.inputValues.size());
  for (const auto& [onnx_name, name] : imported.inputNames) {
    const MLOperandDescriptor& desc = built.inputs().at(name);
    std::vector<std::byte>& bytes = values.at(name);
    const DeclaredInput declared = declared_input(graph, onnx_name);
    int type = onnx_type_of(desc.dataType);
    if (declared.type == 9) {  // bool, a uint8 input in WebNN: 0 or 1 on both sides
      type = 9;
      for (std::byte& b : bytes) b = std::byte{b != std::byte{0}};
    }
    feeds[onnx_name] = OrtFeed{type, {desc.shape.begin(), desc.shape.end()}, bytes};
  }
  for (const auto& in : graph.input())
    if (auto it = o.import.inputValues.find(in.name()); it != o.import.inputValues.end()) {
      const FixedFeed& f = fixed.emplace_back(fixed_feed(graph, in.name(), it->second));
      feeds[in.name()] = OrtFeed{f.type, f.shape, f.bytes};
    }

  // ---- run both ----
  MLNamedTensors in_tensors, out_tensors;
  for (const auto& [name, desc] : built.inputs()) {
    MLTensor t = context.createTensor(MLTensorDescriptor::of(desc, false, true));
    context.writeTensor(t, values.at(name));
    in_tensors.emplace(name, t);
  }
  for (const auto& [name, desc] : built.outputs())
    out_tensors.emplace(name, context.createTensor(MLTensorDescriptor::of(desc, true, false)));
  context.dispatch(built, in_tensors, out_tensors);
  std::map<std::string, std::vector<std::byte>> got;
  for (const auto& [name, tensor] : out_tensors) got[name] = context.readTensor(tensor);
  const auto t3 = Clock::now();

  onnx::ModelProto exposed_model = original;
  std::vector<std::string> fetch = expose_node_outputs(exposed_model);
  const std::string serialized = exposed_model.SerializeAsString();
  exposed_model.Clear();
  const auto want = run_ort(as_bytes(serialized), base_dir, feeds, fetch);
  const auto t4 = Clock::now();

  // ---- one row per node output, in topological (node) order ----
  Report report;
  report.command_line = o.path + " on " + context.backend() + " against onnxruntime";
  report.got_name = context.backend();
  report.want_name = "ort";
  report.atol = o.atol;
  report.rtol = o.rtol;
  std::set<std::string> done;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    for (const std::string& out : node.output()) {
      if (out.empty() || !done.insert(out).second) continue;
      Row row;
      row.index = static_cast<size_t>(i);
      row.op_type = node.op_type();
      row.node = node_label(node, row.index);
      row.output = out;
      for (const std::string& in : node.input())
        if (!in.empty()) row.inputs.push_back(in);
      auto skip = [&](std::string why) {
        row.status = RowStatus::kSkipped;
        row.note = std::move(why);
        report.rows.push_back(std::move(row));
      };
      auto w = want.find(out);
      if (w == want.end()) {
        skip("ONNX Runtime returned no numeric tensor");
        continue;
      }
      const OrtTensor& ref = w->second;
      row.type = ref.type;
      row.shape = ref.shape;
      auto v = imported.values.find(out);
      if (v == imported.values.end()) {
        skip("not converted");
        continue;
      }
      const OnnxImportedValue& value = v->second;
      const std::vector<int64_t> shape(value.descriptor.shape.begin(),
                                       value.descriptor.shape.end());
      uint64_t count = 1;
      for (int64_t d : ref.shape) count *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
      if (element_count(value.descriptor.shape) != count) {
        skip("shape " + shape_string(shape) + ", ORT's " + shape_string(ref.shape));
        continue;
      }
      if (shape != ref.shape) row.note = "cppnn shape " + shape_string(shape);
      std::span<const std::byte> bytes;
      if (value.folded) {
        if (value.constant.size() > kFoldedCompareBytes) {
          skip("folded at conversion; too large to compare on the host");
          continue;
        }
        bytes = value.constant.bytes();
      } else if (auto g = value_output.find(out); g != value_output.end()) {
        bytes = got.at(g->second);
      } else {
        auto n = not_exposed.find(out);
        skip(n != not_exposed.end() ? n->second : "no WebNN operand");
        continue;
      }
      const auto a = to_doubles(onnx_type_of(value.descriptor.dataType), bytes, count);
      const auto b = to_doubles(ref.type, ref.bytes, count);
      if (!a || !b) {
        skip("element type " + onnx_type_name(ref.type) + " is not compared");
        continue;
      }
      row.status = value.folded ? RowStatus::kFolded : RowStatus::kCompared;
      row.tol = tolerance_for(ref.type, o.atol, o.rtol);
      compare_row(row, *a, *b);
      report.rows.push_back(std::move(row));
    }
  }
  const auto t5 = Clock::now();
  report.timings_ms = {{"import", ms(t1 - t0)},
                       {"build", ms(t2 - t1)},
                       {"dispatch+read", ms(t3 - t2)},
                       {"ORT", ms(t4 - t3)},
                       {"compare", ms(t5 - t4)}};
  return print_report(report, o.all, o.report);
}

}  // namespace cppnn::tool::compare
