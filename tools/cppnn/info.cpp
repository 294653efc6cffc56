// `cppnn info GRAPH [--json]`: what a graph holds: inputs and outputs with their descriptors,
// the operation histogram, and the constants (count, parameters, bytes). GRAPH is a .webnn or
// GraphJson file, or an ONNX model through the importer.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cppnn/webnn.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_source.h"
#include "tools/cppnn/tensor_values.h"

namespace cppnn::tool {
namespace {

const char kHelp[] =
    "usage: cppnn info GRAPH [--json] [--weights FILE] [--weights-manifest FILE]\n"
    "                  [--override-dim NAME=VALUE]...\n\n"
    "Prints a graph's name (its header's or the ONNX graph's, else the file's stem), its inputs\n"
    "and outputs with their descriptors, the number of operations per operator, and its\n"
    "constants (count, parameters = elements, bytes), after loading it through the builder's\n"
    "validation. --json prints one JSON object instead:\n"
    "{name, inputs: [{name, dataType, shape}], outputs: [...], operations: {count, histogram},\n"
    "constants: {count, parameters, bytes}}.\n";

nlohmann::json operand_json(const std::string& name, const OperandInfo& info) {
  nlohmann::json j = {{"name", name},
                      {"dataType", std::string(data_type_name(info.descriptor.dataType))},
                      {"shape", info.descriptor.shape}};
  if (!info.dim_names.empty()) j["dimNames"] = info.dim_names;
  return j;
}

// The descriptor, with dynamic dimensions written `name<=max`.
std::string operand_text(const OperandInfo& info) {
  if (info.dim_names.empty()) return describe(info.descriptor);
  std::string s(data_type_name(info.descriptor.dataType));
  s += " [";
  for (size_t i = 0; i < info.descriptor.shape.size(); ++i) {
    if (i) s += ", ";
    if (i < info.dim_names.size() && !info.dim_names[i].empty()) s += info.dim_names[i] + "<=";
    s += std::to_string(info.descriptor.shape[i]);
  }
  return s + "]";
}

int info(const GraphArgs& a) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  LoadedGraph loaded;
  load_graph_source(builder, a, loaded);
  const Graph g = builder.pruned_graph(loaded.outputs);

  std::map<std::string, uint64_t> histogram;
  for (const Operation& op : g.operations) ++histogram[std::string(op_name(op.type))];
  // Most frequent first, then by name.
  std::vector<std::pair<std::string, uint64_t>> ops(histogram.begin(), histogram.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  uint64_t constants = 0, parameters = 0, bytes = 0;
  for (const OperandInfo& info : g.operands) {
    if (info.kind != OperandKind::kConstant) continue;
    ++constants;
    uint64_t n = 1;
    for (uint32_t d : info.descriptor.shape) n *= d;
    parameters += n;
    bytes += g.constants.at(info.producer).size();
  }

  if (a.has("json")) {
    nlohmann::json j;
    j["name"] = loaded.name;
    j["inputs"] = nlohmann::json::array();
    for (OperandId id : g.inputs)
      j["inputs"].push_back(operand_json(g.operand(id).name, g.operand(id)));
    j["outputs"] = nlohmann::json::array();
    for (const auto& [name, id] : g.outputs)
      j["outputs"].push_back(operand_json(name, g.operand(id)));
    nlohmann::json h = nlohmann::json::object();
    for (const auto& [name, n] : ops) h[name] = n;
    j["operations"] = {{"count", g.operations.size()}, {"histogram", h}};
    j["constants"] = {{"count", constants}, {"parameters", parameters}, {"bytes", bytes}};
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::cout << "graph: " << loaded.name << " (" << a.path << ")\n";
  std::cout << "inputs (" << g.inputs.size() << "):\n";
  for (OperandId id : g.inputs)
    std::cout << "  " << g.operand(id).name << ": " << operand_text(g.operand(id)) << "\n";
  std::cout << "outputs (" << g.outputs.size() << "):\n";
  for (const auto& [name, id] : g.outputs)
    std::cout << "  " << name << ": " << operand_text(g.operand(id)) << "\n";
  std::cout << "operations (" << g.operations.size() << "):\n";
  size_t width = 0;
  for (const auto& [name, n] : ops) width = std::max(width, name.size());
  for (const auto& [name, n] : ops)
    std::cout << "  " << std::left << std::setw(int(width)) << name << "  " << n << "\n";
  std::cout << "constants: " << constants << " (" << parameters << " parameters, " << bytes
            << " bytes)\n";
  return 0;
}

}  // namespace

int run_info(const std::vector<std::string>& args) {
  GraphArgs a;
  if (auto rc = parse_command_line(
          find_command_spec("info"), args,
          std::string(kHelp) + "\n" + kGraphSourceHelp +
              "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n",
          a))
    return *rc;
  return run_command("info", [&] { return info(a); });
}

}  // namespace cppnn::tool
