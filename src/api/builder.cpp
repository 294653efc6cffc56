// MLGraphBuilder: input/constant, the generic recorder behind every op method, and build()
// (webnn-spec.md §1, §3.2-§3.3, §3.7-§3.8).
#include <algorithm>
#include <cstring>

#include "cppnn/async_checks.h"
#include "cppnn/errors.h"
#include "cppnn/graph_builder.h"
#include "src/api/states.h"
#include "src/core/text_check.h"
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/role_check.h"
#include "src/ops/shape_utils.h"
#include "src/passes/context_limits.h"
#include "src/passes/pipeline.h"

namespace cppnn {
namespace {

// "conv2d" or "conv2d [stem]": the prefix of every message about one call.
std::string call_prefix(std::string_view op, const std::string& label) {
  std::string p(op);
  if (!label.empty()) p += " [" + label + "]";
  return p;
}

[[noreturn]] void fail(const std::string& prefix, const ErrorInfo& e) {
  throw_error(e.kind, prefix + ": " + e.message);
}

// Moves the operand-valued options (std::optional<MLOperand> fields) of `options` into `out`, in
// field order, leaving them empty in the recorded attributes.
template <class Options>
void take_operand_options(Options& options, std::vector<std::optional<MLOperand>>& out) {
  reflect::for_each_field<Options>([&](auto field) {
    using T = typename decltype(field)::type;
    if constexpr (std::is_same_v<T, std::optional<MLOperand>>) {
      out.push_back(std::move(options.*field.member));
      (options.*field.member).reset();
    }
  });
}

std::string role_name(const OpLimits& limits, size_t i, bool list) {
  if (list) return "inputs[" + std::to_string(i) + "]";
  return i < limits.inputs.size() ? std::string(limits.inputs[i].name)
                                  : "operand " + std::to_string(i);
}

// " by the minimal backend": how messages about a context's narrower limits name it.
std::string by_backend(const detail::ContextState& ctx) {
  return " by the " + std::string(ctx.backend ? ctx.backend->name() : "pass") + " backend";
}

// The context's input/constant data types (MLOpSupportLimits input and constant).
void check_tensor_type(const detail::ContextState& ctx, const MLOperandDescriptor& d,
                       const char* method) {
  const passes::ContextLimits* cl = ctx.limits.get();
  // int4/uint4 are storage types outside MLOpSupportLimits' tensor lists: the roles of the ops
  // reading them (dequantizeLinear, ...) decide.
  if (cl && is_spec_data_type(d.dataType) && !mask_has(cl->tensor_types, d.dataType))
    throw TypeError(std::string(method) + ": data type " + std::string(data_type_name(d.dataType)) +
                    " is not supported" + by_backend(ctx) +
                    " (supported: " + data_type_list(cl->tensor_types) + ")");
}

}  // namespace

// ---- MLOperand ----------------------------------------------------------------------------------

MLOperandDescriptor MLOperand::descriptor() const {
  if (!builder_) throw TypeError("MLOperand: the operand is null");
  return builder_->graph.descriptor(id_);
}
MLOperandDataType MLOperand::dataType() const {
  if (!builder_) throw TypeError("MLOperand: the operand is null");
  return builder_->graph.descriptor(id_).dataType;
}
std::vector<uint32_t> MLOperand::shape() const {
  if (!builder_) throw TypeError("MLOperand: the operand is null");
  return builder_->graph.descriptor(id_).shape;
}

// ---- MLGraphBuilder -----------------------------------------------------------------------------

MLGraphBuilder::MLGraphBuilder(const MLContext& context) {
  if (context.is_lost()) throw InvalidStateError("MLGraphBuilder: the context is lost");
  state_ = std::make_shared<detail::BuilderState>();
  state_->context = context.state();
}

MLContext MLGraphBuilder::context() const {
  return MLContext(state_->context);
}
bool MLGraphBuilder::has_built() const {
  return state_->built;
}

MLOperand MLGraphBuilder::input(const std::string& name, const MLOperandDescriptor& descriptor) {
  if (!state_->can_build()) throw InvalidStateError("input: the builder can no longer build");
  if (name.empty()) throw TypeError("input: the name is empty");
  if (auto problem = utf8_problem(name))  // text_check.h: USVString (NUL is allowed)
    throw TypeError("input: the name " + quoted_for_message(name) + " " + *problem);
  if (auto s = check_dimensions(descriptor, "input \"" + name + "\""); !s) fail("input", s.error());
  check_tensor_type(*state_->context, descriptor, "input");
  Graph& g = state_->graph;
  OperandId id{static_cast<uint32_t>(g.operands.size())};
  g.operands.push_back({descriptor, OperandKind::kInput, name, 0});
  g.inputs.push_back(id);
  return MLOperand(state_, id);
}

namespace {

// Appends a constant operand holding `data` to the builder's graph.
MLOperand add_constant(const std::shared_ptr<detail::BuilderState>& st,
                       const MLOperandDescriptor& descriptor, ConstantData data) {
  check_tensor_type(*st->context, descriptor, "constant");
  Graph& g = st->graph;
  OperandId id{static_cast<uint32_t>(g.operands.size())};
  g.operands.push_back(
      {descriptor, OperandKind::kConstant, {}, static_cast<uint32_t>(g.constants.size())});
  g.constants.push_back(std::move(data));
  return st->handle(st, id);
}

// The checks shared by the constant() forms taking a descriptor and bytes.
void check_constant(const detail::BuilderState& st, const MLOperandDescriptor& descriptor,
                    size_t bytes) {
  if (!st.can_build()) throw InvalidStateError("constant: the builder can no longer build");
  if (auto s = check_dimensions(descriptor, "constant"); !s) fail("constant", s.error());
  uint64_t expected = byte_length(descriptor);
  if (bytes != expected)
    throw TypeError("constant: the buffer has " + std::to_string(bytes) + " bytes but " +
                    to_string(descriptor) + " needs " + std::to_string(expected));
}

}  // namespace

MLOperand MLGraphBuilder::constant(const MLOperandDescriptor& descriptor,
                                   std::span<const std::byte> buffer) {
  check_constant(*state_, descriptor, buffer.size());
  return add_constant(state_, descriptor, ConstantData::copy_of(buffer));
}

MLOperand MLGraphBuilder::constant_view(const MLOperandDescriptor& descriptor,
                                        std::shared_ptr<const void> keep_alive,
                                        std::span<const std::byte> bytes) {
  check_constant(*state_, descriptor, bytes.size());
  return add_constant(state_, descriptor, ConstantData::view(std::move(keep_alive), bytes));
}

MLOperand MLGraphBuilder::constant_data(const MLOperandDescriptor& descriptor, ConstantData data) {
  check_constant(*state_, descriptor, data.size());
  return add_constant(state_, descriptor, std::move(data));
}

MLOperand MLGraphBuilder::constant(const MLTensor& tensor) {
  // §1: the TypeError checks come before the "can build" check for this form.
  if (tensor.is_null()) throw TypeError("constant: the tensor is null");
  const detail::TensorState& t = *tensor.state();
  if (t.context != state_->context.get())
    throw TypeError("constant: the tensor belongs to another context");
  if (t.destroyed.load()) throw TypeError("constant: the tensor is destroyed");
  if (!t.constant) throw TypeError("constant: the tensor was not made by createConstantTensor");
  if (!state_->can_build()) throw InvalidStateError("constant: the builder can no longer build");
  // The graph keeps the tensor's bytes alive, so destroying the tensor later does not affect it.
  // Take them on the timeline: MLTensor::destroy releases them there, maybe on another thread.
  std::shared_ptr<std::byte> data;
  {
    std::lock_guard<std::mutex> timeline(state_->context->timeline);
    data = t.data;
  }
  if (!data) throw TypeError("constant: the tensor is destroyed");
  const std::span<const std::byte> bytes(data.get(), t.size);
  return add_constant(state_, t.descriptor, ConstantData::view(std::move(data), bytes));
}

MLOperand MLGraphBuilder::constant(MLOperandDataType dataType, MLNumber value) {
  if (!state_->can_build()) throw InvalidStateError("constant: the builder can no longer build");
  MLOperandDescriptor d{dataType, {}};
  if (!is_spec_data_type(dataType))
    throw TypeError("constant: a scalar constant cannot have the storage type " +
                    std::string(data_type_name(dataType)));
  std::vector<std::byte> bytes(data_type_bits(dataType) / 8);
  value.cast_to_bytes(dataType, bytes.data());
  return add_constant(state_, d, ConstantData::owned(std::move(bytes)));
}

MLOperand MLGraphBuilder::constant_typed(const MLOperandDescriptor& descriptor, TypedBytes values) {
  if (values.element_type != descriptor.dataType)
    throw TypeError("constant: " + std::string(data_type_name(values.element_type)) +
                    " elements for a " + std::string(data_type_name(descriptor.dataType)) +
                    " operand");
  return constant(descriptor, values.bytes);
}

MLOperand MLGraphBuilder::constant_fill(const MLOperandDescriptor& descriptor, MLNumber value) {
  if (!state_->can_build()) throw InvalidStateError("constant: the builder can no longer build");
  if (auto s = check_dimensions(descriptor, "constant"); !s) fail("constant", s.error());
  const uint64_t size = byte_length(descriptor);
  if (size > static_cast<uint64_t>(SIZE_MAX)) throw TypeError("constant: the shape is too large");
  std::byte one[8] = {};
  value.cast_to_bytes(descriptor.dataType, one);
  const unsigned bits = data_type_bits(descriptor.dataType);
  if (bits == 4) {  // two elements per byte; the last byte holds one for an odd count
    const auto nib = static_cast<uint8_t>(static_cast<uint8_t>(one[0]) & 0x0F);
    const bool odd = element_count(descriptor.shape) % 2 != 0;
    return add_constant(
        state_, descriptor,
        ConstantData::fill(static_cast<size_t>(size), {static_cast<std::byte>(nib | (nib << 4))},
                           odd ? std::optional(static_cast<std::byte>(nib)) : std::nullopt));
  }
  return add_constant(
      state_, descriptor,
      ConstantData::fill(static_cast<size_t>(size), std::vector<std::byte>(one, one + bits / 8)));
}

std::vector<MLOperand> MLGraphBuilder::record(OpType type, std::span<const MLOperand> operands,
                                              OpAttributes attrs) {
  detail::BuilderState& st = *state_;
  if (auto problem = utf8_problem(label_of(attrs)))
    throw TypeError(std::string(op_name(type)) + ": the label " +
                    quoted_for_message(label_of(attrs)) + " " + *problem);
  const std::string prefix = call_prefix(op_name(type), label_of(attrs));
  if (!st.can_build()) throw InvalidStateError(prefix + ": the builder can no longer build");

  // Positional operands, then the operand-valued options in field order.
  std::vector<std::optional<MLOperand>> all(operands.begin(), operands.end());
  const size_t positional = operands.size();
  std::visit(
      [&](auto& a) {
        if constexpr (requires { a.options; }) take_operand_options(a.options, all);
      },
      attrs);

  const OpLimits& limits = op_limits(type);
  const bool list = type == OpType::kConcat;
  if (list && (positional == 0 || positional > kMaxTensorCount))
    throw TypeError(prefix + ": inputs must hold 1 to " + std::to_string(kMaxTensorCount) +
                    " operands, got " + std::to_string(positional));

  // §3.3 validate operand, for every operand including those in options.
  std::vector<const MLOperandDescriptor*> descs(all.size(), nullptr);
  std::vector<OperandId> ids(all.size(), kNoOperand);
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i]) continue;  // an absent optional operand
    const MLOperand& o = *all[i];
    if (o.is_null() || o.builder_ != state_)
      throw TypeError(prefix + ": " + role_name(limits, i, list) +
                      (o.is_null() ? " is null" : " belongs to another builder"));
    ids[i] = o.id();
    descs[i] = &st.graph.descriptor(o.id());
  }
  if (auto s = check_input_roles(limits, descs, list); !s) fail(prefix, s.error());
  auto outputs = infer_op(type, InferInput{descs}, attrs);
  if (!outputs) fail(prefix, outputs.error());
  for (size_t i = 0; i < outputs->size(); ++i) {
    std::string what = outputs->size() == 1 ? "output" : "output " + std::to_string(i);
    if (auto s = check_dimensions((*outputs)[i], what); !s) fail(prefix, s.error());
  }
  // The context's own limits (opSupportLimits()): what its backend runs, natively or decomposed.
  if (const passes::ContextLimits* cl = st.context->limits.get()) {
    const std::string whose = by_backend(*st.context);
    if (!cl->supported(type)) throw TypeError(prefix + ": the operator is not supported" + whose);
    if (auto s = check_input_roles(cl->op(type), descs, list, whose); !s) fail(prefix, s.error());
    if (auto s = check_output_roles(cl->op(type), *outputs, whose); !s) fail(prefix, s.error());
  }

  Graph& g = st.graph;
  Operation op;
  op.type = type;
  op.inputs = std::move(ids);
  op.attrs = std::move(attrs);
  std::vector<MLOperand> result;
  const auto op_index = static_cast<uint32_t>(g.operations.size());
  for (auto& d : *outputs) {
    OperandId id{static_cast<uint32_t>(g.operands.size())};
    g.operands.push_back({std::move(d), OperandKind::kOperationResult, {}, op_index});
    op.outputs.push_back(id);
    result.push_back(MLOperand(state_, id));
  }
  g.operations.push_back(std::move(op));
  return result;
}

namespace {

// The pruned graph of what `outputs` reach (build()'s §3.8 output checks); `method` prefixes
// the errors.
Graph pruned_outputs_graph(const std::shared_ptr<detail::BuilderState>& state,
                           const MLNamedOperands& outputs, const std::string& method) {
  const detail::BuilderState& st = *state;
  if (outputs.empty()) throw TypeError(method + ": no outputs were given");
  std::vector<std::pair<std::string, OperandId>> named;
  for (const auto& [name, operand] : outputs) {
    if (name.empty()) throw TypeError(method + ": an output name is empty");
    if (auto problem = utf8_problem(name))
      throw TypeError(method + ": the output name " + quoted_for_message(name) + " " + *problem);
    if (operand.is_null() || operand.builder_state() != state)
      throw TypeError(method + ": output \"" + name + "\" belongs to another builder");
    const OperandInfo& info = st.graph.operand(operand.id());
    if (info.kind != OperandKind::kOperationResult)
      throw TypeError(method + ": output \"" + name + "\" is a graph " +
                      (info.kind == OperandKind::kInput ? "input" : "constant") +
                      "; outputs must be produced by an operation (use identity())");
    named.emplace_back(name, operand.id());
  }
  Graph recorded = st.graph;
  recorded.outputs = std::move(named);
  return recorded.pruned();
}

}  // namespace

Graph MLGraphBuilder::pruned_graph(const MLNamedOperands& outputs) const {
  return pruned_outputs_graph(state_, outputs, "pruned_graph");
}

namespace {

// build()'s checks and the graph state they produce, before [[hasBuilt]] is set (§3.8): the
// pruned graph, its named inputs and outputs (input names unique among the reachable inputs: as
// in Chromium, and as the WPT validation traces expect, input() itself accepts a repeated name).
std::shared_ptr<detail::GraphState> checked_graph_state(
    const std::shared_ptr<detail::BuilderState>& state, const MLNamedOperands& outputs) {
  detail::BuilderState& st = *state;
  if (!st.can_build()) throw InvalidStateError("build: the builder can no longer build");
  auto gs = std::make_shared<detail::GraphState>();
  gs->context = st.context;
  gs->graph = std::make_shared<const Graph>(pruned_outputs_graph(state, outputs, "build"));
  for (OperandId id : gs->graph->inputs) {
    const OperandInfo& info = gs->graph->operand(id);
    if (!gs->inputs.emplace(info.name, info.descriptor).second)
      throw TypeError("build: the input name \"" + info.name + "\" is used by two inputs");
  }
  for (OperandId id : gs->graph->inputs) gs->input_names.push_back(gs->graph->operand(id).name);
  gs->dynamic = detail::make_dynamic_dispatch(*gs->graph);  // null without dynamic dimensions
  for (const auto& [name, id] : gs->graph->outputs) {
    gs->outputs.emplace(name, gs->graph->descriptor(id));
    gs->output_names.push_back(name);
  }
  auto sorted_order = [](const std::vector<std::string>& names) {
    std::vector<uint32_t> order(names.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
    return order;
  };
  gs->input_order = sorted_order(gs->input_names);
  gs->output_order = sorted_order(gs->output_names);
  gs->bound_inputs.resize(gs->input_names.size());
  gs->bound_outputs.resize(gs->output_names.size());
  gs->bound_tensors.reserve(gs->input_names.size() + gs->output_names.size());
  return gs;
}

}  // namespace

void check_build(const MLGraphBuilder& builder, const MLNamedOperands& outputs) {
  checked_graph_state(builder.state(), outputs);
}

MLGraph MLGraphBuilder::build(const MLNamedOperands& outputs) {
  detail::BuilderState& st = *state_;
  std::shared_ptr<detail::GraphState> gs = checked_graph_state(state_, outputs);
  st.built = true;  // §3.8: set before compiling
  detail::ContextState& ctx = *st.context;
  {
    // Convert and compile on the context's timeline.
    std::lock_guard<std::mutex> timeline(ctx.timeline);
    if (ctx.is_lost()) throw InvalidStateError("build: the context was lost while building");
    // The backend's pipeline (decomposition, ...) rewrites what it does not run natively.
    gs->compiled =
        ctx.backend->compile(passes::prepare_graph(ctx.backend->descriptor(), gs->graph));
    ++ctx.compilations;
  }
  // Register the graph so that losing the context destroys it (§4); a loss that came first wins.
  std::lock_guard<std::mutex> lock(ctx.mu);
  if (ctx.lost) throw InvalidStateError("build: the context was lost while building");
  std::erase_if(ctx.graphs, [](const auto& w) { return w.expired(); });
  ctx.graphs.push_back(gs);
  return MLGraph(std::move(gs));
}

}  // namespace cppnn
