// The C API's graph builder (include/cppnn/cppnn.h "Graph builder"): inputs, constants, the
// generic operation call over the dynamic builder call (dynamic_call.h) and build (§3.8).
#include <set>
#include <span>

#include "cppnn/dynamic_call.h"
#include "src/capi/handles.h"
#include "src/capi/values.h"

using cppnn::capi::guard;
using cppnn::capi::require;

cppnn_operand* cppnn_builder::adopt(const cppnn::MLOperand& operand) {
  operands.push_back(cppnn_operand{operand, operand.shape()});
  return &operands.back();
}

cppnn_graph::cppnn_graph(cppnn::MLGraph g) : graph(std::move(g)) {
  for (const auto& [name, d] : graph.inputs()) inputs.emplace_back(name, d);
  for (const auto& [name, d] : graph.outputs()) outputs.emplace_back(name, d);
}

extern "C" {

cppnn_status cppnn_builder_create(cppnn_context* context, cppnn_builder** out,
                                  cppnn_error** error) {
  return guard(error, [&] {
    require(context, __func__, "the context");
    require(out, __func__, "the result pointer");
    *out = new cppnn_builder(context->context);
  });
}

void cppnn_builder_destroy(cppnn_builder* builder) {
  delete builder;
}

cppnn_status cppnn_builder_input(cppnn_builder* builder, const char* name,
                                 const cppnn_operand_descriptor* descriptor, cppnn_operand** out,
                                 cppnn_error** error) {
  return guard(error, [&] {
    require(builder, __func__, "the builder");
    require(name, __func__, "the name");
    require(out, __func__, "the result pointer");
    const cppnn::MLOperandDescriptor d = cppnn::capi::descriptor_of(descriptor, __func__);
    *out = builder->adopt(builder->builder.input(name, d));
  });
}

cppnn_status cppnn_builder_constant(cppnn_builder* builder,
                                    const cppnn_operand_descriptor* descriptor, const void* data,
                                    size_t byte_length, cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require(builder, __func__, "the builder");
    require(out, __func__, "the result pointer");
    if (byte_length > 0) require(data, __func__, "the data");
    const cppnn::MLOperandDescriptor d = cppnn::capi::descriptor_of(descriptor, __func__);
    *out = builder->adopt(builder->builder.constant(
        d, std::span<const std::byte>(static_cast<const std::byte*>(data), byte_length)));
  });
}

cppnn_status cppnn_builder_constant_scalar(cppnn_builder* builder, cppnn_data_type type,
                                           double value, cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require(builder, __func__, "the builder");
    require(out, __func__, "the result pointer");
    *out = builder->adopt(builder->builder.constant(cppnn::capi::data_type_of(type, __func__),
                                                    cppnn::MLNumber(value)));
  });
}

cppnn_status cppnn_builder_constant_tensor(cppnn_builder* builder, cppnn_tensor* tensor,
                                           cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require(builder, __func__, "the builder");
    require(tensor, __func__, "the tensor");
    require(out, __func__, "the result pointer");
    *out = builder->adopt(builder->builder.constant(tensor->tensor));
  });
}

cppnn_operand_descriptor cppnn_operand_get_descriptor(const cppnn_operand* operand) {
  if (!operand) return {CPPNN_FLOAT32, nullptr, 0};
  cppnn_operand_descriptor d;
  try {
    d.data_type = static_cast<cppnn_data_type>(operand->operand.dataType());
  } catch (...) {
    d.data_type = CPPNN_FLOAT32;
  }
  d.shape = operand->shape.empty() ? nullptr : operand->shape.data();
  d.rank = operand->shape.size();
  return d;
}

cppnn_status cppnn_builder_call(cppnn_builder* builder, const char* method, const cppnn_value* args,
                                size_t arg_count, cppnn_operand** outputs, size_t capacity,
                                size_t* output_count, cppnn_error** error) {
  return guard(error, [&] {
    require(builder, __func__, "the builder");
    require(method, __func__, "the method");
    if (arg_count > 0) require(args, __func__, "the arguments");
    if (capacity > 0) require(outputs, __func__, "the outputs");
    std::vector<cppnn::DynValue> values;
    values.reserve(arg_count);
    for (size_t i = 0; i < arg_count; ++i)
      values.push_back(cppnn::capi::dyn_value_of(args[i], method, "argument " + std::to_string(i)));
    cppnn::capi::record_call(*builder, method, values, outputs, capacity, output_count);
  });
}

cppnn_status cppnn_builder_build(cppnn_builder* builder, const char* const* names,
                                 const cppnn_operand* const* outputs, size_t count,
                                 cppnn_graph** out, cppnn_error** error) {
  return guard(error, [&] {
    require(builder, __func__, "the builder");
    require(out, __func__, "the result pointer");
    if (count > 0) {
      require(names, __func__, "the output names");
      require(outputs, __func__, "the outputs");
    }
    cppnn::MLNamedOperands named;
    for (size_t i = 0; i < count; ++i) {
      const std::string where = "output " + std::to_string(i);
      require(names[i], __func__, (where + "'s name").c_str());
      require(outputs[i], __func__, (where + "'s operand").c_str());
      if (!named.emplace(names[i], outputs[i]->operand).second)
        throw cppnn::TypeError(std::string(__func__) + ": output name '" + names[i] +
                               "' is given twice");
    }
    cppnn::MLGraph graph = builder->builder.build(named);
    *out = new cppnn_graph(std::move(graph));
  });
}

}  // extern "C"
