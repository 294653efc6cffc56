// RAII over LiteRT 2.3's C API (litert_c_api.h) for the litert backend: the process-wide
// environment, and a compiled model run on the CPU (XNNPACK, LiteRT's builtin kernels for the
// ops XNNPACK lacks) over the caller's own memory. Every LiteRT failure becomes
// cppnn::OperationError with LiteRT's status and, for runs, the messages of its error reporter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/backends/litert/litert_c_api.h"

namespace cppnn::litert_runtime {

// The LiteRT environment, one per process: created on first use (the CPU accelerator registers
// itself then), destroyed when the last compiled model and the process-wide reference are gone.
class Environment {
 public:
  // The process-wide environment; throws OperationError when LiteRT cannot create it.
  static std::shared_ptr<Environment> shared();

  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  LiteRtEnvironment get() const { return env_; }

 private:
  explicit Environment(LiteRtEnvironment env) : env_(env) {}
  LiteRtEnvironment env_;
};

// One input or output of the signature a CompiledModel runs: its name in that signature (the
// SignatureDef's TensorMap name, or the tensor's own name in a model without SignatureDef), its
// element type, its static shape (rank 0 for a scalar) and its dense size in bytes.
struct TensorInfo {
  std::string name;
  LiteRtElementType element_type = kLiteRtElementTypeNone;
  std::vector<int32_t> shape;
  size_t byte_size = 0;
};

// A .tflite model compiled for the CPU. Runs the model's first signature (a model without
// SignatureDef has exactly one, LiteRT's "<placeholder signature>"); its inputs and outputs are
// in the subgraph's input and output order whatever order the SignatureDef lists them in.
class CompiledModel {
 public:
  // Loads `model_bytes` (not copied: the caller keeps them alive and unchanged for the model's
  // lifetime) and compiles it with the CPU accelerator. `num_threads` > 0 sets XNNPACK's thread
  // count (CPU opaque options "xnnpack", TOML "num_threads = N"); 0 keeps LiteRT's default,
  // which is one thread. Throws OperationError with LiteRT's status (e.g. for bytes that are
  // not a TFLite model) or when a signature input or output has a dynamic or unknown type.
  CompiledModel(std::span<const std::byte> model_bytes, int num_threads);
  ~CompiledModel();
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  // The key of the signature being run ("<placeholder signature>" without SignatureDef).
  const std::string& signature_key() const { return signature_key_; }
  size_t input_count() const { return inputs_.size(); }
  size_t output_count() const { return outputs_.size(); }
  const TensorInfo& input(size_t i) const { return inputs_.at(i).info; }
  const TensorInfo& output(size_t i) const { return outputs_.at(i).info; }
  // The index of the input or output named `name`, if any.
  std::optional<size_t> find_input(std::string_view name) const;
  std::optional<size_t> find_output(std::string_view name) const;

  // Runs the signature: inputs[i] / outputs[i] point at the i-th input / output, dense, of
  // input(i).byte_size / output(i).byte_size bytes. A pointer aligned to 64 bytes (LiteRT's
  // LITERT_HOST_MEMORY_BUFFER_ALIGNMENT) is bound in place, and the binding is kept: running
  // again with the same pointers creates nothing. Any other pointer goes through a LiteRT-owned
  // staging buffer and a copy. Outputs must not overlap inputs or each other. Runs of one model
  // are serialized. Throws OperationError with LiteRT's messages when the run fails.
  void run(std::span<const std::byte* const> inputs, std::span<std::byte* const> outputs);

  // How many LiteRT tensor buffers this model has created so far (bindings and staging buffers),
  // and how many copies through staging buffers runs have made: for tests and diagnostics.
  size_t buffers_created() const { return buffers_created_; }
  size_t staged_copies() const { return staged_copies_; }

 private:
  // One signature input or output and its cached LiteRT buffers.
  struct Slot {
    TensorInfo info;
    LiteRtRankedTensorType type{};
    const void* bound = nullptr;           // the caller pointer `wrapped` is over
    LiteRtTensorBuffer wrapped = nullptr;  // host-memory buffer over `bound`
    LiteRtTensorBuffer staging = nullptr;  // managed buffer for pointers that cannot be wrapped
  };
  // The buffer to hand LiteRT for `ptr` in `slot`; sets `staged` when it is the staging buffer.
  LiteRtTensorBuffer bind(Slot& slot, const void* ptr, bool& staged);
  void copy_staging(LiteRtTensorBuffer buffer, void* to, const void* from, size_t bytes,
                    bool write);
  [[noreturn]] void throw_run_error(LiteRtStatus status);
  void release();

  std::shared_ptr<Environment> env_;
  LiteRtModel model_ = nullptr;
  LiteRtOptions options_ = nullptr;
  LiteRtCompiledModel compiled_ = nullptr;
  std::string signature_key_;
  std::vector<Slot> inputs_;
  std::vector<Slot> outputs_;
  std::mutex run_mutex_;  // guards the slots, the counters and the per-run arrays below
  std::vector<LiteRtTensorBuffer> in_buffers_, out_buffers_;
  std::vector<char> out_staged_;
  size_t buffers_created_ = 0;
  size_t staged_copies_ = 0;
};

}  // namespace cppnn::litert_runtime
