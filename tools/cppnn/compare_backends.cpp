// `cppnn compare GRAPH --backend A --against B`: one graph built on two backends with every
// operation output exposed as a graph output, run on the same inputs, compared per operation in
// the graph's (topological) order (compare.h). Backend A's values are compared against B's.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>

#include "cppnn/errors.h"
#include "cppnn/webnn.h"
#include "src/api/states.h"
#include "tools/cppnn/compare.h"
#include "tools/cppnn/compare_report.h"
#include "tools/cppnn/graph_runner.h"
#include "tools/cppnn/graph_source.h"

namespace cppnn::tool::compare {
namespace {

using Clock = std::chrono::steady_clock;
double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// One backend's build: the recorded graph model and the graph output holding each operation
// output (by operand id), empty where the backend cannot output its type or rank.
struct Side {
  std::optional<MLContext> context;
  LoadedGraph loaded;
  std::shared_ptr<detail::BuilderState> state;
  std::map<uint32_t, std::string> output_of;
  std::optional<MLGraph> graph;
  double build_ms = 0, run_ms = 0;
  NamedBytes values;
};

// The name of operand `id` in the report: its name in the graph file, else "%<id>".
std::string operand_name(const Graph& g, OperandId id) {
  const std::string& name = g.operand(id).name;
  return name.empty() ? "%" + std::to_string(id.value) : name;
}

void build_side(Side& side, const std::string& backend, const Options& o) {
  MLContextOptions options;
  options.backend = backend;
  side.context = MLContext::create(options);
  MLGraphBuilder builder(*side.context);
  const auto t0 = Clock::now();
  load_graph_source(builder, o.args, side.loaded);
  if (side.loaded.outputs.empty()) throw DataError(o.path + ": the graph has no outputs");
  side.state = side.loaded.outputs.begin()->second.builder_state();
  MLNamedOperands outputs = side.loaded.outputs;
  for (const auto& [name, operand] : outputs) side.output_of[operand.id().value] = name;
  const MLOpSupportLimits limits = side.context->opSupportLimits();
  const auto& types = limits.output.dataTypes;
  const Graph& g = side.state->graph;
  for (const Operation& op : g.operations)
    for (OperandId id : op.outputs) {
      if (side.output_of.count(id.value)) continue;
      const MLOperandDescriptor& desc = g.descriptor(id);
      const auto rank = static_cast<uint32_t>(desc.shape.size());
      if (std::find(types.begin(), types.end(), desc.dataType) == types.end() ||
          rank < limits.output.rankRange.min || rank > limits.output.rankRange.max)
        continue;
      const std::string name = "cppnn_compare_" + std::to_string(id.value);
      side.output_of[id.value] = name;
      outputs.emplace(name, side.state->handle(side.state, id));
    }
  side.graph = builder.build(outputs);
  side.build_ms = ms(Clock::now() - t0);
}

}  // namespace

int compare_backends(const Options& o) {
  Side a, b;
  build_side(a, o.backend, o);
  build_side(b, o.against, o);
  const auto values = input_values(a.graph->inputs(), o);
  for (Side* s : {&a, &b}) {
    const auto t0 = Clock::now();
    GraphRunner runner(*s->context, *s->graph, values);
    s->values = runner.run();
    s->run_ms = ms(Clock::now() - t0);
  }

  const Graph& ga = a.state->graph;
  const Graph& gb = b.state->graph;
  Report report;
  report.command_line = o.path + " on " + a.context->backend() + " against " + b.context->backend();
  report.got_name = a.context->backend();
  report.want_name = b.context->backend();
  report.atol = o.atol;
  report.rtol = o.rtol;
  const auto t0 = Clock::now();
  for (size_t i = 0; i < ga.operations.size(); ++i) {
    const Operation& op = ga.operations[i];
    for (OperandId id : op.outputs) {
      Row row;
      row.index = i;
      row.op_type = std::string(op_name(op.type));
      row.node = op.label().empty() ? "#" + std::to_string(i) : op.label();
      row.output = operand_name(ga, id);
      for (OperandId in : op.inputs)
        if (in.value < ga.operands.size()) row.inputs.push_back(operand_name(ga, in));
      const MLOperandDescriptor& desc = ga.descriptor(id);
      row.type = onnx_type_of(desc.dataType);
      row.shape.assign(desc.shape.begin(), desc.shape.end());
      auto skip = [&](std::string why) {
        row.status = RowStatus::kSkipped;
        row.note = std::move(why);
        report.rows.push_back(std::move(row));
      };
      if (i >= gb.operations.size() || gb.operations[i].type != op.type ||
          gb.operations[i].outputs != op.outputs) {
        skip("recorded differently on " + b.context->backend());
        continue;
      }
      auto na = a.output_of.find(id.value);
      auto nb = b.output_of.find(id.value);
      if (na == a.output_of.end() || nb == b.output_of.end()) {
        skip("a backend has no " + std::string(data_type_name(desc.dataType)) + " rank-" +
             std::to_string(desc.shape.size()) + " graph outputs");
        continue;
      }
      const uint64_t count = element_count(desc.shape);
      const auto x = to_doubles(row.type, a.values.at(na->second), count);
      const auto y = to_doubles(row.type, b.values.at(nb->second), count);
      if (!x || !y) {
        skip("element type " + std::string(data_type_name(desc.dataType)) + " is not compared");
        continue;
      }
      row.status = RowStatus::kCompared;
      row.tol = tolerance_for(row.type, o.atol, o.rtol);
      compare_row(row, *x, *y);
      report.rows.push_back(std::move(row));
    }
  }
  report.timings_ms = {{"build " + a.context->backend(), a.build_ms},
                       {"build " + b.context->backend(), b.build_ms},
                       {"dispatch+read " + a.context->backend(), a.run_ms},
                       {"dispatch+read " + b.context->backend(), b.run_ms},
                       {"compare", ms(Clock::now() - t0)}};
  return print_report(report, o.all, o.report);
}

}  // namespace cppnn::tool::compare
