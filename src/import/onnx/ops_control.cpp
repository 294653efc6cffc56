// ONNX control flow (ops_control.def). WebNN graphs have no control flow, so:
// - If: a condition known at conversion inlines the taken branch; a run-time condition imports
//   both branches and selects each output with where(), which needs equal shapes and types.
// - Loop, Scan: a trip count known at conversion (Loop: M and/or a condition that folds; Scan:
//   the scan axis length) unrolls the body, bounded by kMaxUnrolledNodes over the model.
// Subgraphs read enclosing values by name and share their initializers (Importer::import_subgraph).
#include <algorithm>

#include "cppnn/errors.h"
#include "src/import/onnx/importer.h"
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_control_util.h"
#include "src/import/onnx/ops_util.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

// The most nodes the unrolled Loop and Scan bodies of one model may import in total (a body of
// B nodes run T times counts B * T; nested subgraphs count their own nodes).
constexpr int64_t kMaxUnrolledNodes = 100000;

// The GRAPH attribute `name` (DataError when it is missing).
const onnx::GraphProto& graph_attr(const NodeContext& c, const char* name) {
  const onnx::AttributeProto* a = c.attr(name);
  if (!a || !a->has_g()) c.invalid(std::string("attribute '") + name + "' must be a graph");
  return a->g();
}

// Nodes of `graph` and of its subgraphs.
int64_t subgraph_nodes(const onnx::GraphProto& graph) {
  int64_t n = graph.node_size();
  for (const auto& node : graph.node())
    for (const auto& a : node.attribute()) {
      if (a.has_g()) n += subgraph_nodes(a.g());
      for (const auto& g : a.graphs()) n += subgraph_nodes(g);
    }
  return n;
}

// Counts `iterations` unrolled copies of a body of `body_nodes` nodes against kMaxUnrolledNodes.
void reserve_unroll(NodeContext& c, int64_t iterations, int64_t body_nodes) {
  int64_t& used = c.importer().unrolled_nodes();
  body_nodes = std::max<int64_t>(body_nodes, 1);
  if (iterations > (kMaxUnrolledNodes - used) / body_nodes)
    c.unsupported("unrolling " + std::to_string(iterations) + " iteration(s) of a body of " +
                  std::to_string(body_nodes) + " node(s) exceeds the unroll limit of " +
                  std::to_string(kMaxUnrolledNodes) + " nodes per model (kMaxUnrolledNodes; " +
                  std::to_string(used) + " used by earlier loops)");
  used += iterations * body_nodes;
}

// The single element of a known condition or count.
int64_t single_value(NodeContext& c, size_t input, const char* what) {
  const HostTensor& t = c.constant(input, what);
  if (t.elements() != 1)
    c.invalid(std::string(what) + " has " + std::to_string(t.elements()) +
              " elements (one is required)");
  return t.to_int64()[0];
}

// The value of input i, shared (NotSupportedError when it is omitted).
std::shared_ptr<Value> input_value(NodeContext& c, size_t i, const char* what) {
  if (!c.has_input(i)) c.invalid("input " + std::to_string(i) + " (" + what + ") is required");
  return c.importer().find_value(c.node().input(static_cast<int>(i)));
}

// An empty scan output (zero iterations): [0] + the body output's declared static shape.
HostTensor empty_scan_output(NodeContext& c, const onnx::ValueInfoProto& info) {
  const std::string where = "scan output '" + info.name() + "' is empty (zero iterations)";
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
    c.unsupported(where + " and the body does not declare its shape");
  const auto& tt = info.type().tensor_type();
  const auto type = webnn_type_of(tt.elem_type());
  if (!type) c.unsupported(where + " of a type WebNN lacks");
  std::vector<uint32_t> shape{0};
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0 || d.dim_value() > UINT32_MAX)
      c.unsupported(where + " and the body does not declare a static shape");
    shape.push_back(static_cast<uint32_t>(d.dim_value()));
  }
  return HostTensor::of_bytes({*type, shape}, {});
}

// Sets the node's outputs from an unrolled loop: the final carried values, then each scan
// output's per-iteration values stacked along `axes[k]` (reversed when `reverse[k]`).
void set_loop_outputs(NodeContext& c, const onnx::GraphProto& body, size_t first_scan_body_output,
                      const std::vector<std::shared_ptr<Value>>& carried,
                      std::vector<std::vector<std::shared_ptr<Value>>>& scans,
                      const std::vector<int64_t>& axes, const std::vector<int64_t>& reverse) {
  for (size_t j = 0; j < carried.size(); ++j)
    if (c.wants_output(j)) c.set_output_alias(j, carried[j]);
  for (size_t k = 0; k < scans.size(); ++k) {
    const size_t out = carried.size() + k;
    if (!c.wants_output(out)) continue;
    const std::string name = c.node().output(static_cast<int>(out));
    if (scans[k].empty()) {
      c.set_output(out,
                   empty_scan_output(c, body.output(static_cast<int>(first_scan_body_output + k))));
      continue;
    }
    if (k < reverse.size() && reverse[k] != 0) std::reverse(scans[k].begin(), scans[k].end());
    const int64_t axis = k < axes.size() ? axes[k] : 0;
    const uint32_t a = normalize_axis(c, axis, scans[k].front()->desc.shape.size() + 1);
    c.set_output_alias(out, stack_values(c, scans[k], a, name, "scan output " + std::to_string(k)));
  }
}

// The scan of one sequence (Scan 9+, or one batch of Scan 8): `slices[j][t]` is scan input j's
// slice t in forward order; input direction 1 reads it backwards. Returns the final states and
// collects each scan output's per-step values into `scans`.
std::vector<std::shared_ptr<Value>> run_scan(
    NodeContext& c, const onnx::GraphProto& body, std::vector<std::shared_ptr<Value>> states,
    const std::vector<std::vector<std::shared_ptr<Value>>>& slices,
    const std::vector<int64_t>& directions, size_t steps,
    std::vector<std::vector<std::shared_ptr<Value>>>& scans, const std::string& where) {
  for (size_t t = 0; t < steps; ++t) {
    std::vector<std::shared_ptr<Value>> inputs = states;
    for (size_t j = 0; j < slices.size(); ++j)
      inputs.push_back(slices[j][directions[j] != 0 ? steps - 1 - t : t]);
    auto outs =
        c.importer().import_subgraph(body, inputs, where + "body iteration " + std::to_string(t));
    if (outs.size() != states.size() + scans.size())
      c.invalid("the body has " + std::to_string(outs.size()) + " outputs where " +
                std::to_string(states.size() + scans.size()) + " are expected");
    for (size_t j = 0; j < states.size(); ++j) states[j] = outs[j];
    for (size_t k = 0; k < scans.size(); ++k) scans[k].push_back(outs[states.size() + k]);
  }
  return states;
}

// A per-input attribute list of `count` values (default 0 each); DataError for another length.
std::vector<int64_t> per_input(const NodeContext& c, const char* name, size_t count) {
  std::vector<int64_t> v = c.attr_ints(name, std::vector<int64_t>(count, 0));
  if (v.size() != count)
    c.invalid(std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
              " values where " + std::to_string(count) + " are expected");
  return v;
}

// Scan 8: a batch axis 0 in front of every state and scan input (scan axis 1), an optional
// sequence_lens that must equal the scan length everywhere.
void import_scan8(NodeContext& c, const onnx::GraphProto& body, size_t m) {
  if (c.input_count() < m + 1) c.invalid("fewer inputs than num_scan_inputs + 1");
  const size_t n = c.input_count() - 1 - m;
  if (body.input_size() != static_cast<int>(n + m) || body.output_size() < static_cast<int>(n))
    c.invalid("the body's inputs and outputs do not match the node's");
  const size_t k_outs = static_cast<size_t>(body.output_size()) - n;
  const std::vector<int64_t> directions = per_input(c, "directions", m);
  std::vector<std::shared_ptr<Value>> values;
  for (size_t j = 0; j < n + m; ++j) values.push_back(input_value(c, 1 + j, "state or scan input"));
  for (size_t j = 0; j < n + m; ++j)
    if (values[j]->desc.shape.size() < (j < n ? 1u : 2u))
      c.invalid("input " + std::to_string(1 + j) + " lacks the batch (and scan) axis");
  if (values.empty()) c.invalid("no states and no scan inputs");
  const uint32_t batch = values.front()->desc.shape[0];
  const uint32_t steps = m > 0 ? values[n]->desc.shape[1] : 0;
  for (size_t j = 0; j < n + m; ++j)
    if (values[j]->desc.shape[0] != batch || (j >= n && values[j]->desc.shape[1] != steps))
      c.invalid("the batch or scan lengths of the inputs differ");
  if (c.has_input(0))
    for (int64_t len : c.ints(0, "sequence_lens"))
      if (len != steps)
        c.unsupported("sequence_lens " + std::to_string(len) + " differs from the scan length " +
                      std::to_string(steps) + " (only full-length sequences unroll)");
  if (steps == 0) c.unsupported("an empty scan");
  reserve_unroll(c, int64_t{batch} * steps, subgraph_nodes(body));
  std::vector<std::vector<std::shared_ptr<Value>>> per_batch(n + m);
  for (size_t j = 0; j < n + m; ++j) per_batch[j] = unstack_value(c, values[j], 0);
  std::vector<std::vector<std::shared_ptr<Value>>> final_states(n), scan_outputs(k_outs);
  for (uint32_t b = 0; b < batch; ++b) {
    std::vector<std::shared_ptr<Value>> states;
    for (size_t j = 0; j < n; ++j) states.push_back(per_batch[j][b]);
    std::vector<std::vector<std::shared_ptr<Value>>> slices;
    for (size_t j = n; j < n + m; ++j) slices.push_back(unstack_value(c, per_batch[j][b], 0));
    std::vector<std::vector<std::shared_ptr<Value>>> scans(k_outs);
    states = run_scan(c, body, states, slices, directions, steps, scans,
                      "batch " + std::to_string(b) + " ");
    for (size_t j = 0; j < n; ++j) final_states[j].push_back(states[j]);
    for (size_t k = 0; k < k_outs; ++k)
      scan_outputs[k].push_back(
          stack_values(c, scans[k], 0, c.node().output(0), "scan output " + std::to_string(k)));
  }
  std::vector<std::shared_ptr<Value>> states;
  for (size_t j = 0; j < n; ++j)
    states.push_back(stack_values(c, final_states[j], 0, c.node().output(static_cast<int>(j)),
                                  "state " + std::to_string(j)));
  set_loop_outputs(c, body, n, states, scan_outputs, {}, {});
}

}  // namespace

void import_If(NodeContext& c) {
  const onnx::GraphProto& then_branch = graph_attr(c, "then_branch");
  const onnx::GraphProto& else_branch = graph_attr(c, "else_branch");
  Importer& importer = c.importer();
  if (!c.has_input(0)) c.invalid("input 0 (cond) is required");
  if (element_count(c.input_shape(0)) != 1)
    c.invalid("the condition has " + std::to_string(element_count(c.input_shape(0))) +
              " elements (one is required)");
  auto check_count = [&](const std::vector<std::shared_ptr<Value>>& outs, const char* branch) {
    if (outs.size() != c.output_count())
      c.invalid(std::string(branch) + " has " + std::to_string(outs.size()) +
                " outputs where the node has " + std::to_string(c.output_count()));
  };
  if (c.is_constant(0)) {  // inline the taken branch
    const bool taken = single_value(c, 0, "cond") != 0;
    const char* name = taken ? "then_branch" : "else_branch";
    auto outs = importer.import_subgraph(taken ? then_branch : else_branch, {}, name);
    check_count(outs, name);
    for (size_t i = 0; i < outs.size(); ++i) c.set_output_alias(i, outs[i]);
    return;
  }
  // A run-time condition: both branches, and where(cond, then, else) per output.
  auto then_outs = importer.import_subgraph(then_branch, {}, "then_branch");
  auto else_outs = importer.import_subgraph(else_branch, {}, "else_branch");
  check_count(then_outs, "then_branch");
  check_count(else_outs, "else_branch");
  MLOperand cond = c.input(0);
  if (!c.input_shape(0).empty()) cond = c.builder().reshape(cond, {}, c.opts<MLOperatorOptions>());
  for (size_t i = 0; i < c.output_count(); ++i) {
    if (!c.wants_output(i)) continue;
    if (then_outs[i] == else_outs[i]) {
      c.set_output_alias(i, then_outs[i]);
      continue;
    }
    const MLOperandDescriptor& t = then_outs[i]->desc;
    const MLOperandDescriptor& e = else_outs[i]->desc;
    if (t.dataType != e.dataType || t.shape != e.shape)
      c.unsupported("output " + std::to_string(i) + " ('" + c.node().output(static_cast<int>(i)) +
                    "'): then_branch gives " + to_string(t) + " and else_branch " + to_string(e) +
                    "; with a condition computed at run time both branches must give the same "
                    "shape and type (fix the condition's inputs with --input-value to inline "
                    "one branch)");
    c.set_output(
        i, c.builder().where(cond, importer.materialize(*then_outs[i]),
                             importer.materialize(*else_outs[i]), c.opts<MLOperatorOptions>()));
  }
}

void import_Loop(NodeContext& c) {
  const onnx::GraphProto& body = graph_attr(c, "body");
  if (c.input_count() < 2) c.invalid("Loop needs the inputs M and cond (either may be empty)");
  const size_t n = c.input_count() - 2;
  if (body.input_size() != static_cast<int>(n + 2) || body.output_size() < static_cast<int>(n + 1))
    c.invalid("the body has " + std::to_string(body.input_size()) + " inputs and " +
              std::to_string(body.output_size()) + " outputs for " + std::to_string(n) +
              " loop-carried values");
  const size_t k_outs = static_cast<size_t>(body.output_size()) - n - 1;
  std::optional<int64_t> trip;
  if (c.has_input(0)) trip = single_value(c, 0, "trip count M");
  const bool has_cond = c.has_input(1);
  bool cond = !has_cond || single_value(c, 1, "cond") != 0;
  if (!trip && !has_cond) c.unsupported("a Loop with neither trip count nor condition never ends");
  std::vector<std::shared_ptr<Value>> carried;
  for (size_t j = 0; j < n; ++j) carried.push_back(input_value(c, 2 + j, "loop-carried value"));
  const int64_t body_nodes = subgraph_nodes(body);
  if (!has_cond) reserve_unroll(c, std::max<int64_t>(*trip, 0), body_nodes);
  std::vector<std::vector<std::shared_ptr<Value>>> scans(k_outs);
  for (int64_t i = 0; (!trip || i < *trip) && cond; ++i) {
    if (has_cond) reserve_unroll(c, 1, body_nodes);
    std::vector<std::shared_ptr<Value>> inputs{
        host_value(body.input(0).name(), HostTensor::of_int64({i}, {})),
        host_value(body.input(1).name(), HostTensor::of_int64({1}, {}, MLOperandDataType::kUint8))};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    const std::string where = "body iteration " + std::to_string(i);
    auto outs = c.importer().import_subgraph(body, inputs, where);
    if (has_cond) {
      if (!outs[0]->host)
        c.unsupported(where + ": the loop condition '" + body.output(0).name() +
                      "' is computed from run-time values, so the trip count is not known at "
                      "conversion and the Loop cannot be unrolled");
      if (outs[0]->host->elements() != 1)
        c.invalid(where + ": the loop condition has " + std::to_string(outs[0]->host->elements()) +
                  " elements (one is required)");
      cond = outs[0]->host->to_int64()[0] != 0;
    }
    for (size_t j = 0; j < n; ++j) carried[j] = outs[1 + j];
    for (size_t k = 0; k < k_outs; ++k) scans[k].push_back(outs[1 + n + k]);
  }
  set_loop_outputs(c, body, 1 + n, carried, scans, {}, {});
}

void import_Scan(NodeContext& c) {
  const onnx::GraphProto& body = graph_attr(c, "body");
  const int64_t m_attr = c.attr_int("num_scan_inputs", -1);
  if (m_attr < 1) c.invalid("attribute 'num_scan_inputs' must be at least 1");
  const size_t m = static_cast<size_t>(m_attr);
  if (c.opset() < 9) return import_scan8(c, body, m);
  if (c.input_count() < m) c.invalid("fewer inputs than num_scan_inputs");
  const size_t n = c.input_count() - m;
  if (body.input_size() != static_cast<int>(n + m) || body.output_size() < static_cast<int>(n))
    c.invalid("the body's inputs and outputs do not match the node's");
  const size_t k_outs = static_cast<size_t>(body.output_size()) - n;
  const std::vector<int64_t> in_axes = per_input(c, "scan_input_axes", m);
  const std::vector<int64_t> in_dirs = per_input(c, "scan_input_directions", m);
  const std::vector<int64_t> out_axes = per_input(c, "scan_output_axes", k_outs);
  const std::vector<int64_t> out_dirs = per_input(c, "scan_output_directions", k_outs);
  std::vector<std::shared_ptr<Value>> states;
  for (size_t j = 0; j < n; ++j) states.push_back(input_value(c, j, "initial state"));
  std::vector<std::vector<std::shared_ptr<Value>>> slices;
  std::optional<uint32_t> steps;
  for (size_t j = 0; j < m; ++j) {
    auto v = input_value(c, n + j, "scan input");
    const uint32_t axis = normalize_axis(c, in_axes[j], v->desc.shape.size());
    if (steps && *steps != v->desc.shape[axis])
      c.invalid("scan input " + std::to_string(j) + " has length " +
                std::to_string(v->desc.shape[axis]) + " where scan input 0 has " +
                std::to_string(*steps));
    steps = v->desc.shape[axis];
    if (*steps == 0) c.unsupported("an empty scan");
    if (j == 0) reserve_unroll(c, *steps, subgraph_nodes(body));
    slices.push_back(unstack_value(c, v, axis));
  }
  std::vector<std::vector<std::shared_ptr<Value>>> scans(k_outs);
  states = run_scan(c, body, states, slices, in_dirs, *steps, scans, "");
  set_loop_outputs(c, body, n, states, scans, out_axes, out_dirs);
}

}  // namespace cppnn::onnx_import
