// The C API's typed operation helpers (include/cppnn/cppnn.h "Typed forms of common operations"):
// each builds the arguments of the generic call, so the validation is the dynamic call's.
#include <string_view>

#include "src/capi/handles.h"
#include "src/capi/values.h"

using cppnn::DynValue;
using cppnn::capi::guard;
using cppnn::capi::record_single;
using cppnn::capi::require;

namespace {

using Args = std::vector<DynValue>;
using Members = DynValue::Object;

// The ops.def signature kind of `method` ("Unary", "Binary", ...), empty for an unknown method.
std::string_view signature_of(std::string_view method) {
  struct Entry {
    std::string_view method, signature;
  };
  static constexpr Entry kOps[] = {
#define CPPNN_OP(E, m, S, O, F) {#m, #S},
#include "cppnn/ops.def"
#undef CPPNN_OP
  };
  for (const Entry& e : kOps)
    if (e.method == method) return e.signature;
  return {};
}

// TypeError unless `method` has the signature kind `kind`.
void require_signature(const char* method, std::string_view kind, const char* function) {
  require(method, function, "the method");
  if (signature_of(method) != kind)
    throw cppnn::TypeError(std::string(function) + ": '" + method +
                           "' is not a builder operation whose arguments are " +
                           (kind == "Unary" ? "one operand" : "two operands"));
}

// The checks every typed helper starts with.
void require_call(const cppnn_builder* builder, cppnn_operand** out, const char* function) {
  require(builder, function, "the builder");
  require(out, function, "the result pointer");
}

DynValue operand_value(const cppnn_operand* op, const char* function, const char* what) {
  return DynValue(require(op, function, what)->operand);
}

DynValue list_value(const uint32_t* values, size_t count, const char* function, const char* what) {
  if (count > 0) require(values, function, what);
  DynValue::Array a;
  a.reserve(count);
  for (size_t i = 0; i < count; ++i) a.emplace_back(values[i]);
  return DynValue(std::move(a));
}

// The padding, strides and dilations members shared by conv2d and the pools.
Members window_members(const uint32_t (&padding)[4], const uint32_t (&strides)[2],
                       const uint32_t (&dilations)[2]) {
  auto list = [](const uint32_t* v, size_t n) {
    DynValue::Array a(v, v + n);
    return DynValue(std::move(a));
  };
  return Members{{"padding", list(padding, 4)},
                 {"strides", list(strides, 2)},
                 {"dilations", list(dilations, 2)}};
}

// A label member when `label` is set.
void add_label(Members& options, const char* label) {
  if (label) options.emplace_back("label", DynValue(std::string(label)));
}

const char* layout_name(const cppnn_input_layout& layout, const char* function) {
  const long long raw = cppnn::capi::raw_enum(layout);
  if (raw == CPPNN_LAYOUT_NCHW) return "nchw";
  if (raw == CPPNN_LAYOUT_NHWC) return "nhwc";
  throw cppnn::TypeError(std::string(function) + ": layout " + std::to_string(raw) +
                         " is not a cppnn_input_layout");
}

}  // namespace

extern "C" {

cppnn_status cppnn_builder_binary(cppnn_builder* builder, const char* method,
                                  const cppnn_operand* a, const cppnn_operand* b,
                                  cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    require_signature(method, "Binary", __func__);
    *out = record_single(*builder, method,
                         Args{operand_value(a, __func__, "a"), operand_value(b, __func__, "b")});
  });
}

cppnn_status cppnn_builder_unary(cppnn_builder* builder, const char* method,
                                 const cppnn_operand* input, cppnn_operand** out,
                                 cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    require_signature(method, "Unary", __func__);
    *out = record_single(*builder, method, Args{operand_value(input, __func__, "the input")});
  });
}

cppnn_status cppnn_builder_softmax(cppnn_builder* builder, const cppnn_operand* input,
                                   uint32_t axis, cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    *out = record_single(*builder, "softmax",
                         Args{operand_value(input, __func__, "the input"), DynValue(axis)});
  });
}

cppnn_status cppnn_builder_clamp(cppnn_builder* builder, const cppnn_operand* input,
                                 double min_value, double max_value, cppnn_operand** out,
                                 cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    Members options{{"minValue", DynValue(min_value)}, {"maxValue", DynValue(max_value)}};
    *out = record_single(
        *builder, "clamp",
        Args{operand_value(input, __func__, "the input"), DynValue(std::move(options))});
  });
}

cppnn_status cppnn_builder_reshape(cppnn_builder* builder, const cppnn_operand* input,
                                   const uint32_t* new_shape, size_t rank, cppnn_operand** out,
                                   cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    *out = record_single(*builder, "reshape",
                         Args{operand_value(input, __func__, "the input"),
                              list_value(new_shape, rank, __func__, "the new shape")});
  });
}

cppnn_status cppnn_builder_transpose(cppnn_builder* builder, const cppnn_operand* input,
                                     const uint32_t* permutation, size_t rank, cppnn_operand** out,
                                     cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    Members options;
    if (permutation)
      options.emplace_back("permutation", list_value(permutation, rank, __func__, "permutation"));
    *out = record_single(
        *builder, "transpose",
        Args{operand_value(input, __func__, "the input"), DynValue(std::move(options))});
  });
}

cppnn_status cppnn_builder_concat(cppnn_builder* builder, const cppnn_operand* const* inputs,
                                  size_t count, uint32_t axis, cppnn_operand** out,
                                  cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    if (count > 0) require(inputs, __func__, "the inputs");
    DynValue::Array list;
    for (size_t i = 0; i < count; ++i)
      list.push_back(operand_value(inputs[i], __func__, "an input"));
    *out = record_single(*builder, "concat", Args{DynValue(std::move(list)), DynValue(axis)});
  });
}

void cppnn_conv2d_options_init(cppnn_conv2d_options* options) {
  if (!options) return;
  *options = cppnn_conv2d_options{{0, 0, 0, 0},      {1, 1},  {1, 1},  1,
                                  CPPNN_LAYOUT_NCHW, nullptr, nullptr, nullptr};
}

cppnn_status cppnn_builder_conv2d(cppnn_builder* builder, const cppnn_operand* input,
                                  const cppnn_operand* filter, const cppnn_conv2d_options* options,
                                  cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    cppnn_conv2d_options o;
    cppnn_conv2d_options_init(&o);
    if (options) o = *options;
    Members m = window_members(o.padding, o.strides, o.dilations);
    m.emplace_back("groups", DynValue(o.groups));
    m.emplace_back("inputLayout", DynValue(layout_name(o.input_layout, __func__)));
    m.emplace_back("filterLayout", DynValue(o.filter_layout ? o.filter_layout : "oihw"));
    if (o.bias) m.emplace_back("bias", DynValue(o.bias->operand));
    add_label(m, o.label);
    *out =
        record_single(*builder, "conv2d",
                      Args{operand_value(input, __func__, "the input"),
                           operand_value(filter, __func__, "the filter"), DynValue(std::move(m))});
  });
}

void cppnn_pool2d_options_init(cppnn_pool2d_options* options) {
  if (!options) return;
  *options =
      cppnn_pool2d_options{{0, 0}, {0, 0, 0, 0}, {1, 1}, {1, 1}, CPPNN_LAYOUT_NCHW, false, nullptr};
}

cppnn_status cppnn_builder_pool2d(cppnn_builder* builder, const char* method,
                                  const cppnn_operand* input, const cppnn_pool2d_options* options,
                                  cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    require(method, __func__, "the method");
    const std::string_view m = method;
    if (m != "averagePool2d" && m != "maxPool2d" && m != "l2Pool2d")
      throw cppnn::TypeError(std::string(__func__) + ": '" + method +
                             "' is not averagePool2d, maxPool2d or l2Pool2d");
    cppnn_pool2d_options o;
    cppnn_pool2d_options_init(&o);
    if (options) o = *options;
    Members members = window_members(o.padding, o.strides, o.dilations);
    members.emplace_back("layout", DynValue(layout_name(o.layout, __func__)));
    members.emplace_back("roundingType", DynValue(o.ceil_rounding ? "ceil" : "floor"));
    if (o.window_dimensions[0] != 0 || o.window_dimensions[1] != 0)
      members.emplace_back("windowDimensions",
                           list_value(o.window_dimensions, 2, __func__, "window dimensions"));
    add_label(members, o.label);
    *out = record_single(
        *builder, method,
        Args{operand_value(input, __func__, "the input"), DynValue(std::move(members))});
  });
}

cppnn_status cppnn_builder_gemm(cppnn_builder* builder, const cppnn_operand* a,
                                const cppnn_operand* b, const cppnn_operand* c, double alpha,
                                double beta, bool a_transpose, bool b_transpose,
                                cppnn_operand** out, cppnn_error** error) {
  return guard(error, [&] {
    require_call(builder, out, __func__);
    Members m{{"alpha", DynValue(alpha)},
              {"beta", DynValue(beta)},
              {"aTranspose", DynValue(a_transpose)},
              {"bTranspose", DynValue(b_transpose)}};
    if (c) m.emplace_back("c", DynValue(c->operand));
    *out = record_single(*builder, "gemm",
                         Args{operand_value(a, __func__, "a"), operand_value(b, __func__, "b"),
                              DynValue(std::move(m))});
  });
}

}  // extern "C"
