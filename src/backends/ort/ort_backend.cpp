#include "src/backends/ort/ort_backend.h"

#include <onnxruntime_cxx_api.h>

#include <cstring>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/four_bit_io.h"
#include "src/export/onnx/convert.h"
#include "src/export/onnx/target.h"

namespace cppnn {
namespace {

// The process-wide ORT environment (ORT requires exactly one; created on first use).
Ort::Env& ort_env() {
  static Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "cppnn");
  return env;
}

ONNXTensorElementDataType ort_type_of(MLOperandDataType t) {
  return static_cast<ONNXTensorElementDataType>(onnx_export::onnx_type_of(t));
}

// An ORT error as an OperationError; names the WebNN op when ORT names one of our nodes.
[[noreturn]] void throw_ort_error(const Graph& graph, const char* stage, const Ort::Exception& e) {
  std::string message = e.what();
  std::string where;
  for (size_t pos = message.find('#'); pos != std::string::npos; pos = message.find('#', pos + 1)) {
    size_t start = message.find_last_of("'( ", pos);
    start = start == std::string::npos ? 0 : start + 1;
    long index = onnx_export::operation_of_node(std::string_view(message).substr(start));
    if (index >= 0 && static_cast<size_t>(index) < graph.operations.size()) {
      const Operation& op = graph.operations[index];
      where = std::string(op_name(op.type));
      if (!op.label().empty()) where += " [label \"" + op.label() + "\"]";
      where += ": ";
      break;
    }
  }
  throw OperationError(where + "ort " + stage + ": " + message);
}

// A graph compiled into one ORT session.
class OrtGraph final : public CompiledGraph {
 public:
  OrtGraph(std::shared_ptr<const Graph> graph, const MLContextOptions& options)
      : graph_(std::move(graph)),
        memory_(Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU)) {
    const Graph& g = *graph_;
    onnx_export::Conversion conversion = onnx_export::convert_graph(g, {});
    Ort::SessionOptions session_options;
    if (options.numThreads > 0) session_options.SetIntraOpNumThreads(int(options.numThreads));
    session_options.SetInterOpNumThreads(1);
    // Large constants: ORT uses the graph's bytes in place (AddInitializer), the protobuf only
    // declares them.
    for (const auto& ext : conversion.externals) {
      onnx::TensorProto* t = conversion.model.mutable_graph()->mutable_initializer(ext.initializer);
      auto add = [&](const char* key, std::string value) {
        auto* entry = t->add_external_data();
        entry->set_key(key);
        entry->set_value(std::move(value));
      };
      add("location", "cppnn-constant");
      std::vector<int64_t> shape(t->dims().begin(), t->dims().end());
      initializers_.push_back(Ort::Value::CreateTensor(
          memory_, const_cast<std::byte*>(ext.bytes.data()), ext.bytes.size(), shape.data(),
          shape.size(), static_cast<ONNXTensorElementDataType>(t->data_type())));
      initializer_names_.push_back(ext.name);
    }
    try {
      session_options.AddExternalInitializers(initializer_names_, initializers_);
      std::string bytes;
      conversion.model.SerializeToString(&bytes);
      session_ = Ort::Session(ort_env(), bytes.data(), bytes.size(), session_options);
    } catch (const Ort::Exception& e) {
      throw_ort_error(g, "session", e);
    }
    // Names are resolved once; dispatch passes the arrays as they are.
    const auto& graph_proto = conversion.model.graph();
    for (const auto& in : graph_proto.input()) input_names_.push_back(in.name());
    for (const auto& out : graph_proto.output()) output_names_.push_back(out.name());
    for (const auto& n : input_names_) input_cnames_.push_back(n.c_str());
    for (const auto& n : output_names_) output_cnames_.push_back(n.c_str());
    for (OperandId id : g.inputs) slots_in_.emplace_back(g.descriptor(id));
    for (const auto& [name, id] : g.outputs) slots_out_.emplace_back(g.descriptor(id));
    input_values_.resize(slots_in_.size());
    output_values_.resize(slots_out_.size());
  }

  void execute(std::span<const std::byte* const> inputs,
               std::span<std::byte* const> outputs) override {
    try {
      for (size_t i = 0; i < inputs.size(); ++i)
        bind(slots_in_[i], slots_in_[i].io.input(inputs[i]), input_values_[i]);
      for (size_t i = 0; i < outputs.size(); ++i)
        bind(slots_out_[i], slots_out_[i].io.output(outputs[i]), output_values_[i]);
      session_.Run(run_options_, input_cnames_.data(), input_values_.data(), input_values_.size(),
                   output_cnames_.data(), output_values_.data(), output_values_.size());
      for (size_t i = 0; i < outputs.size(); ++i) slots_out_[i].io.finish_output(outputs[i]);
    } catch (const Ort::Exception& e) {
      throw_ort_error(*graph_, "run", e);
    }
  }

 private:
  // One bound input or output (4-bit data through FourBitIo's staging) and the memory of the
  // last dispatch.
  struct Slot {
    explicit Slot(const MLOperandDescriptor& d) : io(d) {}
    FourBitIo io;
    std::byte* data = nullptr;
  };

  // Wraps `data` as an OrtValue, reusing the previous one when the same memory is bound again.
  void bind(Slot& slot, std::byte* data, Ort::Value& value) {
    if (slot.data == data && value) return;
    const MLOperandDescriptor& desc = slot.io.descriptor();
    std::vector<int64_t> shape(desc.shape.begin(), desc.shape.end());
    value = Ort::Value::CreateTensor(memory_, data, slot.io.runtime_bytes(), shape.data(),
                                     shape.size(), ort_type_of(desc.dataType));
    slot.data = data;
  }

  std::shared_ptr<const Graph> graph_;  // keeps the constants ORT reads alive
  Ort::MemoryInfo memory_;
  std::vector<Ort::Value> initializers_;
  std::vector<std::string> initializer_names_;
  Ort::Session session_{nullptr};
  Ort::RunOptions run_options_{nullptr};
  std::vector<std::string> input_names_, output_names_;
  std::vector<const char*> input_cnames_, output_cnames_;
  std::vector<Slot> slots_in_, slots_out_;
  std::vector<Ort::Value> input_values_, output_values_;
};

class OrtBackend final : public Backend {
 public:
  explicit OrtBackend(const MLContextOptions& options) : options_(options) {}
  // Every op through the ONNX lowering (src/export/onnx/), for every data type the spec allows:
  // the ONNX export's support (src/export/onnx/target.h), so that the pipeline decomposes what
  // the converter has no direct lowering for (lstm/lstmCell with peepholes) before compile().
  const BackendDescriptor& descriptor() const override {
    static const BackendDescriptor d = onnx_export::onnx_descriptor("ort");
    return d;
  }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    return std::make_unique<OrtGraph>(std::move(graph), options_);
  }

 private:
  MLContextOptions options_;
};

}  // namespace

std::unique_ptr<Backend> make_ort_backend(const MLContextOptions& options) {
  return std::make_unique<OrtBackend>(options);
}

}  // namespace cppnn
