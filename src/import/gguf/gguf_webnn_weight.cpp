// to_webnn_weight: GGUF tensors as WebNN constants (gguf_quant.h). Quantized blocks are decoded
// into integers in element order plus per-sub-block scales and offsets; ggml's dequantization is
// then exactly q * scale + offset, because every scale ggml forms before multiplying by q is
// already a float32 value:
//   - d, m and dmin are float16 values, exact in float32;
//   - d * sc (K-quants: sc 6-bit unsigned; Q6_K: sc int8) and dmin * m (m 6-bit) are exact in
//     float32: a float16 significand has 11 bits and |sc| <= 128 adds at most 8, so the product
//     needs at most 19 of float32's 24 bits; its exponent stays in float32's normal range
//     (float16's smallest subnormal is 2^-24, its largest value 65504 * 128 < 2^24).
// So ggml's `d1 * q - m1` (K-quants) is q * (d*sc) + (-(dmin*m)) with the same two roundings
// (a - b is a + (-b) in IEEE 754), and Q6_K's `d * sc * q` is q * (d*sc) with one.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <optional>

#include "cppnn/float16.h"
#include "src/core/checked_math.h"
#include "src/import/gguf/gguf_quant.h"
#include "src/import/gguf/gguf_quant_layout.h"

namespace cppnn::gguf {
namespace {

using layout::f16_at;
using layout::scale_min_k4;
using layout::u32_at;
using DT = MLOperandDataType;

// One decoded block: the integers in element order, and per sub-block its scale and offset.
struct Decoded {
  std::array<int, kSuperBlock> q{};
  std::array<float, kSuperBlock / 16> scale{};
  std::array<float, kSuperBlock / 16> offset{};
};
using DecodeFn = void (*)(const uint8_t* block, Decoded& out);

// The low (element j) and high (element j+16) nibbles of the 16 bytes of a 32-element block.
void nibbles32(const uint8_t* qs, int* q, int bias) {
  for (int j = 0; j < 16; ++j) {
    q[j] = (qs[j] & 0x0F) - bias;
    q[j + 16] = (qs[j] >> 4) - bias;
  }
}

// Bit 4 of the 32 elements of a Q5_0/Q5_1 block: bit j of the little-endian uint32 qh.
void fifth_bits32(uint32_t qh, int* q) {
  for (int j = 0; j < 32; ++j) q[j] |= static_cast<int>((qh >> j) & 1u) << 4;
}

void q4_0(const uint8_t* b, Decoded& o) {
  nibbles32(b + 2, o.q.data(), 8);
  o.scale[0] = f16_at(b, 0);
}
void q4_1(const uint8_t* b, Decoded& o) {
  nibbles32(b + 4, o.q.data(), 0);
  o.scale[0] = f16_at(b, 0);
  o.offset[0] = f16_at(b, 2);
}
void q5_0(const uint8_t* b, Decoded& o) {
  nibbles32(b + 6, o.q.data(), 0);
  fifth_bits32(u32_at(b, 2), o.q.data());
  for (int j = 0; j < 32; ++j) o.q[j] -= 16;
  o.scale[0] = f16_at(b, 0);
}
void q5_1(const uint8_t* b, Decoded& o) {
  nibbles32(b + 8, o.q.data(), 0);
  fifth_bits32(u32_at(b, 4), o.q.data());
  o.scale[0] = f16_at(b, 0);
  o.offset[0] = f16_at(b, 2);
}
void q8_0(const uint8_t* b, Decoded& o) {
  for (int j = 0; j < 32; ++j) o.q[j] = static_cast<int8_t>(b[2 + j]);
  o.scale[0] = f16_at(b, 0);
}

// Q4_K/Q5_K: sub-block j (32 elements) takes nibble j % 2 of qs[32 * (j / 2) + l]; Q5_K adds
// bit j of qh[l] as bit 4. Scale d * sc_j, offset -(dmin * m_j).
void k_quant(const uint8_t* b, const uint8_t* qs, const uint8_t* qh, Decoded& o) {
  const float d = f16_at(b, 0);
  const float dmin = f16_at(b, 2);
  for (int j = 0; j < 8; ++j) {
    const uint8_t* bytes = qs + 32 * (j / 2);
    for (int l = 0; l < 32; ++l) {
      int q = (j % 2 == 0) ? (bytes[l] & 0x0F) : (bytes[l] >> 4);
      if (qh != nullptr) q |= ((qh[l] >> j) & 1) << 4;
      o.q[32 * j + l] = q;
    }
    const auto [sc, m] = scale_min_k4(j, b + 4);
    o.scale[j] = d * static_cast<float>(sc);
    o.offset[j] = -(dmin * static_cast<float>(m));
  }
}
void q4_k(const uint8_t* b, Decoded& o) {
  k_quant(b, b + 16, nullptr, o);
}
void q5_k(const uint8_t* b, Decoded& o) {
  k_quant(b, b + 48, b + 16, o);
}

// Q6_K: in chunk n (128 elements), element 32k + l has the low nibble (k < 2) or high nibble of
// ql[64n + l + 32 (k % 2)] and bits 2k, 2k+1 of qh[32n + l] as bits 4-5; minus 32. Sub-block i
// (16 elements) has scale d * scales[i].
void q6_k(const uint8_t* b, Decoded& o) {
  const float d = f16_at(b, 208);
  for (int n = 0; n < 2; ++n) {
    const uint8_t* ql = b + 64 * n;
    const uint8_t* qh = b + 128 + 32 * n;
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 32; ++l) {
        const uint8_t low = ql[l + 32 * (k % 2)];
        const int nibble = k < 2 ? (low & 0x0F) : (low >> 4);
        o.q[128 * n + 32 * k + l] = (nibble | (((qh[l] >> (2 * k)) & 3) << 4)) - 32;
      }
  }
  for (int i = 0; i < 16; ++i) o.scale[i] = d * static_cast<float>(static_cast<int8_t>(b[192 + i]));
}

// How a quantized kind becomes WebNN constants.
struct QuantForm {
  DT q_type;
  uint32_t block;  // elements per scale
  bool has_offset;
  DecodeFn decode;
};

std::optional<QuantForm> quant_form(GgufKind kind) {
  switch (kind) {
    case GgufKind::kQ8_0:
      return QuantForm{DT::kInt8, 32, false, q8_0};
    case GgufKind::kQ4_0:
      return QuantForm{DT::kInt4, 32, false, q4_0};
    case GgufKind::kQ4_1:
      return QuantForm{DT::kUint4, 32, true, q4_1};
    case GgufKind::kQ5_0:
      return QuantForm{DT::kInt8, 32, false, q5_0};
    case GgufKind::kQ5_1:
      return QuantForm{DT::kUint8, 32, true, q5_1};
    case GgufKind::kQ4_K:
      return QuantForm{DT::kUint4, 32, true, q4_k};
    case GgufKind::kQ5_K:
      return QuantForm{DT::kUint8, 32, true, q5_k};
    case GgufKind::kQ6_K:
      return QuantForm{DT::kInt8, 16, false, q6_k};
    default:
      return std::nullopt;
  }
}

template <class... A>
ErrorInfo tensor_error(const GgufTensor& t, const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("GGUF tensor ", quoted_name(t.name), ": ", a...)};
}

// The tensor's bytes as they are when their address suits `alignment`, else a copy.
ConstantData view_or_copy(const GgufTensor& t, size_t alignment) {
  if (reinterpret_cast<uintptr_t>(t.data.data()) % alignment == 0)
    return ConstantData::view(t.owner, t.data);
  return ConstantData::copy_of(t.data);
}

Result<WebnnWeight> float_form(const GgufTensor& t, WebnnWeight w) {
  w.form = WebnnWeight::Form::kFloat;
  switch (t.kind) {
    case GgufKind::kF32:
      w.float_type = DT::kFloat32;
      w.values = view_or_copy(t, alignof(float));
      w.note = "F32 -> float32";
      return w;
    case GgufKind::kF16:
      w.float_type = DT::kFloat16;
      w.values = view_or_copy(t, alignof(uint16_t));
      w.note = "F16 -> float16";
      return w;
    default: {  // BF16: float32 bits are the bfloat16 bits shifted left 16 (exact)
      std::vector<std::byte> out(t.data.size() * 2);
      const auto* src = reinterpret_cast<const uint8_t*>(t.data.data());
      for (size_t i = 0; i < t.data.size() / 2; ++i) {
        const uint32_t bits = uint32_t{layout::u16_at(src, 2 * i)} << 16;
        std::memcpy(out.data() + 4 * i, &bits, 4);
      }
      w.float_type = DT::kFloat32;
      w.values = ConstantData::owned(std::move(out));
      w.note = "BF16 -> float32";
      return w;
    }
  }
}

}  // namespace

Result<WebnnWeight> to_webnn_weight(const GgufTensor& t) {
  CPPNN_RETURN_IF_ERROR(check_supported(t));
  const GgufKindInfo& info = kind_info(t.kind);
  if (t.data.size() != t.byte_size || t.element_count % info.block != 0 ||
      t.byte_size / info.block_bytes != t.element_count / info.block)
    return tensor_error(t, "its ", t.byte_size, " bytes do not hold ", t.element_count,
                        " elements of ", info.name);
  if (t.element_count > SIZE_MAX / 4)
    return tensor_error(t, t.element_count, " elements do not fit in memory");
  WebnnWeight w;
  w.shape.assign(t.dims.rbegin(), t.dims.rend());
  const auto form = quant_form(t.kind);
  if (!form) return float_form(t, std::move(w));

  w.form = WebnnWeight::Form::kBlockQuantized;
  w.q_type = form->q_type;
  w.block = form->block;
  const bool four_bit = form->q_type == DT::kInt4 || form->q_type == DT::kUint4;
  const auto n = static_cast<size_t>(t.element_count);
  std::vector<std::byte> q(four_bit ? n / 2 : n);  // n is a multiple of 32: even
  w.scale.resize(n / form->block);
  if (form->has_offset) w.offset.resize(n / form->block);
  const size_t per_block = info.block / form->block;  // scales per ggml block
  const auto* src = reinterpret_cast<const uint8_t*>(t.data.data());
  Decoded d;
  for (size_t b = 0; b < n / info.block; ++b) {
    form->decode(src + b * info.block_bytes, d);
    const size_t first = b * info.block;
    for (uint32_t e = 0; e < info.block; ++e) {
      const auto bits = static_cast<uint8_t>(d.q[e]);  // two's complement, low bits kept
      if (four_bit)
        q[(first + e) / 2] |= std::byte((bits & 0x0F) << (4 * ((first + e) % 2)));
      else
        q[first + e] = std::byte(bits);
    }
    for (size_t s = 0; s < per_block; ++s) {
      w.scale[b * per_block + s] = d.scale[s];
      if (form->has_offset) w.offset[b * per_block + s] = d.offset[s];
    }
  }
  w.q = ConstantData::owned(std::move(q));
  w.note = str_cat(info.name, " -> ", data_type_name(form->q_type), " + float32 scale",
                   form->has_offset ? ", offset" : "", " per ", form->block);
  return w;
}

Result<std::vector<float>> webnn_weight_values(const WebnnWeight& w) {
  uint64_t count = 1;
  const bool empty = std::find(w.shape.begin(), w.shape.end(), uint64_t{0}) != w.shape.end();
  for (uint64_t d : w.shape) {
    if (empty) {
      count = 0;
      break;
    }
    auto product = checked_mul(count, d);
    if (!product) return ErrorInfo{ErrorKind::kDataError, "the shape's element count overflows"};
    count = *product;
  }
  if (count > SIZE_MAX / 4) return ErrorInfo{ErrorKind::kDataError, "too many elements"};
  const auto n = static_cast<size_t>(count);
  std::vector<float> out(n);
  const auto* bytes = reinterpret_cast<const uint8_t*>(
      w.form == WebnnWeight::Form::kFloat ? w.values.data() : w.q.data());
  if (w.form == WebnnWeight::Form::kFloat) {
    const size_t size = w.float_type == DT::kFloat16 ? 2 : 4;
    if (w.values.size() != n * size)
      return ErrorInfo{ErrorKind::kDataError, "the values do not match the shape"};
    for (size_t i = 0; i < n; ++i)
      out[i] =
          size == 2 ? layout::f16_at(bytes, 2 * i) : std::bit_cast<float>(u32_at(bytes, 4 * i));
    return out;
  }
  const bool four_bit = w.q_type == DT::kInt4 || w.q_type == DT::kUint4;
  const bool is_signed = w.q_type == DT::kInt4 || w.q_type == DT::kInt8;
  if (w.block == 0 || n % w.block != 0 || w.q.size() != (four_bit ? (n + 1) / 2 : n) ||
      w.scale.size() != n / w.block || (!w.offset.empty() && w.offset.size() != n / w.block))
    return ErrorInfo{ErrorKind::kDataError, "the quantized parts do not match the shape"};
  for (size_t i = 0; i < n; ++i) {
    int q = four_bit ? (bytes[i / 2] >> (4 * (i % 2))) & 0x0F : bytes[i];
    if (is_signed) q = four_bit ? (q ^ 8) - 8 : static_cast<int8_t>(q);
    const float p = static_cast<float>(q) * w.scale[i / w.block];  // rounded once
    out[i] = w.offset.empty() ? p : p + w.offset[i / w.block];     // and once more
  }
  return out;
}

Result<WebnnWeight> to_float_weight(const WebnnWeight& w, MLOperandDataType type) {
  if (w.form == WebnnWeight::Form::kFloat && w.float_type == type) return w;
  auto values = webnn_weight_values(w);
  if (!values) return values.error();
  WebnnWeight out;
  out.form = WebnnWeight::Form::kFloat;
  out.shape = w.shape;
  out.float_type = type;
  const std::string from = w.note.substr(0, w.note.find(' '));
  if (type == DT::kFloat16) {
    std::vector<std::byte> bytes(values->size() * 2);
    for (size_t i = 0; i < values->size(); ++i) {
      const uint16_t bits = float_to_half_bits((*values)[i]);
      std::memcpy(bytes.data() + 2 * i, &bits, 2);
    }
    out.values = ConstantData::owned(std::move(bytes));
  } else {
    std::vector<std::byte> bytes(values->size() * 4);
    std::memcpy(bytes.data(), values->data(), bytes.size());
    out.values = ConstantData::owned(std::move(bytes));
  }
  out.note = str_cat(from, " -> ", data_type_name(type),
                     w.form == WebnnWeight::Form::kBlockQuantized ? " (dequantized)" : "");
  return out;
}

}  // namespace cppnn::gguf
