// The cpu backend: cppnn's own optimised CPU executor. Every op runs natively (the descriptor has
// the spec's limits): operations with a fast kernel here (fast_kernel.h) run it, on the backend's
// thread pool (numThreads), the rest run their reference kernel in the same plan, slot table and
// liveness-planned arena (reference/reference_backend.h). Graphs go through spelled-out layer
// normalizations recognised, constant folding, batch normalization and per-channel scales folded
// into the convolution before them, exporters' spellings of hardSwish, gelu and linear
// recognised, and the conv/matmul + bias + activation fusion (SiLU, mul(x, sigmoid(x)),
// included) first (int4 stays packed: the reference kernels read it).
// Gemms whose weights are block-quantized constants read them in place (quantized_weights.h).
#include "src/backends/cpu/cpu_backend.h"

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/half_weights.h"
#include "src/backends/cpu/quantized_weights.h"

namespace cppnn {
namespace {

BackendDescriptor cpu_descriptor() {
  BackendDescriptor d = BackendDescriptor::with_all_ops("cpu");
  d.preferred_layout = MLInputOperandLayout::kNchw;
  d.passes.fold_constants = true;
  d.passes.fold_batch_norm = true;
  d.passes.recognize_activations = true;
  d.passes.recognize_normalizations = true;
  d.passes.fuse = true;
  d.passes.fuse_silu = true;
  return d;
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const MLContextOptions& options)
      : pool_(std::make_shared<cpu::ThreadPool>(options.numThreads)), profile_(options.profile) {}

  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = cpu_descriptor();
    return d;
  }

  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    bool quantized = false;
    Graph rewritten = cpu::read_quantized_weights_in_gemm(*graph, &quantized);
    if (quantized) graph = std::make_shared<const Graph>(std::move(rewritten));
    bool half = false;
    rewritten = cpu::read_half_weights_in_products(*graph, &half);
    if (half) graph = std::make_shared<const Graph>(std::move(rewritten));
    cpu::CompileContext cc{*graph, pool_, packed_weights_};
    return make_reference_plan(
        graph, [&cc](const Operation& op) { return cpu::compile_fast_kernel(cc, op); }, profile_);
  }

 private:
  std::shared_ptr<cpu::ThreadPool> pool_;
  // Constant weights packed once for every plan of this context (cpu/packed_weights.h).
  std::shared_ptr<cpu::PackedWeights> packed_weights_ = std::make_shared<cpu::PackedWeights>();
  bool profile_;  // MLContextOptions::profile: time every operation
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const MLContextOptions& options) {
  return std::make_unique<CpuBackend>(options);
}

}  // namespace cppnn
