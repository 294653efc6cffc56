// The C API's contexts, tensors and dispatch (include/cppnn/cppnn.h "Context", "Tensors",
// "Graphs and dispatch"): thin wrappers over MLContext (webnn-spec.md §1, §4).
#include <span>

#include "cppnn/descriptor.h"
#include "src/capi/handles.h"

using cppnn::capi::guard;
using cppnn::capi::require;

namespace {

// The backend names, computed once (cppnn_backend_name returns pointers into it).
const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = cppnn::available_backends();
  return names;
}

// Bindings of dispatch(): `count` names and tensors as MLNamedTensors; TypeError for a NULL
// entry or a name given twice.
cppnn::MLNamedTensors bindings(const char* const* names, cppnn_tensor* const* tensors, size_t count,
                               const char* what, const char* function) {
  cppnn::MLNamedTensors out;
  if (count == 0) return out;
  require(names, function, what);
  require(tensors, function, what);
  for (size_t i = 0; i < count; ++i) {
    const std::string where = std::string(what) + " " + std::to_string(i);
    require(names[i], function, (where + "'s name").c_str());
    require(tensors[i], function, (where + "'s tensor").c_str());
    if (!out.emplace(names[i], tensors[i]->tensor).second)
      throw cppnn::TypeError(std::string(function) + ": " + what + " '" + names[i] +
                             "' is bound twice");
  }
  return out;
}

}  // namespace

extern "C" {

void cppnn_context_options_init(cppnn_context_options* options) {
  if (!options) return;
  options->power_preference = CPPNN_POWER_DEFAULT;
  options->accelerated = true;
  options->backend = nullptr;
  options->num_threads = 0;
}

size_t cppnn_backend_count(void) {
  try {
    return backend_names().size();
  } catch (...) {
    return 0;
  }
}

const char* cppnn_backend_name(size_t index) {
  try {
    const std::vector<std::string>& names = backend_names();
    return index < names.size() ? names[index].c_str() : nullptr;
  } catch (...) {
    return nullptr;
  }
}

cppnn_status cppnn_context_create(const cppnn_context_options* options, cppnn_context** out,
                                  cppnn_error** error) {
  return guard(error, [&] {
    require(out, __func__, "the result pointer");
    cppnn::MLContextOptions o;
    if (options) {
      const long long p = cppnn::capi::raw_enum(options->power_preference);
      if (p < 0 || p > 2)
        throw cppnn::TypeError(std::string(__func__) + ": power preference " + std::to_string(p) +
                               " is not a cppnn_power_preference");
      o.powerPreference = static_cast<cppnn::MLPowerPreference>(p);
      o.accelerated = options->accelerated;
      if (options->backend) o.backend = options->backend;
      o.numThreads = options->num_threads;
    }
    cppnn::MLContext context = cppnn::MLContext::create(o);
    *out = new cppnn_context{context, context.backend()};
  });
}

void cppnn_context_destroy(cppnn_context* context) {
  if (!context) return;
  try {
    context->context.destroy();
  } catch (...) {
    // destroy() is a no-op on a lost context; nothing else can be reported from here
  }
  delete context;
}

const char* cppnn_context_backend(const cppnn_context* context) {
  return context ? context->backend.c_str() : nullptr;
}

bool cppnn_context_accelerated(const cppnn_context* context) {
  try {
    return context && context->context.accelerated();
  } catch (...) {
    return false;
  }
}

bool cppnn_context_is_lost(const cppnn_context* context) {
  try {
    return !context || context->context.is_lost();
  } catch (...) {
    return true;
  }
}

cppnn_status cppnn_context_op_support_limits(const cppnn_context* context, char** json,
                                             cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(json, __func__, "the result pointer");
    *json = cppnn::capi::copy_string(context->context.opSupportLimits().to_json());
  });
}

cppnn_status cppnn_context_create_tensor(cppnn_context* context,
                                         const cppnn_tensor_descriptor* descriptor,
                                         cppnn_tensor** out, cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(descriptor, __func__, "the descriptor");
    require(out, __func__, "the result pointer");
    cppnn_operand_descriptor od;  // copied bytewise: data_type may hold any int (raw_enum)
    std::memcpy(&od.data_type, &descriptor->data_type, sizeof od.data_type);
    od.shape = descriptor->shape;
    od.rank = descriptor->rank;
    const cppnn::MLOperandDescriptor d = cppnn::capi::descriptor_of(&od, __func__);
    cppnn::MLTensor t = context->context.createTensor(
        cppnn::MLTensorDescriptor::of(d, descriptor->readable, descriptor->writable));
    *out = new cppnn_tensor{std::move(t)};
  });
}

cppnn_status cppnn_context_create_constant_tensor(cppnn_context* context,
                                                  const cppnn_operand_descriptor* descriptor,
                                                  const void* data, size_t byte_length,
                                                  cppnn_tensor** out, cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(out, __func__, "the result pointer");
    if (byte_length > 0) require(data, __func__, "the data");
    const cppnn::MLOperandDescriptor d = cppnn::capi::descriptor_of(descriptor, __func__);
    cppnn::MLTensor t = context->context.createConstantTensor(
        d, std::span<const std::byte>(static_cast<const std::byte*>(data), byte_length));
    *out = new cppnn_tensor{std::move(t)};
  });
}

cppnn_status cppnn_context_write_tensor(cppnn_context* context, cppnn_tensor* tensor,
                                        const void* data, size_t byte_length, cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(tensor, __func__, "the tensor");
    if (byte_length > 0) require(data, __func__, "the data");
    context->context.writeTensor(
        tensor->tensor,
        std::span<const std::byte>(static_cast<const std::byte*>(data), byte_length));
  });
}

cppnn_status cppnn_context_read_tensor(cppnn_context* context, cppnn_tensor* tensor, void* out,
                                       size_t byte_length, cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(tensor, __func__, "the tensor");
    if (byte_length > 0) require(out, __func__, "the output buffer");
    context->context.readTensor(tensor->tensor,
                                std::span<std::byte>(static_cast<std::byte*>(out), byte_length));
  });
}

void cppnn_tensor_destroy(cppnn_tensor* tensor) {
  if (!tensor) return;
  try {
    tensor->tensor.destroy();
  } catch (...) {
    // idempotent; nothing to report
  }
  delete tensor;
}

cppnn_tensor_descriptor cppnn_tensor_get_descriptor(const cppnn_tensor* tensor) {
  cppnn_tensor_descriptor out{CPPNN_FLOAT32, nullptr, 0, false, false};
  if (!tensor || tensor->tensor.is_null()) return out;
  const std::vector<uint32_t>& shape = tensor->tensor.shape();
  out.data_type = static_cast<cppnn_data_type>(tensor->tensor.dataType());
  out.shape = shape.empty() ? nullptr : shape.data();
  out.rank = shape.size();
  out.readable = tensor->tensor.readable();
  out.writable = tensor->tensor.writable();
  return out;
}

uint64_t cppnn_tensor_byte_length(const cppnn_tensor* tensor) {
  if (!tensor || tensor->tensor.is_null()) return 0;
  try {
    return cppnn::byte_length(tensor->tensor.descriptor());
  } catch (...) {
    return 0;  // cannot happen: the size was checked when the tensor was made
  }
}

cppnn_status cppnn_context_dispatch(cppnn_context* context, cppnn_graph* graph,
                                    const char* const* input_names, cppnn_tensor* const* inputs,
                                    size_t input_count, const char* const* output_names,
                                    cppnn_tensor* const* outputs, size_t output_count,
                                    cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(graph, __func__, "the graph");
    context->context.dispatch(graph->graph,
                              bindings(input_names, inputs, input_count, "input", __func__),
                              bindings(output_names, outputs, output_count, "output", __func__));
  });
}

}  // extern "C"
