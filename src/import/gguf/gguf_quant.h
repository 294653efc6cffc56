// The GGUF tensor kinds cppnn reads (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K,
// Q6_K; block layouts of ggml's ggml-common.h): (a) dequantized to float32 exactly as llama.cpp's
// dequantize_row_* computes it, and (b) as WebNN constants, quantized weights kept quantized as
// integers with per-block scales and offsets that reproduce (a) bit for bit. Other kinds
// (Q2_K, Q3_K, IQ*, Q8_K, ...) are a NotSupportedError naming the tensor and the kind.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/graph_model.h"
#include "src/core/result.h"
#include "src/import/gguf/gguf_file.h"
#include "src/import/gguf/gguf_kind.h"

namespace cppnn::gguf {

// Ok when dequantize/to_webnn_weight handle the tensor's kind, else a NotSupportedError
// "GGUF tensor `name`: kind Q2_K (type id 10) is not supported (supported: ...)".
Status check_supported(const GgufTensor& t);

// ggml's to_float for `kind` (dequantize_row_q4_1 & co.): `bytes` holds exactly
// out.size() / block blocks (out.size() a multiple of the block size). The float operations are
// ggml's, in its order, each rounded to float32 (no fused multiply-add): Q4_0 (q-8)*d,
// Q4_1 q*d + m, Q5_0 (q-16)*d, Q5_1 q*d + m, Q8_0 q*d, Q4_K and Q5_K (d*sc)*q - dmin*m,
// Q6_K (d*sc)*(q-32), with d, m, dmin converted from float16. F16 and BF16 are converted
// exactly (NaN payloads kept). A DataError when the sizes do not match.
Status dequantize_blocks(GgufKind kind, std::span<const std::byte> bytes, std::span<float> out);
// The tensor dequantized into `out` (t.element_count floats, in ggml element order).
Status dequantize(const GgufTensor& t, std::span<float> out);
Result<std::vector<float>> dequantize(const GgufTensor& t);

// One GGUF tensor as WebNN constants: either plain floats, or block-quantized integers with
// per-block float32 scales (and offsets) such that value = q * scale (+ offset) exactly as ggml
// dequantizes it. The WebNN shape of a tensor with ggml dims [ne0, ne1, ...] is [..., ne1, ne0].
struct WebnnWeight {
  enum class Form { kFloat, kBlockQuantized };
  Form form = Form::kFloat;
  std::vector<uint64_t> shape;  // WebNN order (ggml dims reversed)
  // kFloat: float32 (F32; BF16 converted exactly) or float16 (F16 kept as is), a view into the
  // mapping when the bytes can be used as they are (F32/F16 at a 4-/2-byte aligned address).
  MLOperandDataType float_type = MLOperandDataType::kFloat32;
  ConstantData values;
  // kBlockQuantized: the integers q in WebNN element order (row-major over `shape`), storage
  // int4/uint4 (packed two per byte, low nibble first: include/cppnn/int4.h), int8 or uint8;
  // blocks of `block` consecutive elements along the last axis share scale[i] (and offset[i]),
  // i = element index / block; `offset` empty when the kind has none.
  MLOperandDataType q_type = MLOperandDataType::kInt8;
  uint32_t block = 0;
  ConstantData q;
  std::vector<float> scale;   // element count / block entries
  std::vector<float> offset;  // empty, or element count / block entries
  std::string
      note;  // for the conversion report, e.g. "Q4_1 -> uint4 + float32 scale, offset per 32"
};

// The WebNN form of `t` (its kind must be supported). Per kind (q: the stored integer; d, m,
// dmin: the block's float16 scales; sc_j, m_j: a K-quant sub-block's 6-bit scale and min):
//   Q8_0 int8 q, scale d, block 32        Q4_0 int4 q-8, scale d, block 32
//   Q4_1 uint4 q, scale d, offset m, 32   Q5_0 int8 q-16, scale d, block 32
//   Q5_1 uint8 q, scale d, offset m, 32   Q6_K int8 q-32, scale d*sc_j, block 16
//   Q4_K uint4 q / Q5_K uint8 q, scale d*sc_j, offset -(dmin*m_j), block 32.
Result<WebnnWeight> to_webnn_weight(const GgufTensor& t);

// The float32 values a WebnnWeight stands for: `values` widened (kFloat), or q * scale + offset
// per element, the product and the sum each rounded to float32 (kBlockQuantized). Equal bit for
// bit to dequantize() of the tensor it came from, except that where a block's float16 scales are
// NaN or infinite a NaN result may differ in sign and payload (IEEE 754 leaves those open).
Result<std::vector<float>> webnn_weight_values(const WebnnWeight& w);

// `w` as a plain float weight of `type` (float32 or float16): the values of
// webnn_weight_values(), rounded to nearest even for float16 (a float16 weight of the file is kept
// as it is). The note says where it came from ("Q4_1 -> float16 (dequantized)").
Result<WebnnWeight> to_float_weight(const WebnnWeight& w, MLOperandDataType type);

}  // namespace cppnn::gguf
