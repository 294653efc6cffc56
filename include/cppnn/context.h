// MLContext (webnn-spec.md §1, §4): created from the spec's hints plus cppnn's backend choice.
#pragma once

#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cppnn/element_type.h"
#include "cppnn/enums.h"
#include "cppnn/support_limits.h"
#include "cppnn/tensor.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

namespace detail {
struct ContextState;
}
class MLGraph;

// MLNamedTensors: graph input or output names bound to tensors.
using MLNamedTensors = std::map<std::string, MLTensor>;

// MLContextOptions, plus `backend` (cppnn extension: a backend name; empty = choose from the
// hints and the CPPNN_BACKEND environment variable).
struct MLContextOptions {
  MLPowerPreference powerPreference = MLPowerPreference::kDefault;
  bool accelerated = true;
  // cppnn extension: the backend by name ("reference", "ort"); empty: the CPPNN_BACKEND
  // environment variable, else the first compiled-in backend.
  std::string backend;
  // cppnn extension: intra-op threads of backends with a thread pool (0: the backend's default).
  uint32_t numThreads = 0;
  // cppnn extension: time every operation of every dispatch where the backend can
  // (MLGraph::profile(), cppnn/profile.h); off by default: it costs two clock reads per operation.
  bool profile = false;
};

// MLContextLostInfo.
struct MLContextLostInfo {
  std::string message;
};

// A context: owns its backend state. Copies share the same context (like a JS object reference).
class MLContext {
 public:
  // ML.createContext(options). Throws NotSupportedError when no backend fits.
  static MLContext create(const MLContextOptions& options = {});

  // MLContext.accelerated.
  bool accelerated() const;
  // The chosen backend's name (cppnn extension).
  std::string backend() const;
  // MLContext.opSupportLimits().
  MLOpSupportLimits opSupportLimits() const;
  // createTensor(descriptor): a zero-filled tensor. InvalidStateError if the context is lost;
  // TypeError for invalid dimensions (erratum §6.8).
  MLTensor createTensor(const MLTensorDescriptor& descriptor);
  // createConstantTensor(descriptor, bytes): a constant tensor holding a copy of `bytes`, usable
  // by MLGraphBuilder::constant(tensor). TypeError when the bytes do not match the descriptor.
  MLTensor createConstantTensor(const MLOperandDescriptor& descriptor,
                                std::span<const std::byte> bytes);
  // writeTensor(tensor, bytes): copies `bytes` at call time. TypeError for a tensor of another
  // context, destroyed or not writable, or a byte length that does not match.
  void writeTensor(const MLTensor& tensor, std::span<const std::byte> bytes);
  // writeTensor(tensor, values) with typed elements (cppnn extension, element_type.h): TypeError
  // when the element type is not the tensor's data type.
  template <class T>
  requires kIsElementType<T>
  void writeTensor(const MLTensor& tensor, std::span<const T> values) {
    writeTensorTyped(tensor, typed_bytes(values));
  }
  template <class T>
  requires kIsElementType<T>
  void writeTensor(const MLTensor& tensor, const std::vector<T>& values) {
    writeTensorTyped(tensor, typed_bytes(std::span<const T>(values)));
  }
  // The typed writeTensor() forms: checks the element type, then writeTensor(tensor, bytes).
  void writeTensorTyped(const MLTensor& tensor, TypedBytes values);
  // readTensor(tensor, out): copies the tensor into `out` after all earlier work. TypeError for a
  // tensor of another context, destroyed or not readable, or a size mismatch; InvalidStateError
  // when the context is lost.
  void readTensor(const MLTensor& tensor, std::span<std::byte> out);
  // readTensor(tensor): the tensor's bytes.
  std::vector<std::byte> readTensor(const MLTensor& tensor);
  // readTensor<T>(tensor): the tensor's elements as T (sizeof(T) must be the element size).
  template <class T>
  std::vector<T> readTensor(const MLTensor& tensor) {
    std::vector<std::byte> b = readTensor(tensor);
    std::vector<T> out(b.size() / sizeof(T));
    std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
    return out;
  }
  // dispatch(graph, inputs, outputs): validates the bindings (§4) and runs the graph. TypeError
  // for a graph or tensor of another context, a destroyed tensor, a tensor bound twice, or
  // bindings that do not match the graph's inputs and outputs exactly; InvalidStateError for a
  // destroyed graph or a lost context.
  void dispatch(const MLGraph& graph, const MLNamedTensors& inputs, const MLNamedTensors& outputs);

  // MLContext.destroy(): loses the context (no-op when lost already).
  void destroy();
  // True once the context is lost (the spec's `lost` promise is settled).
  bool is_lost() const;
  // The lost info once lost (the value the `lost` promise resolves with).
  std::optional<MLContextLostInfo> lost_info() const;

  friend bool operator==(const MLContext& a, const MLContext& b) { return a.state_ == b.state_; }
  // Internal: the shared state, and a handle wrapping an existing state.
  const std::shared_ptr<detail::ContextState>& state() const { return state_; }
  explicit MLContext(std::shared_ptr<detail::ContextState> s) : state_(std::move(s)) {}

 private:
  std::shared_ptr<detail::ContextState> state_;
};

// The backends compiled into this library by name, in order of preference (cppnn extension, the
// names MLContextOptions::backend takes); test-only backends only with `with_test_only`.
std::vector<std::string> available_backends(bool with_test_only = false);

}  // namespace cppnn

#pragma GCC visibility pop
