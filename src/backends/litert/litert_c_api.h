// cppnn's own declarations of the part of LiteRT's C API the litert backend calls, pinned to
// libLiteRt.so of PyPI's ai-edge-litert 2.3.0 (the wheel ships no headers). Every type and enum
// value below is LiteRT 2.3's (litert/c/litert_common.h, litert_layout.h, litert_model_types.h,
// litert_tensor_buffer_types.h); every function is one the library exports (checked with
// `nm -D --defined-only libLiteRt.so`). Only what cppnn uses is declared: add a prototype here,
// with LiteRT 2.3's exact signature, before calling anything new.
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {

// --- litert_common.h -----------------------------------------------------------------------

// Status codes of every LiteRt* call (LiteRtStatus). Only the values cppnn names are listed;
// any other value is still a failure and is reported by number.
typedef enum {
  kLiteRtStatusOk = 0,
  kLiteRtStatusErrorInvalidArgument = 1,
  kLiteRtStatusErrorMemoryAllocationFailure = 2,
  kLiteRtStatusErrorRuntimeFailure = 3,
  kLiteRtStatusErrorMissingInputTensor = 4,
  kLiteRtStatusErrorUnsupported = 5,
  kLiteRtStatusErrorNotFound = 6,
  kLiteRtStatusErrorTimeoutExpired = 7,
  kLiteRtStatusErrorWrongVersion = 8,
  kLiteRtStatusErrorUnknown = 9,
  kLiteRtStatusErrorAlreadyExists = 10,
  kLiteRtStatusCancelled = 100,
  kLiteRtStatusErrorFileIO = 500,
  kLiteRtStatusErrorInvalidFlatbuffer = 501,
  kLiteRtStatusErrorDynamicLoading = 502,
  kLiteRtStatusErrorSerialization = 503,
  kLiteRtStatusErrorCompilation = 504,
  kLiteRtStatusErrorIndexOOB = 1000,
  kLiteRtStatusErrorInvalidIrType = 1001,
  kLiteRtStatusErrorInvalidGraphInvariant = 1002,
  kLiteRtStatusErrorGraphModification = 1003,
} LiteRtStatus;

// Hardware accelerator bits (LiteRtHwAccelerators); a set of them is a LiteRtHwAcceleratorSet.
typedef enum LiteRtHwAccelerators {
  kLiteRtHwAcceleratorNone = 0,
  kLiteRtHwAcceleratorCpu = 1 << 0,
  kLiteRtHwAcceleratorGpu = 1 << 1,
  kLiteRtHwAcceleratorNpu = 1 << 2,
} LiteRtHwAccelerators;
typedef int LiteRtHwAcceleratorSet;

// Lock modes of LiteRtLockTensorBuffer.
typedef enum {
  kLiteRtTensorBufferLockModeRead = 0,
  kLiteRtTensorBufferLockModeWrite = 1,
  kLiteRtTensorBufferLockModeReadWrite = 2,
} LiteRtTensorBufferLockMode;

// Index into or count of LiteRT collections.
typedef size_t LiteRtParamIndex;

// Opaque handles (LITERT_DEFINE_HANDLE: pointers to incomplete types).
typedef struct LiteRtEnvironmentT* LiteRtEnvironment;
typedef struct LiteRtModelT* LiteRtModel;
typedef struct LiteRtSignatureT* LiteRtSignature;
typedef struct LiteRtTensorT* LiteRtTensor;
typedef struct LiteRtOptionsT* LiteRtOptions;
typedef struct LiteRtOpaqueOptionsT* LiteRtOpaqueOptions;
typedef struct LiteRtCompiledModelT* LiteRtCompiledModel;
typedef struct LiteRtTensorBufferT* LiteRtTensorBuffer;
// An environment option (tag + value); cppnn passes none, so the type stays incomplete.
typedef struct LiteRtEnvOption LiteRtEnvOption;

// --- litert_layout.h, litert_model_types.h -------------------------------------------------

#define LITERT_TENSOR_MAX_RANK 8

// A tensor's shape: rank in the low 7 bits of the first word, then the dimensions (negative =
// dynamic) and, when has_strides, the strides.
typedef struct {
  unsigned int rank : 7;
  bool has_strides : 1;
  int32_t dimensions[LITERT_TENSOR_MAX_RANK];
  uint32_t strides[LITERT_TENSOR_MAX_RANK];
} LiteRtLayout;

// Element types (LiteRtElementType): TfLiteType's values, not TFLite's schema TensorType's.
typedef enum {
  kLiteRtElementTypeNone = 0,
  kLiteRtElementTypeBool = 6,
  kLiteRtElementTypeInt2 = 20,
  kLiteRtElementTypeInt4 = 18,
  kLiteRtElementTypeInt8 = 9,
  kLiteRtElementTypeInt16 = 7,
  kLiteRtElementTypeInt32 = 2,
  kLiteRtElementTypeInt64 = 4,
  kLiteRtElementTypeUInt8 = 3,
  kLiteRtElementTypeUInt16 = 17,
  kLiteRtElementTypeUInt32 = 16,
  kLiteRtElementTypeUInt64 = 13,
  kLiteRtElementTypeFloat16 = 10,
  kLiteRtElementTypeBFloat16 = 19,
  kLiteRtElementTypeFloat32 = 1,
  kLiteRtElementTypeFloat64 = 11,
  kLiteRtElementTypeComplex64 = 8,
  kLiteRtElementTypeComplex128 = 12,
  kLiteRtElementTypeTfResource = 14,
  kLiteRtElementTypeTfString = 5,
  kLiteRtElementTypeTfVariant = 15,
} LiteRtElementType;

// A tensor type of static rank (dimensions may be dynamic).
typedef struct {
  LiteRtElementType element_type;
  LiteRtLayout layout;
} LiteRtRankedTensorType;

static_assert(sizeof(LiteRtRankedTensorType) == 72, "LiteRT 2.3's LiteRtRankedTensorType");
static_assert(offsetof(LiteRtRankedTensorType, layout) == 4, "LiteRT 2.3's layout offset");

// --- litert_tensor_buffer_types.h ----------------------------------------------------------

// Host memory handed to LiteRtCreateTensorBufferFromHostMemory must be aligned to this.
#define LITERT_HOST_MEMORY_BUFFER_ALIGNMENT 64

typedef void (*LiteRtHostMemoryDeallocator)(void* addr);

// Tensor buffer kinds (LiteRtTensorBufferType); cppnn uses host memory only.
typedef enum {
  kLiteRtTensorBufferTypeUnknown = 0,
  kLiteRtTensorBufferTypeHostMemory = 1,
} LiteRtTensorBufferType;

// --- litert_environment.h ------------------------------------------------------------------

LiteRtStatus LiteRtCreateEnvironment(int num_options, const LiteRtEnvOption* options,
                                     LiteRtEnvironment* environment);
void LiteRtDestroyEnvironment(LiteRtEnvironment environment);

// --- litert_model.h (2.x: model creation takes the environment first) ----------------------

// The caller keeps the buffer alive for the model's lifetime.
LiteRtStatus LiteRtCreateModelFromBuffer(LiteRtEnvironment environment, const void* buffer_addr,
                                         size_t buffer_size, LiteRtModel* model);
void LiteRtDestroyModel(LiteRtModel model);
LiteRtStatus LiteRtGetNumModelSignatures(LiteRtModel model, LiteRtParamIndex* num_signatures);
LiteRtStatus LiteRtGetModelSignature(LiteRtModel model, LiteRtParamIndex signature_index,
                                     LiteRtSignature* signature);
LiteRtStatus LiteRtGetSignatureKey(LiteRtSignature signature, const char** signature_key);
LiteRtStatus LiteRtGetNumSignatureInputs(LiteRtSignature signature, LiteRtParamIndex* num_inputs);
LiteRtStatus LiteRtGetNumSignatureOutputs(LiteRtSignature signature, LiteRtParamIndex* num_outputs);
LiteRtStatus LiteRtGetSignatureInputName(LiteRtSignature signature, LiteRtParamIndex input_idx,
                                         const char** input_name);
LiteRtStatus LiteRtGetSignatureOutputName(LiteRtSignature signature, LiteRtParamIndex output_idx,
                                          const char** output_name);
LiteRtStatus LiteRtGetSignatureInputTensorByIndex(LiteRtSignature signature,
                                                  LiteRtParamIndex input_idx, LiteRtTensor* tensor);
LiteRtStatus LiteRtGetSignatureOutputTensorByIndex(LiteRtSignature signature,
                                                   LiteRtParamIndex output_idx,
                                                   LiteRtTensor* tensor);
LiteRtStatus LiteRtGetRankedTensorType(LiteRtTensor tensor,
                                       LiteRtRankedTensorType* ranked_tensor_type);

// --- litert_opaque_options.h, litert_options.h ---------------------------------------------

// One item of the opaque options list: an identifier and a payload freed by the destructor.
LiteRtStatus LiteRtCreateOpaqueOptions(const char* payload_identifier, void* payload_data,
                                       void (*payload_destructor)(void* payload_data),
                                       LiteRtOpaqueOptions* options);
void LiteRtDestroyOpaqueOptions(LiteRtOpaqueOptions options);

LiteRtStatus LiteRtCreateOptions(LiteRtOptions* options);
void LiteRtDestroyOptions(LiteRtOptions options);
LiteRtStatus LiteRtSetOptionsHardwareAccelerators(LiteRtOptions options,
                                                  LiteRtHwAcceleratorSet hardware_accelerators);
// Takes ownership of `opaque_options`.
LiteRtStatus LiteRtAddOpaqueOptions(LiteRtOptions options, LiteRtOpaqueOptions opaque_options);

// --- litert_compiled_model.h ---------------------------------------------------------------

LiteRtStatus LiteRtCreateCompiledModel(LiteRtEnvironment environment, LiteRtModel model,
                                       LiteRtOptions compilation_options,
                                       LiteRtCompiledModel* compiled_model);
void LiteRtDestroyCompiledModel(LiteRtCompiledModel compiled_model);
LiteRtStatus LiteRtRunCompiledModel(LiteRtCompiledModel compiled_model,
                                    LiteRtParamIndex signature_index, size_t num_input_buffers,
                                    LiteRtTensorBuffer* input_buffers, size_t num_output_buffers,
                                    LiteRtTensorBuffer* output_buffers);
// The messages collected in "buffer" error-reporter mode; the caller free()s them.
LiteRtStatus LiteRtCompiledModelGetErrorMessages(LiteRtCompiledModel compiled_model,
                                                 char** error_messages);
LiteRtStatus LiteRtCompiledModelClearErrors(LiteRtCompiledModel compiled_model);

// --- litert_tensor_buffer.h ----------------------------------------------------------------

// Wraps caller memory (not copied, not freed when `deallocator` is null); refused unless the
// address is LITERT_HOST_MEMORY_BUFFER_ALIGNMENT-aligned.
LiteRtStatus LiteRtCreateTensorBufferFromHostMemory(const LiteRtRankedTensorType* tensor_type,
                                                    void* host_buffer_addr, size_t host_buffer_size,
                                                    LiteRtHostMemoryDeallocator deallocator,
                                                    LiteRtTensorBuffer* buffer);
LiteRtStatus LiteRtCreateManagedTensorBuffer(LiteRtEnvironment env,
                                             LiteRtTensorBufferType buffer_type,
                                             const LiteRtRankedTensorType* tensor_type,
                                             size_t buffer_size, LiteRtTensorBuffer* buffer);
LiteRtStatus LiteRtLockTensorBuffer(LiteRtTensorBuffer tensor_buffer, void** host_mem_addr,
                                    LiteRtTensorBufferLockMode lock_mode);
LiteRtStatus LiteRtUnlockTensorBuffer(LiteRtTensorBuffer buffer);
void LiteRtDestroyTensorBuffer(LiteRtTensorBuffer buffer);

}  // extern "C"
