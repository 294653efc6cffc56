// MLContext: creation from hints, tensors, the timeline, dispatch and loss (webnn-spec.md §1, §4).
#include "cppnn/context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>

#include "cppnn/async_checks.h"
#include "cppnn/errors.h"
#include "cppnn/graph.h"
#include "src/api/states.h"
#include "src/backends/selection.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace detail {

std::shared_ptr<std::byte> allocate_tensor_bytes(size_t size) {
  const size_t n = (std::max<size_t>(size, 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, n);
  if (!p) throw UnknownError("createTensor: cannot allocate " + std::to_string(size) + " bytes");
  std::memset(p, 0, n);
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
}

}  // namespace detail

namespace {

// Registers a new tensor with its context and returns its handle. InvalidStateError when the
// context was lost since the caller's check (the loss aborts the creation, §4).
MLTensor make_tensor(const std::shared_ptr<detail::ContextState>& ctx, const MLOperandDescriptor& d,
                     bool readable, bool writable, bool constant, const char* method) {
  auto t = std::make_shared<detail::TensorState>();
  t->context = ctx.get();
  t->context_ref = ctx;
  t->descriptor = d;
  t->readable = readable;
  t->writable = writable;
  t->constant = constant;
  t->size = byte_length(d);
  t->data = detail::allocate_tensor_bytes(t->size);
  std::lock_guard<std::mutex> lock(ctx->mu);
  if (ctx->lost) throw InvalidStateError(std::string(method) + ": the context is lost");
  std::erase_if(ctx->tensors, [](const auto& w) { return w.expired(); });
  ctx->tensors.push_back(t);
  return MLTensor(std::move(t));
}

// The common checks of writeTensor/readTensor: same context, not destroyed.
const detail::TensorState& usable_tensor(const detail::ContextState& ctx, const MLTensor& tensor,
                                         const char* method) {
  if (tensor.is_null()) throw TypeError(std::string(method) + ": the tensor is null");
  const detail::TensorState& t = *tensor.state();
  if (t.context != &ctx)
    throw TypeError(std::string(method) + ": the tensor belongs to another context");
  if (t.destroyed.load()) throw TypeError(std::string(method) + ": the tensor is destroyed");
  return t;
}

// Checks one side (inputs or outputs) of a dispatch against the graph's descriptors and collects
// the tensors' data pointers in graph order into `out` (not read when null: a check only).
// `descs` null: the descriptors are not compared (a dynamic graph's inputs, checked by
// dynamic_sizes()); `note` ends a descriptor mismatch's message.
template <class Ptr>
void bind_tensors(const detail::ContextState& ctx, const std::vector<std::string>& names,
                  const std::map<std::string, MLOperandDescriptor>* descs,
                  const MLNamedTensors& tensors, const char* side, std::vector<Ptr>* out,
                  std::set<const detail::TensorState*>& seen, const std::string& note = {}) {
  if (tensors.size() != names.size())
    throw TypeError("dispatch: the graph has " + std::to_string(names.size()) + " " + side + ", " +
                    std::to_string(tensors.size()) + " were bound");
  if (out) out->clear();
  for (const std::string& name : names) {
    auto it = tensors.find(name);
    if (it == tensors.end())
      throw TypeError("dispatch: " + std::string(side) + " \"" + name + "\" is not bound");
    const MLTensor& tensor = it->second;
    if (tensor.is_null()) throw TypeError("dispatch: the tensor bound to \"" + name + "\" is null");
    const detail::TensorState& t = *tensor.state();
    if (t.context != &ctx)
      throw TypeError("dispatch: the tensor bound to \"" + name + "\" belongs to another context");
    if (t.destroyed.load())
      throw TypeError("dispatch: the tensor bound to \"" + name + "\" is destroyed");
    if (t.constant)
      throw TypeError("dispatch: the tensor bound to \"" + name + "\" is a constant tensor");
    if (!seen.insert(&t).second)
      throw TypeError("dispatch: the tensor bound to \"" + name + "\" is bound more than once");
    if (descs) {
      const MLOperandDescriptor& want = descs->at(name);
      if (t.descriptor != want)
        throw TypeError("dispatch: " + std::string(side) + " \"" + name + "\" expects " +
                        to_string(want) + note + ", the bound tensor is " +
                        to_string(t.descriptor));
    }
    if (out) out->push_back(t.data.get());
  }
}

// dispatch()'s checks of the graph and the context (§4).
void check_dispatch_graph(const detail::ContextState& ctx, const MLContext& context,
                          const detail::GraphState& g) {
  if (g.context.get() != &ctx) throw TypeError("dispatch: the graph belongs to another context");
  if (g.destroyed.load()) throw InvalidStateError("dispatch: the graph is destroyed");
  if (context.is_lost()) throw InvalidStateError("dispatch: the context is lost");
}

// dispatch's checks and bindings for a graph with dynamic input dimensions
// (docs/dynamic-dimensions.md): the input tensors give the dimensions' sizes (dynamic_sizes()
// checks them), the graph re-derived at those sizes gives the output descriptors the output
// tensors must have. The re-derived graph, compiled with `compile_in`'s backend unless null; null
// when the sizes are the maxima (the graph as built).
template <class InPtr, class OutPtr>
std::shared_ptr<detail::Specialization> bind_dynamic(
    const detail::ContextState& ctx, const detail::GraphState& g, const MLNamedTensors& inputs,
    const MLNamedTensors& outputs, std::vector<InPtr>* in, std::vector<OutPtr>* out,
    detail::ContextState* compile_in) {
  std::set<const detail::TensorState*> seen;
  bind_tensors(ctx, g.input_names, nullptr, inputs, "inputs", in, seen);
  std::vector<const MLOperandDescriptor*> actual;
  actual.reserve(g.input_names.size());
  for (const std::string& name : g.input_names)
    actual.push_back(&inputs.at(name).state()->descriptor);
  Result<std::vector<uint32_t>> sizes = dynamic_sizes(*g.graph, g.dynamic->dims, actual);
  if (!sizes) throw TypeError("dispatch: " + sizes.error().message);
  std::shared_ptr<detail::Specialization> s;
  const std::map<std::string, MLOperandDescriptor>* descs = &g.outputs;
  if (*sizes != g.dynamic->dims.maxima) {
    s = detail::specialization(*g.dynamic, *g.graph, *sizes, compile_in);
    descs = &s->outputs;
  }
  bind_tensors(ctx, g.output_names, descs, outputs, "outputs", out, seen,
               " (at " + describe_sizes(g.dynamic->dims, *sizes) + ")");
  return s;
}

}  // namespace

std::vector<std::string> available_backends(bool with_test_only) {
  return compiled_backends(with_test_only);
}

MLContext MLContext::create(const MLContextOptions& options) {
  auto state = std::make_shared<detail::ContextState>();
  state->options = options;
  state->backend = select_backend(options);
  state->limits = std::make_shared<const passes::ContextLimits>(
      passes::compute_context_limits(state->backend->descriptor()));
  state->accelerated = false;  // every compiled-in backend runs on the CPU
  return MLContext(std::move(state));
}

bool MLContext::accelerated() const {
  return state_->accelerated;
}
std::string MLContext::backend() const {
  return std::string(state_->backend->name());
}
MLOpSupportLimits MLContext::opSupportLimits() const {
  return state_->limits->support_limits();
}

MLTensor MLContext::createTensor(const MLTensorDescriptor& descriptor) {
  if (is_lost()) throw InvalidStateError("createTensor: the context is lost");
  MLOperandDescriptor d = descriptor.descriptor();
  if (auto s = check_dimensions(d, "tensor"); !s)
    throw TypeError("createTensor: " + s.error().message);
  std::lock_guard<std::mutex> timeline(state_->timeline);
  return make_tensor(state_, d, descriptor.readable, descriptor.writable, false, "createTensor");
}

MLTensor MLContext::createConstantTensor(const MLOperandDescriptor& descriptor,
                                         std::span<const std::byte> bytes) {
  if (is_lost()) throw InvalidStateError("createConstantTensor: the context is lost");
  if (auto s = check_dimensions(descriptor, "tensor"); !s)
    throw TypeError("createConstantTensor: " + s.error().message);
  if (bytes.size() != byte_length(descriptor))
    throw TypeError("createConstantTensor: the buffer has " + std::to_string(bytes.size()) +
                    " bytes but " + to_string(descriptor) + " needs " +
                    std::to_string(byte_length(descriptor)));
  std::lock_guard<std::mutex> timeline(state_->timeline);
  MLTensor t = make_tensor(state_, descriptor, false, false, true, "createConstantTensor");
  std::memcpy(t.state()->data.get(), bytes.data(), bytes.size());
  return t;
}

void check_write_tensor(const MLContext& context, const MLTensor& tensor, size_t byte_length) {
  const detail::TensorState& t = usable_tensor(*context.state(), tensor, "writeTensor");
  if (!t.writable) throw TypeError("writeTensor: the tensor is not writable");
  if (byte_length != t.size)
    throw TypeError("writeTensor: the buffer has " + std::to_string(byte_length) +
                    " bytes, the tensor " + std::to_string(t.size));
}

void MLContext::writeTensor(const MLTensor& tensor, std::span<const std::byte> bytes) {
  check_write_tensor(*this, tensor, bytes.size());
  const detail::TensorState& t = *tensor.state();
  std::lock_guard<std::mutex> timeline(state_->timeline);
  if (t.destroyed.load()) throw TypeError("writeTensor: the tensor is destroyed");
  std::memcpy(t.data.get(), bytes.data(), bytes.size());
}

void MLContext::writeTensorTyped(const MLTensor& tensor, TypedBytes values) {
  const detail::TensorState& t = usable_tensor(*state_, tensor, "writeTensor");
  if (values.element_type != t.descriptor.dataType)
    throw TypeError("writeTensor: " + std::string(data_type_name(values.element_type)) +
                    " elements for a " + std::string(data_type_name(t.descriptor.dataType)) +
                    " tensor");
  writeTensor(tensor, values.bytes);
}

void check_read_tensor(const MLContext& context, const MLTensor& tensor,
                       std::optional<size_t> byte_length) {
  const detail::TensorState& t = usable_tensor(*context.state(), tensor, "readTensor");
  if (!t.readable) throw TypeError("readTensor: the tensor is not readable");
  if (byte_length && *byte_length != t.size)
    throw TypeError("readTensor: the buffer has " + std::to_string(*byte_length) +
                    " bytes, the tensor " + std::to_string(t.size));
}

void MLContext::readTensor(const MLTensor& tensor, std::span<std::byte> out) {
  check_read_tensor(*this, tensor, out.size());
  const detail::TensorState& t = *tensor.state();
  std::lock_guard<std::mutex> timeline(state_->timeline);
  if (is_lost()) throw InvalidStateError("readTensor: the context is lost");
  if (t.destroyed.load()) throw InvalidStateError("readTensor: the tensor was destroyed");
  std::memcpy(out.data(), t.data.get(), t.size);
}

std::vector<std::byte> MLContext::readTensor(const MLTensor& tensor) {
  const detail::TensorState& t = usable_tensor(*state_, tensor, "readTensor");
  std::vector<std::byte> out(t.size);
  readTensor(tensor, out);
  return out;
}

namespace {

// dispatch's fast path: the bindings match the graph exactly (same names, usable tensors of this
// context, matching descriptors, no tensor twice); fills `out` in graph order. Any mismatch
// returns false and the caller reruns the checks that name the problem.
template <class Ptr>
bool bind_fast(const detail::ContextState& ctx, const std::vector<std::string>& names,
               const std::vector<uint32_t>& order,
               const std::map<std::string, MLOperandDescriptor>& descs,
               const MLNamedTensors& tensors, std::vector<Ptr>& out,
               std::vector<const detail::TensorState*>& seen) {
  if (tensors.size() != names.size()) return false;
  auto it = tensors.begin();
  for (uint32_t index : order) {
    const detail::TensorState* t = it->second.state().get();
    if (it->first != names[index] || !t || t->context != &ctx || t->destroyed.load() || t->constant)
      return false;
    for (const detail::TensorState* s : seen)
      if (s == t) return false;
    seen.push_back(t);
    if (t->descriptor != descs.find(it->first)->second) return false;
    out[index] = t->data.get();
    ++it;
  }
  return true;
}

}  // namespace

void MLContext::dispatch(const MLGraph& graph, const MLNamedTensors& inputs,
                         const MLNamedTensors& outputs) {
  const detail::GraphState& g = *graph.state();
  check_dispatch_graph(*state_, *this, g);
  // Validate and bind under the timeline so no tensor is released between the two.
  std::lock_guard<std::mutex> timeline(state_->timeline);
  // Destroyed (its compiled form released) or lost since the checks above.
  if (g.destroyed.load()) throw InvalidStateError("dispatch: the graph is destroyed");
  if (is_lost()) throw InvalidStateError("dispatch: the context is lost");
  detail::GraphState& gs = *graph.state();
  gs.bound_tensors.clear();
  const bool small = g.input_names.size() + g.output_names.size() <= 32;
  if (small &&
      bind_fast(*state_, g.input_names, g.input_order, g.inputs, inputs, gs.bound_inputs,
                gs.bound_tensors) &&
      bind_fast(*state_, g.output_names, g.output_order, g.outputs, outputs, gs.bound_outputs,
                gs.bound_tensors)) {
    g.compiled->execute(gs.bound_inputs, gs.bound_outputs);
    return;
  }
  std::vector<const std::byte*> in;
  std::vector<std::byte*> out;
  if (g.dynamic) {
    std::shared_ptr<detail::Specialization> s =
        bind_dynamic(*state_, g, inputs, outputs, &in, &out, state_.get());
    (s ? s->compiled : g.compiled)->execute(in, out);
    return;
  }
  std::set<const detail::TensorState*> seen;
  bind_tensors(*state_, g.input_names, &g.inputs, inputs, "inputs", &in, seen);
  bind_tensors(*state_, g.output_names, &g.outputs, outputs, "outputs", &out, seen);
  g.compiled->execute(in, out);
}

void check_dispatch(const MLContext& context, const MLGraph& graph, const MLNamedTensors& inputs,
                    const MLNamedTensors& outputs) {
  const detail::ContextState& ctx = *context.state();
  const detail::GraphState& g = *graph.state();
  check_dispatch_graph(ctx, context, g);
  if (g.dynamic) {
    bind_dynamic<const std::byte*, std::byte*>(ctx, g, inputs, outputs, nullptr, nullptr, nullptr);
    return;
  }
  std::set<const detail::TensorState*> seen;
  bind_tensors<const std::byte*>(ctx, g.input_names, &g.inputs, inputs, "inputs", nullptr, seen);
  bind_tensors<std::byte*>(ctx, g.output_names, &g.outputs, outputs, "outputs", nullptr, seen);
}

void MLContext::destroy() {
  std::vector<std::shared_ptr<detail::TensorState>> tensors;
  std::vector<std::shared_ptr<detail::GraphState>> graphs;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->lost) return;
    state_->lost = MLContextLostInfo{"the context was destroyed"};
    for (auto& w : state_->tensors)
      if (auto t = w.lock()) tensors.push_back(std::move(t));
    for (auto& w : state_->graphs)
      if (auto g = w.lock()) graphs.push_back(std::move(g));
  }
  // §4 context lost steps: destroy every graph and every tensor of the context.
  std::lock_guard<std::mutex> timeline(state_->timeline);
  for (auto& g : graphs) {
    g->destroyed.store(true);
    g->compiled.reset();
    if (g->dynamic) g->dynamic->release();
  }
  for (auto& t : tensors) {
    t->destroyed.store(true);
    t->data.reset();
  }
}

bool MLContext::is_lost() const {
  return state_->is_lost();
}

std::optional<MLContextLostInfo> MLContext::lost_info() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->lost;
}

}  // namespace cppnn
