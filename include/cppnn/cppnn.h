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

/* ---- Text generation (cppnn extension; cppnn/llm.h, docs/c-api.md "Text generation") ------ */
/* A language model loaded as WebNN graphs (GGUF llama/qwen2, a `cppnn convert-gguf` graph, or an
 * optimum-style ONNX export) with its tokenizer and chat template, and generators that hold one
 * conversation each in a key/value cache. Conversations are role/content pairs given as two
 * parallel arrays: roles[i] ("system", "user", "assistant") and contents[i], `count` of each. */

typedef struct cppnn_language_model cppnn_language_model;
typedef struct cppnn_generator cppnn_generator;
typedef struct cppnn_generation_result cppnn_generation_result;

/* LanguageModelOptions: the context's backend (NULL or "": CPPNN_BACKEND, else the default) and
 * threads (0: the backend's default); cache positions (0: min(the model's training context,
 * 2048); a converted model's own) and tokens per prefill step (0: 32); an ONNX model's
 * tokenizer.json and Jinja chat template (NULL: found beside the model). */
typedef struct cppnn_language_model_options {
  const char* backend;
  uint32_t num_threads;
  uint32_t context_length;
  uint32_t prefill_chunk;
  const char* tokenizer_path;
  const char* chat_template_path;
} cppnn_language_model_options;
/* The defaults: every field 0 or NULL. */
CPPNN_C_API void cppnn_language_model_options_init(cppnn_language_model_options* options);

/* LanguageModel::load(path, options) (options NULL: the defaults). DataError for a missing or
 * malformed file (naming the file and the key or tensor), NotSupportedError for an architecture
 * or tensor kind cppnn cannot run. */
CPPNN_C_API cppnn_status cppnn_language_model_load(const char* path,
                                                   const cppnn_language_model_options* options,
                                                   cppnn_language_model** out, cppnn_error** error);
/* Releases the handle (generators keep the model alive on their own). */
CPPNN_C_API void cppnn_language_model_destroy(cppnn_language_model* model);

/* LanguageModelInfo: the model's name, architecture ("llama", "qwen2", "onnx") and backend
 * (strings valid while the handle lives; NULL for a NULL handle), its layers, vocabulary size
 * (logits per position), cache positions and tokens per prefill step (0 for a NULL handle). */
CPPNN_C_API const char* cppnn_language_model_name(const cppnn_language_model* model);
CPPNN_C_API const char* cppnn_language_model_architecture(const cppnn_language_model* model);
CPPNN_C_API const char* cppnn_language_model_backend(const cppnn_language_model* model);
CPPNN_C_API uint32_t cppnn_language_model_layers(const cppnn_language_model* model);
CPPNN_C_API uint32_t cppnn_language_model_vocabulary_size(const cppnn_language_model* model);
CPPNN_C_API uint32_t cppnn_language_model_context_length(const cppnn_language_model* model);
CPPNN_C_API uint32_t cppnn_language_model_prefill_chunk(const cppnn_language_model* model);
/* The notes on how the weights were converted: their count, and note `index` (NULL when out of
 * range). */
CPPNN_C_API size_t cppnn_language_model_note_count(const cppnn_language_model* model);
CPPNN_C_API const char* cppnn_language_model_note(const cppnn_language_model* model, size_t index);
/* The ids that end generation (EOS, end of turn): *count of them (array valid while the handle
 * lives; NULL and 0 for a NULL handle). */
CPPNN_C_API const int32_t* cppnn_language_model_stop_tokens(const cppnn_language_model* model,
                                                            size_t* count);

/* LanguageModel::tokenize: the ids of the UTF-8 `text`, special tokens written in it recognised
 * when `parse_special`, the model's BOS/EOS added when `add_special` and the model asks for them.
 * *count receives the number of ids; they are stored in ids[0..] when `ids` is not NULL (ids NULL
 * and capacity 0 asks for the size). TypeError when `capacity` is too small (*count still set). */
CPPNN_C_API cppnn_status cppnn_language_model_tokenize(const cppnn_language_model* model,
                                                       const char* text, bool add_special,
                                                       bool parse_special, int32_t* ids,
                                                       size_t capacity, size_t* count,
                                                       cppnn_error** error);
/* LanguageModel::detokenize: the text of `count` ids (special tokens left out when
 * `skip_special`; ids outside the vocabulary skipped), released with cppnn_string_free; its byte
 * length in *length when `length` is not NULL (the text may hold NUL bytes). */
CPPNN_C_API cppnn_status cppnn_language_model_detokenize(const cppnn_language_model* model,
                                                         const int32_t* ids, size_t count,
                                                         bool skip_special, char** text,
                                                         size_t* length, cppnn_error** error);
/* LanguageModel::applyChatTemplate: the prompt the model's chat template (ChatML when it has
 * none) makes of the conversation, ending with the assistant's turn when
 * `add_generation_prompt`; released with cppnn_string_free. */
CPPNN_C_API cppnn_status cppnn_language_model_apply_chat_template(
    const cppnn_language_model* model, const char* const* roles, const char* const* contents,
    size_t count, bool add_generation_prompt, char** text, cppnn_error** error);

/* GenerationOptions. Temperature 0 is greedy decoding; otherwise the logits, after the
 * repetition penalty (tokens among the last `repetition_window` divided by it when positive,
 * multiplied when negative; 1: off), are divided by the temperature, cut to the `top_k` most
 * likely (0: all) and to the smallest set whose probability reaches `top_p` (1: all), and a token
 * is drawn with the generator seeded by `seed` when `has_seed` (else a random seed). Generation
 * stops at `max_tokens`, at the model's stop tokens (unless `ignore_eos`), or at one of the
 * `stop_count` strings at `stop` (not included in the text). TypeError for a temperature that is
 * negative or not finite, a top_p outside (0, 1], a repetition penalty that is 0 or not finite,
 * and an empty or NULL stop string. */
typedef struct cppnn_generation_options {
  uint32_t max_tokens;
  float temperature;
  uint32_t top_k;
  float top_p;
  float repetition_penalty;
  uint32_t repetition_window;
  bool has_seed;
  uint64_t seed;
  const char* const* stop;
  size_t stop_count;
  bool ignore_eos;
} cppnn_generation_options;
/* The defaults: 256 tokens, greedy (temperature 0, top_k 0, top_p 1), no repetition penalty
 * (1, window 64), a random seed, no stop strings, stop at the model's stop tokens. */
CPPNN_C_API void cppnn_generation_options_init(cppnn_generation_options* options);

/* Receives each piece of generated text as soon as it is complete UTF-8: `length` bytes at
 * `piece` (followed by a NUL; valid during the call). Returns nonzero to go on, 0 to stop (the
 * result's finish reason is then "cancelled"). */
typedef int (*cppnn_text_callback)(const char* piece, size_t length, void* user_data);

/* new Generator(model): an empty conversation with its own key/value cache. Generators of one
 * model may run on different threads at once; one generator is used from one thread at a time. */
CPPNN_C_API cppnn_status cppnn_generator_create(cppnn_language_model* model, cppnn_generator** out,
                                                cppnn_error** error);
CPPNN_C_API void cppnn_generator_destroy(cppnn_generator* generator);

/* Generator::generate: continues the conversation with `prompt` (special tokens recognised; BOS
 * when the context is empty and the model asks for it) and generates, giving each piece to
 * `callback` (NULL: none) with `user_data`. The result (NULL: not wanted) is a new handle.
 * `options` NULL: the defaults. TypeError for an empty prompt on an empty context and for a
 * conversation that outgrows the cache at prefill. */
CPPNN_C_API cppnn_status cppnn_generator_generate(cppnn_generator* generator, const char* prompt,
                                                  const cppnn_generation_options* options,
                                                  cppnn_text_callback callback, void* user_data,
                                                  cppnn_generation_result** result,
                                                  cppnn_error** error);
/* Generator::chat: the conversation through the chat template; the cached tokens it shares with
 * the context are kept (a follow-up turn prefills only what is new), then the reply. */
CPPNN_C_API cppnn_status cppnn_generator_chat(cppnn_generator* generator, const char* const* roles,
                                              const char* const* contents, size_t count,
                                              const cppnn_generation_options* options,
                                              cppnn_text_callback callback, void* user_data,
                                              cppnn_generation_result** result,
                                              cppnn_error** error);

/* Pull-style generation: start (like generate) or start_chat (like chat) prefills; each next
 * stores the next piece of text (`*length` bytes at `*piece`, at least one, followed by a NUL,
 * valid until the next call on the generator) with *done false, or *done true (and an empty
 * piece) once generation has finished. Starting again abandons a generation in progress (its
 * tokens stay in the context); cancel ends it as "cancelled". Bad options fail before anything
 * changes; a start that fails later (in the tokenizer or the model) leaves no generation, and
 * next (like cppnn_generator_result) is an InvalidStateError until a start succeeds. */
CPPNN_C_API cppnn_status cppnn_generator_start(cppnn_generator* generator, const char* prompt,
                                               const cppnn_generation_options* options,
                                               cppnn_error** error);
CPPNN_C_API cppnn_status cppnn_generator_start_chat(cppnn_generator* generator,
                                                    const char* const* roles,
                                                    const char* const* contents, size_t count,
                                                    const cppnn_generation_options* options,
                                                    cppnn_error** error);
CPPNN_C_API cppnn_status cppnn_generator_next(cppnn_generator* generator, const char** piece,
                                              size_t* length, bool* done, cppnn_error** error);
CPPNN_C_API cppnn_status cppnn_generator_cancel(cppnn_generator* generator, cppnn_error** error);
/* The result of the last generation, so far (its text, tokens, finish reason and timings), as a
 * new handle; InvalidStateError before a successful start. */
CPPNN_C_API cppnn_status cppnn_generator_result(const cppnn_generator* generator,
                                                cppnn_generation_result** out, cppnn_error** error);

/* Generator::append, the lower level: appends `count` tokens to the context (prefill) and stores
 * the logits of every appended position ([count, vocabulary size] row-major, `all_logits`) or of
 * the last one ([vocabulary size]) in logits[0..]; *logits_count (when not NULL) receives their
 * number. `logits` NULL (capacity 0): not returned. TypeError, before anything runs, when
 * `capacity` is too small, an id is outside the vocabulary or the tokens do not fit in the cache.
 */
CPPNN_C_API cppnn_status cppnn_generator_append(cppnn_generator* generator, const int32_t* tokens,
                                                size_t count, bool all_logits, float* logits,
                                                size_t capacity, size_t* logits_count,
                                                cppnn_error** error);
/* The tokens of the context (prompts and generated tokens), with the size convention of
 * cppnn_language_model_tokenize. */
CPPNN_C_API cppnn_status cppnn_generator_tokens(const cppnn_generator* generator, int32_t* ids,
                                                size_t capacity, size_t* count,
                                                cppnn_error** error);
/* Forgets everything after the first `length` tokens (0: an empty context; more than there are:
 * nothing). */
CPPNN_C_API cppnn_status cppnn_generator_rewind(cppnn_generator* generator, size_t length,
                                                cppnn_error** error);

/* GenerationStats: tokens prefilled (after the reused prefix), tokens of the cache the prompt
 * shared and kept, tokens generated, prefill seconds (to the first generated token's logits) and
 * decode seconds. */
typedef struct cppnn_generation_stats {
  uint32_t prompt_tokens;
  uint32_t reused_tokens;
  uint32_t generated_tokens;
  double prompt_seconds;
  double generate_seconds;
} cppnn_generation_stats;

/* A result's generated text (stop strings and stop tokens excluded; `*length` bytes when
 * `length` is not NULL, NUL-terminated), its tokens (a stop token included; *count of them), its
 * finish reason ("stop", "stop-string", "length", "context-full", "cancelled") and its stats.
 * Pointers are valid while the handle lives; a NULL handle gives "", NULL, "" and zeros. */
CPPNN_C_API const char* cppnn_generation_result_text(const cppnn_generation_result* result,
                                                     size_t* length);
CPPNN_C_API const int32_t* cppnn_generation_result_tokens(const cppnn_generation_result* result,
                                                          size_t* count);
CPPNN_C_API const char* cppnn_generation_result_finish_reason(
    const cppnn_generation_result* result);
CPPNN_C_API cppnn_generation_stats
cppnn_generation_result_stats(const cppnn_generation_result* result);
CPPNN_C_API void cppnn_generation_result_destroy(cppnn_generation_result* result);

/* ---- End of text generation ---------------------------------------------------------------- */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CPPNN_CPPNN_H */
