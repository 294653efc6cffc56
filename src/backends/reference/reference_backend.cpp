// The reference backend: compiles a graph into a list of kernels over a slot table and an arena
// of intermediate buffers; dispatch binds the tensors' pointers into the slots and runs.
#include "src/backends/reference/reference_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cppnn/errors.h"
#include "src/backends/plan_profiler.h"
#include "src/backends/reference/kernel.h"
#include "src/passes/memory_plan.h"

namespace cppnn {
namespace ref {

Kernel compile_kernel(const KernelContext& kc, const Operation& op) {
  switch (op.type) {
#define CPPNN_OP(E, m, S, O, F) \
  case OpType::k##E:            \
    return compile_##m(kc, op, attrs_of<OpType::k##E>(op.attrs));
#include "cppnn/ops.def"
#undef CPPNN_OP
  }
  throw OperationError("reference backend: unknown operation");
}

namespace {

constexpr size_t kAlignment = 64;  // of every intermediate buffer (a cache line)

// A compiled graph: kernels in topological order and the slot of every operand.
class Plan final : public CompiledGraph {
 public:
  Plan(std::shared_ptr<const Graph> graph, const KernelSubstitution& substitute, bool profile)
      : graph_(std::move(graph)) {
    if (profile) profiler_ = std::make_unique<PlanProfiler>();
    const Graph& g = *graph_;
    slots_.assign(g.operands.size(), nullptr);
    // Constants point into their (immutable) bytes.
    for (size_t i = 0; i < g.operands.size(); ++i) {
      const OperandInfo& info = g.operands[i];
      if (info.kind == OperandKind::kConstant)
        slots_[i] = const_cast<std::byte*>(g.constants[info.producer].data());
    }
    // Graph outputs are written straight into the bound tensors; an operand named by several
    // outputs is written into the first and copied to the others.
    std::vector<bool> is_output(g.operands.size(), false);
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      OperandId id = g.outputs[i].second;
      if (is_output[id.value]) {
        for (size_t j = 0; j < i; ++j)
          if (g.outputs[j].second == id) copies_.push_back({j, i, byte_length(g.descriptor(id))});
        continue;
      }
      is_output[id.value] = true;
    }
    // Intermediates share one arena by liveness (src/passes/memory_plan.h): 64-byte aligned
    // offsets, bytes shared only between intermediates that are never alive together, or with
    // the intermediate a reshape views (that reshape then runs nothing).
    const passes::MemoryPlan plan = passes::plan_memory(g, kAlignment);
    const size_t arena = std::max<size_t>(plan.arena_bytes, kAlignment);
    arena_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlignment, arena)));
    if (!arena_)
      throw OperationError("reference backend: cannot allocate the intermediate buffers");
    for (size_t i = 0; i < g.operands.size(); ++i)
      if (plan.offsets[i] != passes::MemoryPlan::kNotPlanned)
        slots_[i] = arena_.get() + plan.offsets[i];
    KernelContext kc{g};
    for (size_t index = 0; index < g.operations.size(); ++index) {
      const Operation& op = g.operations[index];
      if (plan.is_view[index]) continue;
      std::optional<SubstituteKernel> own;
      if (substitute) own = substitute(op);
      const std::string name = op.label().empty()
                                   ? std::string(op_name(op.type)) + "#" + std::to_string(index)
                                   : op.label();
      if (own) {
        kernels_.push_back(std::move(own->run));
        profile_entry(name, op.type, "fast");
        if (own->applies_activations) continue;
      } else {
        kernels_.push_back(compile_kernel(kc, op));
        profile_entry(name, op.type, "reference");
      }
      // A fused activation (fusion pass) runs its own kernel on the output, in place.
      for (const FusedActivation& a : op.activations) {
        kernels_.push_back(compile_fused_activation(kc, op, a));
        profile_entry(name, a.type, "reference");
      }
    }
  }

  void execute(std::span<const std::byte* const> inputs,
               std::span<std::byte* const> outputs) override {
    const Graph& g = *graph_;
    for (size_t i = 0; i < inputs.size(); ++i)
      slots_[g.inputs[i].value] = const_cast<std::byte*>(inputs[i]);
    for (size_t i = 0; i < outputs.size(); ++i) {
      bool duplicate = false;
      for (const Copy& c : copies_) duplicate = duplicate || c.to == i;
      if (!duplicate) slots_[g.outputs[i].second.value] = outputs[i];
    }
    if (profiler_) {
      run_profiled();
    } else {
      for (const Kernel& k : kernels_) k(slots_);
    }
    for (const Copy& c : copies_) std::memcpy(outputs[c.to], outputs[c.from], c.bytes);
  }

  MLGraphProfile profile() const override {
    return profiler_ ? profiler_->snapshot() : MLGraphProfile{};
  }

 private:
  struct Copy {
    size_t from, to, bytes;
  };
  struct FreeDeleter {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::shared_ptr<const Graph> graph_;
  std::vector<std::byte*> slots_;
  std::unique_ptr<std::byte, FreeDeleter> arena_;
  // Registers kernels_.back() with the profiler (when profiling).
  void profile_entry(const std::string& name, OpType type, const char* kernel) {
    if (profiler_) profiler_->add(name, std::string(op_name(type)), kernel);
  }
  // Runs the kernels, timing each (entry i is kernels_[i]).
  void run_profiled() {
    using Clock = PlanProfiler::Clock;
    profiler_->start();
    const Clock::time_point start = Clock::now();
    Clock::time_point begin = start;
    for (uint32_t i = 0; i < kernels_.size(); ++i) {
      kernels_[i](slots_);
      const Clock::time_point end = Clock::now();
      profiler_->record(i, begin, end);
      begin = end;
    }
    profiler_->finish(start, begin);
  }

  std::vector<Kernel> kernels_;
  std::vector<Copy> copies_;
  std::unique_ptr<PlanProfiler> profiler_;  // null unless MLContextOptions::profile
};

// Every op natively, for every data type the spec allows; no pass: the oracle runs the graph as
// it was built.
class ReferenceBackend final : public Backend {
 public:
  explicit ReferenceBackend(bool profile) : profile_(profile) {}
  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = BackendDescriptor::with_all_ops("reference");
    return d;
  }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    return std::make_unique<Plan>(std::move(graph), KernelSubstitution{}, profile_);
  }

 private:
  bool profile_;
};

}  // namespace
}  // namespace ref

std::unique_ptr<CompiledGraph> make_reference_plan(std::shared_ptr<const Graph> graph) {
  return std::make_unique<ref::Plan>(std::move(graph), KernelSubstitution{}, false);
}

std::unique_ptr<CompiledGraph> make_reference_plan(std::shared_ptr<const Graph> graph,
                                                   const KernelSubstitution& substitute,
                                                   bool profile) {
  return std::make_unique<ref::Plan>(std::move(graph), substitute, profile);
}

std::unique_ptr<Backend> make_reference_backend(const MLContextOptions& options) {
  return std::make_unique<ref::ReferenceBackend>(options.profile);
}

}  // namespace cppnn
