#include "src/passes/rewriter.h"

#include <cstring>
#include <variant>

#include "cppnn/errors.h"
#include "cppnn/reflect.h"
#include "src/api/states.h"

namespace cppnn::passes {
namespace {

// A context for pass builders: no backend, no limits beyond the spec's.
MLContext pass_context() {
  static const std::shared_ptr<detail::ContextState> state =
      std::make_shared<detail::ContextState>();
  return MLContext(state);
}

}  // namespace

MLGraphBuilder pass_builder() {
  return MLGraphBuilder(pass_context());
}

std::vector<uint32_t> use_counts(const Graph& graph) {
  std::vector<uint32_t> uses(graph.operands.size(), 0);
  for (const Operation& op : graph.operations)
    for (OperandId in : op.inputs)
      if (in.valid()) ++uses[in.value];
  for (const auto& [name, id] : graph.outputs) ++uses[id.value];
  return uses;
}

std::vector<uint32_t> producers(const Graph& graph) {
  std::vector<uint32_t> p(graph.operands.size(), kNoOperation);
  for (size_t i = 0; i < graph.operations.size(); ++i)
    for (OperandId out : graph.operations[i].outputs) p[out.value] = static_cast<uint32_t>(i);
  return p;
}

std::optional<float> scalar_float_constant(const Graph& graph, OperandId id) {
  if (!id.valid() || graph.operand(id).kind != OperandKind::kConstant) return std::nullopt;
  const MLOperandDescriptor& d = graph.descriptor(id);
  if (d.dataType != MLOperandDataType::kFloat32 || element_count(d.shape) != 1) return std::nullopt;
  float v;
  std::memcpy(&v, graph.constant(id).data(), sizeof v);
  return v;
}

void set_label(OpAttributes& attrs, const std::string& label) {
  std::visit(
      [&](auto& a) {
        if constexpr (requires { a.options.label; }) a.options.label = label;
      },
      attrs);
}

GraphRewriter::GraphRewriter(const Graph& source)
    : source_(source), builder_(pass_context()), map_(source.operands.size()) {
  Graph& g = builder_.state()->graph;
  for (OperandId in : source.inputs) {
    OperandId id{static_cast<uint32_t>(g.operands.size())};
    g.operands.push_back(source.operand(in));
    g.inputs.push_back(id);
    map_[in.value] = id;
  }
}

const Graph& GraphRewriter::graph() const {
  return builder_.state()->graph;
}

MLOperand GraphRewriter::handle(OperandId new_id) const {
  return builder_.state()->handle(builder_.state(), new_id);
}

MLOperand GraphRewriter::value(OperandId id) {
  std::optional<OperandId>& m = map_.at(id.value);
  if (!m) {
    const OperandInfo& info = source_.operand(id);
    if (info.kind != OperandKind::kConstant)
      throw OperationError("graph rewriter: operand " + std::to_string(id.value) +
                           " is used before its operation");
    Graph& g = builder_.state()->graph;
    OperandInfo copy = info;
    copy.producer = static_cast<uint32_t>(g.constants.size());
    g.constants.push_back(source_.constants.at(info.producer));
    m = OperandId{static_cast<uint32_t>(g.operands.size())};
    g.operands.push_back(std::move(copy));
  }
  return handle(*m);
}

MLOperand GraphRewriter::value_or_null(OperandId id) {
  return id.valid() ? value(id) : MLOperand();
}

void GraphRewriter::set(OperandId id, const MLOperand& v) {
  map_.at(id.value) = v.id();
}

void GraphRewriter::copy(const Operation& op) {
  Operation c = op;
  for (OperandId& in : c.inputs)
    if (in.valid()) in = value(in).id();
  Graph& g = builder_.state()->graph;
  const auto index = static_cast<uint32_t>(g.operations.size());
  for (OperandId& out : c.outputs) {
    OperandInfo info = source_.operand(out);
    info.producer = index;
    OperandId id{static_cast<uint32_t>(g.operands.size())};
    g.operands.push_back(std::move(info));
    map_[out.value] = id;
    out = id;
  }
  g.operations.push_back(std::move(c));
}

size_t GraphRewriter::operation_count() const {
  return graph().operations.size();
}

Operation& GraphRewriter::operation(size_t index) {
  return builder_.state()->graph.operations.at(index);
}

Graph GraphRewriter::finish() {
  std::vector<std::pair<std::string, OperandId>> outputs;
  for (const auto& [name, id] : source_.outputs) {
    MLOperand v = value(id);
    if (graph().operand(v.id()).kind != OperandKind::kOperationResult) v = builder_.identity(v);
    outputs.emplace_back(name, v.id());
  }
  Graph& g = builder_.state()->graph;
  g.outputs = std::move(outputs);
  return g.pruned(/*keep_unused_inputs=*/true);
}

std::vector<MLOperand> rerecord_operation(GraphRewriter& rw, const Operation& op,
                                          std::vector<MLOperand> in, OpAttributes attrs) {
  size_t positional = in.size();
  std::visit(
      [&](auto& a) {
        if constexpr (requires { a.options; }) {
          using Options = std::decay_t<decltype(a.options)>;
          auto each_operand_field = [&](auto&& f) {
            reflect::for_each_field<Options>([&](auto field) {
              if constexpr (std::is_same_v<typename decltype(field)::type,
                                           std::optional<MLOperand>>)
                f(a.options.*field.member);
            });
          };
          each_operand_field([&](auto&) { --positional; });
          size_t k = positional;
          each_operand_field([&](std::optional<MLOperand>& slot) {
            if (!in[k].is_null()) slot = in[k];
            ++k;
          });
        }
      },
      attrs);
  std::vector<MLOperand> outs =
      rw.builder().record(op.type, std::span(in.data(), positional), std::move(attrs));
  rw.operation(rw.operation_count() - 1).activations = op.activations;
  return outs;
}

}  // namespace cppnn::passes
