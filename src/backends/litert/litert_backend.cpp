#include "src/backends/litert/litert_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/four_bit_io.h"
#include "src/backends/litert/litert_runtime.h"
#include "src/export/tflite/convert.h"
#include "src/export/tflite/target.h"

namespace cppnn {
namespace {

// The model bytes, 64-byte aligned (LiteRT reads buffers and XNNPACK packs weights in place).
class AlignedBytes {
 public:
  explicit AlignedBytes(const std::vector<uint8_t>& bytes)
      : size_(bytes.size()),
        data_(static_cast<std::byte*>(std::aligned_alloc(64, (bytes.size() + 63) / 64 * 64))) {
    if (!data_) throw OperationError("litert: out of memory for the model");
    std::memcpy(data_.get(), bytes.data(), bytes.size());
  }
  std::span<const std::byte> span() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  size_t size_;
  std::unique_ptr<std::byte, Free> data_;
};

// XNNPACK's thread count: numThreads, or every core when 0 (the context's default, as on the
// other backends; LiteRT's own default is one thread).
int thread_count(const MLContextOptions& options) {
  if (options.numThreads > 0) return static_cast<int>(options.numThreads);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// A graph compiled into one LiteRT compiled model. Outputs that are constants after the passes
// and the lowering (a graph folded whole) are copied at dispatch and left out of the model
// (tflite_export::ConstantOutputs::kExclude); a graph with only such outputs has no model.
class LiteRtGraph final : public CompiledGraph {
 public:
  LiteRtGraph(std::shared_ptr<const Graph> graph, const MLContextOptions& options)
      : graph_(std::move(graph)) {
    const Graph& g = *graph_;
    tflite_export::Conversion c =
        tflite_export::convert_prepared(g, tflite_export::ConstantOutputs::kExclude);
    constant_outputs_ = std::move(c.constant_outputs);
    for (OperandId id : g.inputs) inputs_.emplace_back(g.descriptor(id));
    for (size_t i = 0; i < g.outputs.size(); ++i)
      if (!constant_outputs_[i]) outputs_.emplace_back(g.descriptor(g.outputs[i].second));
    if (!outputs_.empty()) {
      model_.emplace(c.bytes);
      compiled_.emplace(model_->span(), thread_count(options));
    }
    in_.resize(inputs_.size());
    out_.resize(outputs_.size());
  }

  void execute(std::span<const std::byte* const> inputs,
               std::span<std::byte* const> outputs) override {
    for (size_t i = 0, k = 0; i < outputs.size(); ++i) {
      if (constant_outputs_[i]) {
        std::memcpy(outputs[i], constant_outputs_[i]->data(), constant_outputs_[i]->size());
      } else {
        out_[k] = outputs_[k].output(outputs[i]);
        ++k;
      }
    }
    if (!compiled_) return;
    for (size_t i = 0; i < inputs.size(); ++i) in_[i] = inputs_[i].input(inputs[i]);
    compiled_->run(in_, out_);
    for (size_t i = 0, k = 0; i < outputs.size(); ++i)
      if (!constant_outputs_[i]) outputs_[k++].finish_output(outputs[i]);
  }

 private:
  std::shared_ptr<const Graph> graph_;
  std::vector<FourBitIo> inputs_;
  std::vector<FourBitIo> outputs_;  // the model's outputs (graph outputs that are not constant)
  std::vector<std::optional<std::vector<std::byte>>> constant_outputs_;  // per graph output
  std::optional<AlignedBytes> model_;
  std::optional<litert_runtime::CompiledModel> compiled_;
  std::vector<const std::byte*> in_;
  std::vector<std::byte*> out_;
};

class LiteRtBackend final : public Backend {
 public:
  explicit LiteRtBackend(const MLContextOptions& options) : options_(options) {}
  // The TFLite export's support (src/export/tflite/target.h): the ops its lowerings express
  // natively, NHWC, and the passes that give TFLite its fast forms.
  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = tflite_export::tflite_descriptor("litert");
    return d;
  }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    return std::make_unique<LiteRtGraph>(std::move(graph), options_);
  }

 private:
  MLContextOptions options_;
};

}  // namespace

std::unique_ptr<Backend> make_litert_backend(const MLContextOptions& options) {
  return std::make_unique<LiteRtBackend>(options);
}

}  // namespace cppnn
