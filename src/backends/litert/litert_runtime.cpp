#include "src/backends/litert/litert_runtime.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "cppnn/errors.h"

namespace cppnn::litert_runtime {
namespace {

// Opaque-options identifiers and TOML keys libLiteRt.so 2.3 reads (litert/runtime/
// litert_cpu_options.cc and litert_runtime_options.cc parse a NUL-terminated TOML payload).
constexpr const char* kCpuOptionsId = "xnnpack";
constexpr const char* kRuntimeOptionsId = "runtime_options_string";
// error_reporter_mode 2 (kLiteRtErrorReporterModeBuffer): TFLite's messages of a failed run are
// kept for LiteRtCompiledModelGetErrorMessages instead of going to stderr.
constexpr const char* kRuntimeOptionsToml = "error_reporter_mode = 2\n";

// LiteRT's name of a status code (LiteRtGetStatusString is not exported by 2.3).
const char* status_name(LiteRtStatus status) {
  switch (status) {
    case kLiteRtStatusOk:
      return "ok";
    case kLiteRtStatusErrorInvalidArgument:
      return "invalid argument";
    case kLiteRtStatusErrorMemoryAllocationFailure:
      return "memory allocation failure";
    case kLiteRtStatusErrorRuntimeFailure:
      return "runtime failure";
    case kLiteRtStatusErrorMissingInputTensor:
      return "missing input tensor";
    case kLiteRtStatusErrorUnsupported:
      return "unsupported";
    case kLiteRtStatusErrorNotFound:
      return "not found";
    case kLiteRtStatusErrorTimeoutExpired:
      return "timeout expired";
    case kLiteRtStatusErrorWrongVersion:
      return "wrong version";
    case kLiteRtStatusErrorUnknown:
      return "unknown error";
    case kLiteRtStatusErrorAlreadyExists:
      return "already exists";
    case kLiteRtStatusCancelled:
      return "cancelled";
    case kLiteRtStatusErrorFileIO:
      return "file I/O error";
    case kLiteRtStatusErrorInvalidFlatbuffer:
      return "invalid flatbuffer";
    case kLiteRtStatusErrorDynamicLoading:
      return "dynamic loading error";
    case kLiteRtStatusErrorSerialization:
      return "serialization error";
    case kLiteRtStatusErrorCompilation:
      return "compilation error";
    case kLiteRtStatusErrorIndexOOB:
      return "index out of bounds";
    case kLiteRtStatusErrorInvalidIrType:
      return "invalid IR type";
    case kLiteRtStatusErrorInvalidGraphInvariant:
      return "invalid graph invariant";
    case kLiteRtStatusErrorGraphModification:
      return "graph modification error";
  }
  return "error";
}

std::string describe(LiteRtStatus status) {
  return std::string(status_name(status)) + " (LiteRtStatus " + std::to_string(int(status)) + ")";
}

// Throws OperationError "litert: <what>: <status>" unless `status` is ok.
void check(LiteRtStatus status, const char* what) {
  if (status != kLiteRtStatusOk)
    throw OperationError(std::string("litert: ") + what + ": " + describe(status));
}

// Bits per element of a LiteRT element type; 0 for the types cppnn cannot bind (strings,
// resources, variants).
size_t element_bits(LiteRtElementType type) {
  switch (type) {
    case kLiteRtElementTypeInt2:
      return 2;
    case kLiteRtElementTypeInt4:
      return 4;
    case kLiteRtElementTypeBool:
    case kLiteRtElementTypeInt8:
    case kLiteRtElementTypeUInt8:
      return 8;
    case kLiteRtElementTypeInt16:
    case kLiteRtElementTypeUInt16:
    case kLiteRtElementTypeFloat16:
    case kLiteRtElementTypeBFloat16:
      return 16;
    case kLiteRtElementTypeInt32:
    case kLiteRtElementTypeUInt32:
    case kLiteRtElementTypeFloat32:
      return 32;
    case kLiteRtElementTypeInt64:
    case kLiteRtElementTypeUInt64:
    case kLiteRtElementTypeFloat64:
    case kLiteRtElementTypeComplex64:
      return 64;
    case kLiteRtElementTypeComplex128:
      return 128;
    default:
      return 0;
  }
}

// A NUL-terminated copy of `toml` as an opaque-options item LiteRT owns (and free()s).
LiteRtOpaqueOptions toml_options(const char* identifier, const std::string& toml) {
  char* payload = static_cast<char*>(std::malloc(toml.size() + 1));
  if (!payload) throw OperationError("litert: out of memory for compilation options");
  std::memcpy(payload, toml.c_str(), toml.size() + 1);
  LiteRtOpaqueOptions options = nullptr;
  const LiteRtStatus status = LiteRtCreateOpaqueOptions(identifier, payload, std::free, &options);
  if (status != kLiteRtStatusOk) std::free(payload);
  check(status, "creating compilation options");
  return options;
}

// The signature tensor's type, static shape and dense byte size, or OperationError.
void describe_tensor(LiteRtTensor tensor, const char* name, LiteRtRankedTensorType& type,
                     TensorInfo& info) {
  check(LiteRtGetRankedTensorType(tensor, &type), "reading a signature tensor's type");
  info.name = name ? name : "";
  info.element_type = type.element_type;
  const size_t bits = element_bits(type.element_type);
  if (bits == 0)
    throw OperationError("litert: signature tensor '" + info.name + "' has element type " +
                         std::to_string(int(type.element_type)) + ", which cppnn cannot bind");
  size_t count = 1;
  for (unsigned d = 0; d < type.layout.rank; ++d) {
    const int32_t dim = type.layout.dimensions[d];
    if (dim < 0)
      throw OperationError("litert: signature tensor '" + info.name + "' has a dynamic shape");
    info.shape.push_back(dim);
    count *= size_t(dim);
  }
  info.byte_size = (count * bits + 7) / 8;
}

}  // namespace

std::shared_ptr<Environment> Environment::shared() {
  static std::mutex mutex;
  static std::shared_ptr<Environment> instance;
  std::lock_guard<std::mutex> lock(mutex);
  if (!instance) {
    LiteRtEnvironment env = nullptr;
    check(LiteRtCreateEnvironment(0, nullptr, &env), "creating the environment");
    instance.reset(new Environment(env));
  }
  return instance;
}

Environment::~Environment() {
  LiteRtDestroyEnvironment(env_);
}

CompiledModel::CompiledModel(std::span<const std::byte> model_bytes, int num_threads)
    : env_(Environment::shared()) {
  try {
    check(LiteRtCreateModelFromBuffer(env_->get(), model_bytes.data(), model_bytes.size(), &model_),
          "loading the model");
    LiteRtParamIndex signatures = 0;
    check(LiteRtGetNumModelSignatures(model_, &signatures), "reading the model's signatures");
    if (signatures == 0) throw OperationError("litert: the model has no signature");
    LiteRtSignature signature = nullptr;
    check(LiteRtGetModelSignature(model_, 0, &signature), "reading the model's signature");
    const char* key = nullptr;
    check(LiteRtGetSignatureKey(signature, &key), "reading the signature key");
    signature_key_ = key ? key : "";

    LiteRtParamIndex count = 0;
    check(LiteRtGetNumSignatureInputs(signature, &count), "reading the signature inputs");
    inputs_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      LiteRtTensor tensor = nullptr;
      check(LiteRtGetSignatureInputName(signature, i, &name), "reading a signature input");
      check(LiteRtGetSignatureInputTensorByIndex(signature, i, &tensor),
            "reading a signature input");
      describe_tensor(tensor, name, inputs_[i].type, inputs_[i].info);
    }
    check(LiteRtGetNumSignatureOutputs(signature, &count), "reading the signature outputs");
    outputs_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      LiteRtTensor tensor = nullptr;
      check(LiteRtGetSignatureOutputName(signature, i, &name), "reading a signature output");
      check(LiteRtGetSignatureOutputTensorByIndex(signature, i, &tensor),
            "reading a signature output");
      describe_tensor(tensor, name, outputs_[i].type, outputs_[i].info);
    }

    check(LiteRtCreateOptions(&options_), "creating compilation options");
    check(LiteRtSetOptionsHardwareAccelerators(options_, kLiteRtHwAcceleratorCpu),
          "selecting the CPU accelerator");
    if (num_threads > 0) {
      LiteRtOpaqueOptions cpu =
          toml_options(kCpuOptionsId, "num_threads = " + std::to_string(num_threads) + "\n");
      const LiteRtStatus status = LiteRtAddOpaqueOptions(options_, cpu);
      if (status != kLiteRtStatusOk) LiteRtDestroyOpaqueOptions(cpu);
      check(status, "adding the CPU options");
    }
    LiteRtOpaqueOptions runtime = toml_options(kRuntimeOptionsId, kRuntimeOptionsToml);
    const LiteRtStatus status = LiteRtAddOpaqueOptions(options_, runtime);
    if (status != kLiteRtStatusOk) LiteRtDestroyOpaqueOptions(runtime);
    check(status, "adding the runtime options");

    check(LiteRtCreateCompiledModel(env_->get(), model_, options_, &compiled_),
          "compiling the model");
  } catch (...) {
    release();
    throw;
  }
}

CompiledModel::~CompiledModel() {
  release();
}

void CompiledModel::release() {
  for (auto* slots : {&inputs_, &outputs_}) {
    for (Slot& slot : *slots) {
      if (slot.wrapped) LiteRtDestroyTensorBuffer(slot.wrapped);
      if (slot.staging) LiteRtDestroyTensorBuffer(slot.staging);
      slot.wrapped = slot.staging = nullptr;
    }
  }
  if (compiled_) LiteRtDestroyCompiledModel(compiled_);
  if (options_) LiteRtDestroyOptions(options_);
  if (model_) LiteRtDestroyModel(model_);
  compiled_ = nullptr;
  options_ = nullptr;
  model_ = nullptr;
}

std::optional<size_t> CompiledModel::find_input(std::string_view name) const {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].info.name == name) return i;
  return std::nullopt;
}

std::optional<size_t> CompiledModel::find_output(std::string_view name) const {
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (outputs_[i].info.name == name) return i;
  return std::nullopt;
}

LiteRtTensorBuffer CompiledModel::bind(Slot& slot, const void* ptr, bool& staged) {
  staged = false;
  if (slot.wrapped && slot.bound == ptr) return slot.wrapped;
  // LiteRT refuses host memory that is not LITERT_HOST_MEMORY_BUFFER_ALIGNMENT-aligned (status
  // 3, with an error line on stderr), so only aligned pointers are offered to it.
  if (reinterpret_cast<uintptr_t>(ptr) % LITERT_HOST_MEMORY_BUFFER_ALIGNMENT == 0) {
    LiteRtTensorBuffer buffer = nullptr;
    // LiteRT only reads input buffers; the C API takes every host pointer as void*.
    if (LiteRtCreateTensorBufferFromHostMemory(&slot.type, const_cast<void*>(ptr),
                                               slot.info.byte_size, nullptr,
                                               &buffer) == kLiteRtStatusOk) {
      ++buffers_created_;
      if (slot.wrapped) LiteRtDestroyTensorBuffer(slot.wrapped);
      slot.wrapped = buffer;
      slot.bound = ptr;
      return buffer;
    }
  }
  if (!slot.staging) {
    check(LiteRtCreateManagedTensorBuffer(env_->get(), kLiteRtTensorBufferTypeHostMemory,
                                          &slot.type, slot.info.byte_size, &slot.staging),
          "creating a staging buffer");
    ++buffers_created_;
  }
  staged = true;
  return slot.staging;
}

void CompiledModel::copy_staging(LiteRtTensorBuffer buffer, void* to, const void* from,
                                 size_t bytes, bool write) {
  void* host = nullptr;
  check(LiteRtLockTensorBuffer(
            buffer, &host,
            write ? kLiteRtTensorBufferLockModeWrite : kLiteRtTensorBufferLockModeRead),
        "locking a staging buffer");
  if (bytes > 0) std::memcpy(write ? host : to, write ? from : host, bytes);
  check(LiteRtUnlockTensorBuffer(buffer), "unlocking a staging buffer");
  ++staged_copies_;
}

void CompiledModel::throw_run_error(LiteRtStatus status) {
  std::string message = "litert: running the model: " + describe(status);
  char* reported = nullptr;
  if (LiteRtCompiledModelGetErrorMessages(compiled_, &reported) == kLiteRtStatusOk && reported) {
    std::string text(reported);
    std::free(reported);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    for (char& c : text)
      if (c == '\n') c = ';';
    if (!text.empty()) message += ": " + text;
  }
  LiteRtCompiledModelClearErrors(compiled_);
  throw OperationError(message);
}

void CompiledModel::run(std::span<const std::byte* const> inputs,
                        std::span<std::byte* const> outputs) {
  if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size())
    throw OperationError("litert: the model takes " + std::to_string(inputs_.size()) +
                         " inputs and " + std::to_string(outputs_.size()) + " outputs, not " +
                         std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
  std::lock_guard<std::mutex> lock(run_mutex_);
  std::vector<LiteRtTensorBuffer>& in = in_buffers_;
  std::vector<LiteRtTensorBuffer>& out = out_buffers_;
  std::vector<char>& out_staged = out_staged_;
  in.assign(inputs.size(), nullptr);
  out.assign(outputs.size(), nullptr);
  out_staged.assign(outputs.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) throw OperationError("litert: input " + std::to_string(i) + " is null");
    bool staged = false;
    in[i] = bind(inputs_[i], inputs[i], staged);
    if (staged) copy_staging(in[i], nullptr, inputs[i], inputs_[i].info.byte_size, true);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i]) throw OperationError("litert: output " + std::to_string(i) + " is null");
    bool staged = false;
    out[i] = bind(outputs_[i], outputs[i], staged);
    out_staged[i] = staged;
  }
  const LiteRtStatus status =
      LiteRtRunCompiledModel(compiled_, 0, in.size(), in.data(), out.size(), out.data());
  if (status != kLiteRtStatusOk) throw_run_error(status);
  for (size_t i = 0; i < outputs.size(); ++i)
    if (out_staged[i]) copy_staging(out[i], outputs[i], nullptr, outputs_[i].info.byte_size, false);
}

}  // namespace cppnn::litert_runtime
