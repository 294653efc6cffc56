// Dequantization as ggml does it (ggml-quants.c dequantize_row_*; block layouts of
// ggml-common.h). Each product and each sum is its own statement, so that no compiler contracts
// `q * d + m` into a fused multiply-add (the project builds with -std=c++20, where GCC does not
// contract; clang contracts only within one expression).
#include "src/import/gguf/gguf_quant.h"

#include <bit>
#include <cstring>

#include "cppnn/float16.h"
#include "src/import/gguf/gguf_quant_layout.h"

namespace cppnn::gguf {
namespace {

using layout::f16_at;
using layout::scale_min_k4;

// block_q4_0 {half d; uint8 qs[16]}: element j is (qs[j] & 15) - 8, element j+16 (qs[j] >> 4) - 8.
void q4_0(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  const uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    const int x0 = (qs[j] & 0x0F) - 8;
    const int x1 = (qs[j] >> 4) - 8;
    y[j] = static_cast<float>(x0) * d;
    y[j + 16] = static_cast<float>(x1) * d;
  }
}

// block_q4_1 {half d; half m; uint8 qs[16]}: q*d + m, q as in Q4_0 without the -8.
void q4_1(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  const float m = f16_at(b, 2);
  const uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    const float p0 = static_cast<float>(qs[j] & 0x0F) * d;
    const float p1 = static_cast<float>(qs[j] >> 4) * d;
    y[j] = p0 + m;
    y[j + 16] = p1 + m;
  }
}

// block_q5_0 {half d; uint8 qh[4]; uint8 qs[16]}: bit j of the little-endian uint32 qh is bit 4
// of element j; ((q | high) - 16) * d.
void q5_0(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  const uint32_t qh = layout::u32_at(b, 2);
  const uint8_t* qs = b + 6;
  for (int j = 0; j < 16; ++j) {
    const uint8_t xh0 = static_cast<uint8_t>(((qh >> j) << 4) & 0x10);
    const uint8_t xh1 = static_cast<uint8_t>((qh >> (j + 12)) & 0x10);
    const int x0 = ((qs[j] & 0x0F) | xh0) - 16;
    const int x1 = ((qs[j] >> 4) | xh1) - 16;
    y[j] = static_cast<float>(x0) * d;
    y[j + 16] = static_cast<float>(x1) * d;
  }
}

// block_q5_1 {half d; half m; uint8 qh[4]; uint8 qs[16]}: q*d + m.
void q5_1(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  const float m = f16_at(b, 2);
  const uint32_t qh = layout::u32_at(b, 4);
  const uint8_t* qs = b + 8;
  for (int j = 0; j < 16; ++j) {
    const uint8_t xh0 = static_cast<uint8_t>(((qh >> j) << 4) & 0x10);
    const uint8_t xh1 = static_cast<uint8_t>((qh >> (j + 12)) & 0x10);
    const int x0 = (qs[j] & 0x0F) | xh0;
    const int x1 = (qs[j] >> 4) | xh1;
    const float p0 = static_cast<float>(x0) * d;
    const float p1 = static_cast<float>(x1) * d;
    y[j] = p0 + m;
    y[j + 16] = p1 + m;
  }
}

// block_q8_0 {half d; int8 qs[32]}: q*d.
void q8_0(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// block_q4_K {half d; half dmin; uint8 scales[12]; uint8 qs[128]}: 8 sub-blocks of 32; each
// 64-element chunk takes the low nibbles of 32 bytes of qs, then their high nibbles.
void q4_k(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  const float min = f16_at(b, 2);
  const uint8_t* scales = b + 4;
  const uint8_t* q = b + 16;
  for (int is = 0; is < 8; is += 2) {
    const auto [sc1, m1i] = scale_min_k4(is, scales);
    const float d1 = d * static_cast<float>(sc1);
    const float m1 = min * static_cast<float>(m1i);
    const auto [sc2, m2i] = scale_min_k4(is + 1, scales);
    const float d2 = d * static_cast<float>(sc2);
    const float m2 = min * static_cast<float>(m2i);
    for (int l = 0; l < 32; ++l) {
      const float p = d1 * static_cast<float>(q[l] & 0xF);
      *y++ = p - m1;
    }
    for (int l = 0; l < 32; ++l) {
      const float p = d2 * static_cast<float>(q[l] >> 4);
      *y++ = p - m2;
    }
    q += 32;
  }
}

// block_q5_K {half d; half dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128]}: Q4_K plus a
// fifth bit per element: for chunk c, bit 2c of qh[l] (first 32) and bit 2c+1 (next 32).
void q5_k(const uint8_t* b, float* y) {
  const float d = f16_at(b, 0);
  const float min = f16_at(b, 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qh = b + 16;
  const uint8_t* ql = b + 48;
  uint8_t u1 = 1, u2 = 2;
  for (int is = 0; is < 8; is += 2) {
    const auto [sc1, m1i] = scale_min_k4(is, scales);
    const float d1 = d * static_cast<float>(sc1);
    const float m1 = min * static_cast<float>(m1i);
    const auto [sc2, m2i] = scale_min_k4(is + 1, scales);
    const float d2 = d * static_cast<float>(sc2);
    const float m2 = min * static_cast<float>(m2i);
    for (int l = 0; l < 32; ++l) {
      const float p = d1 * static_cast<float>((ql[l] & 0xF) + ((qh[l] & u1) ? 16 : 0));
      *y++ = p - m1;
    }
    for (int l = 0; l < 32; ++l) {
      const float p = d2 * static_cast<float>((ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0));
      *y++ = p - m2;
    }
    ql += 32;
    u1 = static_cast<uint8_t>(u1 << 2);
    u2 = static_cast<uint8_t>(u2 << 2);
  }
}

// block_q6_K {uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d}: 16 sub-blocks of 16;
// each 128-element chunk: element l + 32k (k = 0..3) has low bits from ql (nibble k / 2 of byte
// l + 32 (k & 1)) and high bits 2k, 2k+1 of qh[l]; value d * sc * (q - 32).
void q6_k(const uint8_t* b, float* y) {
  const float d = f16_at(b, 208);
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const uint8_t* scb = b + 192;
  for (int n = 0; n < 256; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      const float s1 = d * static_cast<float>(static_cast<int8_t>(scb[is + 0]));
      const float s2 = d * static_cast<float>(static_cast<int8_t>(scb[is + 2]));
      const float s3 = d * static_cast<float>(static_cast<int8_t>(scb[is + 4]));
      const float s4 = d * static_cast<float>(static_cast<int8_t>(scb[is + 6]));
      y[l + 0] = s1 * static_cast<float>(q1);
      y[l + 32] = s2 * static_cast<float>(q2);
      y[l + 64] = s3 * static_cast<float>(q3);
      y[l + 96] = s4 * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    scb += 8;
  }
}

using BlockFn = void (*)(const uint8_t*, float*);

BlockFn block_function(GgufKind kind) {
  switch (kind) {
    case GgufKind::kQ4_0:
      return q4_0;
    case GgufKind::kQ4_1:
      return q4_1;
    case GgufKind::kQ5_0:
      return q5_0;
    case GgufKind::kQ5_1:
      return q5_1;
    case GgufKind::kQ8_0:
      return q8_0;
    case GgufKind::kQ4_K:
      return q4_k;
    case GgufKind::kQ5_K:
      return q5_k;
    case GgufKind::kQ6_K:
      return q6_k;
    default:
      return nullptr;
  }
}

template <class... A>
ErrorInfo data_error(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat(a...)};
}

}  // namespace

Status check_supported(const GgufTensor& t) {
  const GgufKindInfo& info = kind_info(t.kind);
  if (info.supported) return Ok{};
  return ErrorInfo{ErrorKind::kNotSupportedError,
                   str_cat("GGUF tensor ", quoted_name(t.name), ": kind ", info.name, " (type id ",
                           static_cast<uint32_t>(t.kind),
                           ") is not supported (supported: F32, F16, BF16, Q8_0, Q4_0, Q4_1, "
                           "Q5_0, Q5_1, Q4_K, Q5_K, Q6_K)")};
}

Status dequantize_blocks(GgufKind kind, std::span<const std::byte> bytes, std::span<float> out) {
  const GgufKindInfo& info = kind_info(kind);
  if (!info.supported) return data_error("dequantize: kind ", info.name, " is not supported");
  if (out.size() % info.block != 0 || bytes.size() / info.block_bytes != out.size() / info.block ||
      bytes.size() % info.block_bytes != 0)
    return data_error("dequantize: ", bytes.size(), " bytes of ", info.name, " do not hold ",
                      out.size(), " elements");
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = out.size();
  switch (kind) {
    case GgufKind::kF32:
      if (n != 0) std::memcpy(out.data(), src, n * 4);
      return Ok{};
    case GgufKind::kF16:
      for (size_t i = 0; i < n; ++i) out[i] = f16_at(src, 2 * i);
      return Ok{};
    case GgufKind::kBF16:
      for (size_t i = 0; i < n; ++i) out[i] = bfloat16_bits_to_float(layout::u16_at(src, 2 * i));
      return Ok{};
    default:
      break;
  }
  const BlockFn fn = block_function(kind);
  const size_t blocks = n / info.block;
  for (size_t i = 0; i < blocks; ++i) fn(src + i * info.block_bytes, out.data() + i * info.block);
  return Ok{};
}

Status dequantize(const GgufTensor& t, std::span<float> out) {
  CPPNN_RETURN_IF_ERROR(check_supported(t));
  if (out.size() != t.element_count)
    return data_error("GGUF tensor ", quoted_name(t.name), ": dequantize into ", out.size(),
                      " floats, the tensor has ", t.element_count, " elements");
  auto r = dequantize_blocks(t.kind, t.data, out);
  if (!r) return data_error("GGUF tensor ", quoted_name(t.name), ": ", r.error().message);
  return Ok{};
}

Result<std::vector<float>> dequantize(const GgufTensor& t) {
  CPPNN_RETURN_IF_ERROR(check_supported(t));
  if (t.element_count > SIZE_MAX / sizeof(float))
    return data_error("GGUF tensor ", quoted_name(t.name), ": ", t.element_count,
                      " elements do not fit in memory");
  std::vector<float> out(static_cast<size_t>(t.element_count));
  CPPNN_RETURN_IF_ERROR(dequantize(t, out));
  return out;
}

}  // namespace cppnn::gguf
