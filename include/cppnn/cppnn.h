/* The cppnn C API (C11): the WebNN API (webnn-spec.md §1-§4) for embedders written in C, Rust, Zig
 * or anything with a C FFI, over the C++ API of cppnn/webnn.h.
 *
 * Conventions
 * - Handles are opaque: cppnn_context, cppnn_builder, cppnn_graph and cppnn_tensor are made by a
 *   create/build/load call and released with their destroy call (NULL is accepted and ignored).
 *   Operands (cppnn_operand) belong to the builder that made them and stay valid until it is
 *   destroyed; a graph, tensor or builder keeps what it needs of its context alive on its own.
 * - Every fallible call returns a cppnn_status. CPPNN_OK is 0; any other value is the spec's error
 *   name (TypeError, InvalidStateError, ...). When `error` is not NULL, a failing call stores a new
 *   cppnn_error there carrying the name and cppnn's message (released with cppnn_error_destroy);
 *   on success *error is left untouched. There is no global "last error": calls on different
 *   threads never share error state. No C++ exception crosses this interface.
 * - Strings are UTF-8 and NUL-terminated. Strings returned as `char**` are allocated by cppnn and
 *   released with cppnn_string_free; `const char*` results live as long as the handle they came
 *   from.
 * - Calls on one handle are not synchronised: use each context (and what it made) from one thread
 *   at a time, or lock around it.
 */
#ifndef CPPNN_CPPNN_H
#define CPPNN_CPPNN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define CPPNN_C_API __attribute__((visibility("default")))
#else
#define CPPNN_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ------------------------------------------------------------------- */

/* A call's outcome: CPPNN_OK, or the spec error name it failed with (webnn-spec.md §3.7, §4). */
typedef enum cppnn_status {
  CPPNN_OK = 0,
  CPPNN_TYPE_ERROR = 1,
  CPPNN_INVALID_STATE_ERROR = 2,
  CPPNN_OPERATION_ERROR = 3,
  CPPNN_NOT_SUPPORTED_ERROR = 4,
  CPPNN_UNKNOWN_ERROR = 5,
  CPPNN_DATA_ERROR = 6, /* a malformed file (cppnn extension) */
  CPPNN_SECURITY_ERROR = 7
} cppnn_status;

/* A failed call's error: its status, spec name and message. */
typedef struct cppnn_error cppnn_error;

/* The spec name of a status ("TypeError", ...; "OK" for CPPNN_OK, "UnknownError" if unknown). */
CPPNN_C_API const char* cppnn_status_name(cppnn_status status);
CPPNN_C_API cppnn_status cppnn_error_status(const cppnn_error* error);
/* The spec error name, e.g. "TypeError". */
CPPNN_C_API const char* cppnn_error_name(const cppnn_error* error);
/* cppnn's message, e.g. "conv2d [stem]: the filter's rank must be 4". */
CPPNN_C_API const char* cppnn_error_message(const cppnn_error* error);
CPPNN_C_API void cppnn_error_destroy(cppnn_error* error);
/* Releases a string cppnn returned through a `char**`. */
CPPNN_C_API void cppnn_string_free(char* string);

/* The library version ("0.1.0"). */
CPPNN_C_API const char* cppnn_version(void);

/* ---- Data types and descriptors ------------------------------------------------------------ */

/* MLOperandDataType; INT4/UINT4 are cppnn's packed storage types (two values per byte, low
 * nibble first) for constants and weights. */
typedef enum cppnn_data_type {
  CPPNN_FLOAT32 = 0,
  CPPNN_FLOAT16 = 1,
  CPPNN_INT32 = 2,
  CPPNN_UINT32 = 3,
  CPPNN_INT64 = 4,
  CPPNN_UINT64 = 5,
  CPPNN_INT8 = 6,
  CPPNN_UINT8 = 7,
  CPPNN_INT4 = 8,
  CPPNN_UINT4 = 9
} cppnn_data_type;

/* The spec's name of a data type ("float32"), NULL for a value outside the enum. */
CPPNN_C_API const char* cppnn_data_type_name(cppnn_data_type type);
/* Parses a data type name; CPPNN_TYPE_ERROR for an unknown one. */
CPPNN_C_API cppnn_status cppnn_data_type_from_name(const char* name, cppnn_data_type* out,
                                                   cppnn_error** error);

/* MLOperandDescriptor: `rank` dimensions at `shape` (NULL allowed for rank 0). */
typedef struct cppnn_operand_descriptor {
  cppnn_data_type data_type;
  const uint32_t* shape;
  size_t rank;
} cppnn_operand_descriptor;

/* MLTensorDescriptor: an operand descriptor plus the usage flags. */
typedef struct cppnn_tensor_descriptor {
  cppnn_data_type data_type;
  const uint32_t* shape;
  size_t rank;
  bool readable;
  bool writable;
} cppnn_tensor_descriptor;

/* ---- Context ----------------------------------------------------------------------------- */

typedef struct cppnn_context cppnn_context;
typedef struct cppnn_builder cppnn_builder;
typedef struct cppnn_operand cppnn_operand;
typedef struct cppnn_graph cppnn_graph;
typedef struct cppnn_tensor cppnn_tensor;

/* MLPowerPreference. */
typedef enum cppnn_power_preference {
  CPPNN_POWER_DEFAULT = 0,
  CPPNN_POWER_HIGH_PERFORMANCE = 1,
  CPPNN_POWER_LOW_POWER = 2
} cppnn_power_preference;

/* MLContextOptions plus cppnn's backend name (NULL or "": the CPPNN_BACKEND environment variable,
 * else the first compiled-in backend) and intra-op thread count (0: the backend's default). */
typedef struct cppnn_context_options {
  cppnn_power_preference power_preference;
  bool accelerated;
  const char* backend;
  uint32_t num_threads;
} cppnn_context_options;

/* The spec's defaults: power preference "default", accelerated true, no backend, 0 threads. */
CPPNN_C_API void cppnn_context_options_init(cppnn_context_options* options);

/* The number of compiled-in backends and their names, in order of preference. */
CPPNN_C_API size_t cppnn_backend_count(void);
CPPNN_C_API const char* cppnn_backend_name(size_t index);

/* ML.createContext(options) (options NULL: the defaults). CPPNN_NOT_SUPPORTED_ERROR when no
 * backend fits. */
CPPNN_C_API cppnn_status cppnn_context_create(const cppnn_context_options* options,
                                              cppnn_context** out, cppnn_error** error);
/* MLContext.destroy() and release of the handle: the context is lost; graphs and tensors made by
 * it stay valid handles whose use fails with InvalidStateError. */
CPPNN_C_API void cppnn_context_destroy(cppnn_context* context);
/* The backend chosen at creation ("reference", "ort", ...). */
CPPNN_C_API const char* cppnn_context_backend(const cppnn_context* context);
/* MLContext.accelerated. */
CPPNN_C_API bool cppnn_context_accelerated(const cppnn_context* context);
/* True once the context is lost. */
CPPNN_C_API bool cppnn_context_is_lost(const cppnn_context* context);
/* MLContext.opSupportLimits() as JSON text (member names as in the IDL). */
CPPNN_C_API cppnn_status cppnn_context_op_support_limits(const cppnn_context* context, char** json,
                                                         cppnn_error** error);

/* ---- Tensors ----------------------------------------------------------------------------- */

/* createTensor(descriptor): a zero-filled tensor. */
CPPNN_C_API cppnn_status cppnn_context_create_tensor(cppnn_context* context,
                                                     const cppnn_tensor_descriptor* descriptor,
                                                     cppnn_tensor** out, cppnn_error** error);
/* createConstantTensor(descriptor, data): a constant tensor holding a copy of `byte_length` bytes
 * (4-bit types packed), for cppnn_builder_constant_tensor. */
CPPNN_C_API cppnn_status cppnn_context_create_constant_tensor(
    cppnn_context* context, const cppnn_operand_descriptor* descriptor, const void* data,
    size_t byte_length, cppnn_tensor** out, cppnn_error** error);
/* writeTensor(tensor, data): copies the bytes at call time; TypeError for a wrong length, a tensor
 * of another context or one that is not writable. */
CPPNN_C_API cppnn_status cppnn_context_write_tensor(cppnn_context* context, cppnn_tensor* tensor,
                                                    const void* data, size_t byte_length,
                                                    cppnn_error** error);
/* readTensor(tensor, out): copies the tensor into `out` (exactly its byte length) after all
 * earlier work. */
CPPNN_C_API cppnn_status cppnn_context_read_tensor(cppnn_context* context, cppnn_tensor* tensor,
                                                   void* out, size_t byte_length,
                                                   cppnn_error** error);
/* MLTensor.destroy() and release of the handle. */
CPPNN_C_API void cppnn_tensor_destroy(cppnn_tensor* tensor);
/* The tensor's descriptor (shape valid while the handle lives) and byte length. */
CPPNN_C_API cppnn_tensor_descriptor cppnn_tensor_get_descriptor(const cppnn_tensor* tensor);
CPPNN_C_API uint64_t cppnn_tensor_byte_length(const cppnn_tensor* tensor);

/* ---- Graph builder ----------------------------------------------------------------------- */

/* new MLGraphBuilder(context): InvalidStateError for a lost context. */
CPPNN_C_API cppnn_status cppnn_builder_create(cppnn_context* context, cppnn_builder** out,
                                              cppnn_error** error);
/* Releases the builder and every operand it made. */
CPPNN_C_API void cppnn_builder_destroy(cppnn_builder* builder);

/* input(name, descriptor). */
CPPNN_C_API cppnn_status cppnn_builder_input(cppnn_builder* builder, const char* name,
                                             const cppnn_operand_descriptor* descriptor,
                                             cppnn_operand** out, cppnn_error** error);
/* constant(descriptor, buffer): the bytes are copied (4-bit types packed, ceil(n/2) bytes). */
CPPNN_C_API cppnn_status cppnn_builder_constant(cppnn_builder* builder,
                                                const cppnn_operand_descriptor* descriptor,
                                                const void* data, size_t byte_length,
                                                cppnn_operand** out, cppnn_error** error);
/* constant(type, value): a scalar, `value` cast to `type` by the spec's cast algorithm. */
CPPNN_C_API cppnn_status cppnn_builder_constant_scalar(cppnn_builder* builder, cppnn_data_type type,
                                                       double value, cppnn_operand** out,
                                                       cppnn_error** error);
/* constant(tensor): a constant operand holding a constant tensor's data, without a copy. */
CPPNN_C_API cppnn_status cppnn_builder_constant_tensor(cppnn_builder* builder, cppnn_tensor* tensor,
                                                       cppnn_operand** out, cppnn_error** error);

/* An operand's descriptor (shape valid while its builder lives). */
CPPNN_C_API cppnn_operand_descriptor cppnn_operand_get_descriptor(const cppnn_operand* operand);

/* One argument of a generic builder call: a JavaScript-like value, converted the way WebIDL
 * converts a JavaScript call (webnn-spec.md §3.7). */
typedef enum cppnn_value_kind {
  CPPNN_VALUE_UNDEFINED = 0, /* undefined/null: an absent optional argument */
  CPPNN_VALUE_BOOL = 1,
  CPPNN_VALUE_DOUBLE = 2,
  CPPNN_VALUE_INT64 = 3,  /* an exact integer (a JavaScript bigint for 64-bit options) */
  CPPNN_VALUE_UINT64 = 4, /* an exact unsigned integer */
  CPPNN_VALUE_STRING = 5,
  CPPNN_VALUE_OPERAND = 6,
  CPPNN_VALUE_ARRAY = 7,  /* `count` values at `items` */
  CPPNN_VALUE_OBJECT = 8, /* a dictionary: `count` members at `members` */
  CPPNN_VALUE_JSON = 9    /* JSON text, parsed into the same values (no operands) */
} cppnn_value_kind;

typedef struct cppnn_value cppnn_value;
typedef struct cppnn_member cppnn_member;

/* A tagged value; set the member that `kind` names. */
struct cppnn_value {
  cppnn_value_kind kind;
  union {
    bool boolean;
    double number;
    int64_t int64;
    uint64_t uint64;
    const char* string; /* STRING and JSON */
    const cppnn_operand* operand;
    struct {
      const cppnn_value* items;
      size_t count;
    } array;
    struct {
      const cppnn_member* members;
      size_t count;
    } object;
  } as;
};

/* A dictionary member: its key and value. */
struct cppnn_member {
  const char* key;
  cppnn_value value;
};

/* Calls builder operation `method` (one of the 95 of the spec: "conv2d", "reshape", "split", ...)
 * with `args`, the arguments of the JavaScript call in order (operands, numbers, lists, then the
 * options dictionary). Its outputs (one, or several for split, gru, lstm and lstmCell) are stored
 * in outputs[0..], at most `capacity`; *output_count (when not NULL) receives how many the op
 * made, even when `capacity` was too small (then the call fails with TypeError; what it recorded
 * is unreachable and build() leaves it out). TypeError for an unknown method and for invalid
 * arguments, with the spec's messages. */
CPPNN_C_API cppnn_status cppnn_builder_call(cppnn_builder* builder, const char* method,
                                            const cppnn_value* args, size_t arg_count,
                                            cppnn_operand** outputs, size_t capacity,
                                            size_t* output_count, cppnn_error** error);

/* Typed forms of common operations (the same validation as cppnn_builder_call). */
/* An op whose positional arguments are two operands (add, sub, mul, div, max, min, pow, matmul,
 * the comparisons, prelu, gather, ...), with the default options; TypeError for any other. */
CPPNN_C_API cppnn_status cppnn_builder_binary(cppnn_builder* builder, const char* method,
                                              const cppnn_operand* a, const cppnn_operand* b,
                                              cppnn_operand** out, cppnn_error** error);
/* An op whose positional argument is one operand (relu, sigmoid, tanh, exp, log, abs, neg, sqrt,
 * erf, identity, gelu, reduceSum, ...), with the default options; TypeError for any other. */
CPPNN_C_API cppnn_status cppnn_builder_unary(cppnn_builder* builder, const char* method,
                                             const cppnn_operand* input, cppnn_operand** out,
                                             cppnn_error** error);
/* softmax(input, axis). */
CPPNN_C_API cppnn_status cppnn_builder_softmax(cppnn_builder* builder, const cppnn_operand* input,
                                               uint32_t axis, cppnn_operand** out,
                                               cppnn_error** error);
/* clamp(input, {minValue, maxValue}). */
CPPNN_C_API cppnn_status cppnn_builder_clamp(cppnn_builder* builder, const cppnn_operand* input,
                                             double min_value, double max_value,
                                             cppnn_operand** out, cppnn_error** error);
/* reshape(input, newShape). */
CPPNN_C_API cppnn_status cppnn_builder_reshape(cppnn_builder* builder, const cppnn_operand* input,
                                               const uint32_t* new_shape, size_t rank,
                                               cppnn_operand** out, cppnn_error** error);
/* transpose(input, {permutation}) (permutation NULL: reversed axes). */
CPPNN_C_API cppnn_status cppnn_builder_transpose(cppnn_builder* builder, const cppnn_operand* input,
                                                 const uint32_t* permutation, size_t rank,
                                                 cppnn_operand** out, cppnn_error** error);
/* concat(inputs, axis). */
CPPNN_C_API cppnn_status cppnn_builder_concat(cppnn_builder* builder,
                                              const cppnn_operand* const* inputs, size_t count,
                                              uint32_t axis, cppnn_operand** out,
                                              cppnn_error** error);

/* MLInputOperandLayout. */
typedef enum cppnn_input_layout { CPPNN_LAYOUT_NCHW = 0, CPPNN_LAYOUT_NHWC = 1 } cppnn_input_layout;

/* MLConv2dOptions with its filter layout as the spec's string (NULL: "oihw"). */
typedef struct cppnn_conv2d_options {
  uint32_t padding[4]; /* beginning height, ending height, beginning width, ending width */
  uint32_t strides[2];
  uint32_t dilations[2];
  uint32_t groups;
  cppnn_input_layout input_layout;
  const char* filter_layout;
  const cppnn_operand* bias; /* NULL: none */
  const char* label;         /* NULL: none */
} cppnn_conv2d_options;
/* The spec's defaults: no padding, strides and dilations 1, one group, nchw, oihw. */
CPPNN_C_API void cppnn_conv2d_options_init(cppnn_conv2d_options* options);
/* conv2d(input, filter, options) (options NULL: the defaults). */
CPPNN_C_API cppnn_status cppnn_builder_conv2d(cppnn_builder* builder, const cppnn_operand* input,
                                              const cppnn_operand* filter,
                                              const cppnn_conv2d_options* options,
                                              cppnn_operand** out, cppnn_error** error);

/* MLPool2dOptions (window_dimensions {0, 0}: the whole spatial extent). */
typedef struct cppnn_pool2d_options {
  uint32_t window_dimensions[2];
  uint32_t padding[4];
  uint32_t strides[2];
  uint32_t dilations[2];
  cppnn_input_layout layout;
  bool ceil_rounding; /* outputs rounded up ("ceil") instead of down ("floor") */
  const char* label;
} cppnn_pool2d_options;
/* The spec's defaults: global window, no padding, strides and dilations 1, nchw, floor. */
CPPNN_C_API void cppnn_pool2d_options_init(cppnn_pool2d_options* options);
/* averagePool2d, maxPool2d or l2Pool2d (`method`) with `options` (NULL: the defaults). */
CPPNN_C_API cppnn_status cppnn_builder_pool2d(cppnn_builder* builder, const char* method,
                                              const cppnn_operand* input,
                                              const cppnn_pool2d_options* options,
                                              cppnn_operand** out, cppnn_error** error);

/* gemm(a, b, {c, alpha, beta, aTranspose, bTranspose}) (c NULL: none). */
CPPNN_C_API cppnn_status cppnn_builder_gemm(cppnn_builder* builder, const cppnn_operand* a,
                                            const cppnn_operand* b, const cppnn_operand* c,
                                            double alpha, double beta, bool a_transpose,
                                            bool b_transpose, cppnn_operand** out,
                                            cppnn_error** error);

/* build(outputs): the graph of everything `count` named outputs reach (§3.8). The builder can
 * build once. */
CPPNN_C_API cppnn_status cppnn_builder_build(cppnn_builder* builder, const char* const* names,
                                             const cppnn_operand* const* outputs, size_t count,
                                             cppnn_graph** out, cppnn_error** error);

/* ---- Graphs and dispatch ----------------------------------------------------------------- */

/* MLGraph.destroy() and release of the handle. */
CPPNN_C_API void cppnn_graph_destroy(cppnn_graph* graph);
/* The graph's inputs and outputs, sorted by name: count, name (valid while the graph lives) and
 * descriptor (shape valid while the graph lives). Out of range: NULL and a zero descriptor. */
CPPNN_C_API size_t cppnn_graph_input_count(const cppnn_graph* graph);
CPPNN_C_API const char* cppnn_graph_input_name(const cppnn_graph* graph, size_t index);
CPPNN_C_API cppnn_operand_descriptor cppnn_graph_input_descriptor(const cppnn_graph* graph,
                                                                  size_t index);
CPPNN_C_API size_t cppnn_graph_output_count(const cppnn_graph* graph);
CPPNN_C_API const char* cppnn_graph_output_name(const cppnn_graph* graph, size_t index);
CPPNN_C_API cppnn_operand_descriptor cppnn_graph_output_descriptor(const cppnn_graph* graph,
                                                                   size_t index);

/* dispatch(graph, inputs, outputs): `input_count` tensors bound to input names and `output_count`
 * to output names; the bindings must match the graph's inputs and outputs exactly (§4). */
CPPNN_C_API cppnn_status cppnn_context_dispatch(cppnn_context* context, cppnn_graph* graph,
                                                const char* const* input_names,
                                                cppnn_tensor* const* inputs, size_t input_count,
                                                const char* const* output_names,
                                                cppnn_tensor* const* outputs, size_t output_count,
                                                cppnn_error** error);

/* ---- Files ------------------------------------------------------------------------------- */

/* Loads a `.webnn` text or GraphJson file (auto-detected) into `context` and builds it. Its
 * `@weights` constants come from `weights_path` (a .safetensors archive or a manifest-addressed
 * blob with `manifest_path`; relative to the current directory) or, when NULL, from the sidecar
 * beside the graph file (webnn-graph-format.md §7.1), memory-mapped. DataError names the file,
 * line and column. */
CPPNN_C_API cppnn_status cppnn_load_graph(cppnn_context* context, const char* path,
                                          const char* weights_path, const char* manifest_path,
                                          cppnn_graph** out, cppnn_error** error);
/* Saves a built graph: `.webnn` text, or GraphJson when `path` ends in `.json`, with constants over
 * `max_inline_bytes` in `<stem>.safetensors` beside it; written atomically. `name` (NULL: "graph")
 * is the header's graph name. */
CPPNN_C_API cppnn_status cppnn_graph_save(const cppnn_graph* graph, const char* path,
                                          const char* name, uint64_t max_inline_bytes,
                                          cppnn_error** error);
/* A built graph as canonical `.webnn` text (`json` false) or GraphJson (`json` true), constants
 * over `max_inline_bytes` written as `@weights` references. */
CPPNN_C_API cppnn_status cppnn_graph_to_text(const cppnn_graph* graph, bool json,
                                             uint64_t max_inline_bytes, char** text,
                                             cppnn_error** error);

/* A free dimension of an ONNX model fixed at import: its symbolic name and value. */
typedef struct cppnn_onnx_dimension {
  const char* name;
  uint32_t value;
} cppnn_onnx_dimension;

/* Imports an ONNX model file (external data resolved beside it) into `context` and builds it;
 * `dimensions` fixes `dimension_count` symbolic dimensions (cppnn convert-onnx --override-dim).
 * NotSupportedError lists unsupported operators; DataError for a malformed file. */
CPPNN_C_API cppnn_status cppnn_import_onnx(cppnn_context* context, const char* path,
                                           const cppnn_onnx_dimension* dimensions,
                                           size_t dimension_count, cppnn_graph** out,
                                           cppnn_error** error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CPPNN_CPPNN_H */
