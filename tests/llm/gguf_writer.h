// A small GGUF writer for tests (the GGUF layout of ggml's docs/gguf.md, versions 2 and 3,
// little-endian): metadata of every value type (arrays nested too), tensors of any kind from raw
// block bytes, float32 or float16 data, a chosen alignment. It also writes what a reader must
// reject: every count, offset and type id can be overridden, and GgufBytes appends raw fields for
// hand-made files.
//
//   cppnn::gguf::testing::GgufWriter w;                    // version 3, alignment 32
//   w.add_string("general.architecture", "llama")
//       .add_uint32("llama.block_count", 2)
//       .add("tokenizer.ggml.tokens", GgufWriteValue::strings({"a", "b"}))
//       .add_tensor_f32("output_norm.weight", {64}, norm)   // dims in ggml order (ne0 first)
//       .add_tensor("blk.0.attn_q.weight", {64, 64}, 8 /* Q8_0 */, q8_0_blocks);
//   w.write(dir / "model.gguf");
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/float16.h"

namespace cppnn::gguf::testing {

// Little-endian fields appended to a byte buffer.
class GgufBytes {
 public:
  GgufBytes& u8(uint8_t v) { return le(v, 1); }
  GgufBytes& u16(uint16_t v) { return le(v, 2); }
  GgufBytes& u32(uint32_t v) { return le(v, 4); }
  GgufBytes& u64(uint64_t v) { return le(v, 8); }
  GgufBytes& i8(int8_t v) { return le(static_cast<uint8_t>(v), 1); }
  GgufBytes& i16(int16_t v) { return le(static_cast<uint16_t>(v), 2); }
  GgufBytes& i32(int32_t v) { return le(static_cast<uint32_t>(v), 4); }
  GgufBytes& i64(int64_t v) { return le(static_cast<uint64_t>(v), 8); }
  GgufBytes& f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return u32(bits);
  }
  GgufBytes& f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return u64(bits);
  }
  // A GGUF string: uint64 length, then the bytes (no terminator).
  GgufBytes& str(std::string_view s) {
    u64(s.size());
    return raw(s);
  }
  GgufBytes& raw(std::string_view s) {
    for (char c : s) bytes_.push_back(static_cast<std::byte>(c));
    return *this;
  }
  GgufBytes& raw(std::span<const std::byte> b) {
    bytes_.insert(bytes_.end(), b.begin(), b.end());
    return *this;
  }
  // Zero bytes up to the next multiple of `alignment`.
  GgufBytes& pad_to(uint64_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(std::byte{0});
    return *this;
  }
  size_t size() const { return bytes_.size(); }
  const std::vector<std::byte>& bytes() const { return bytes_; }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  GgufBytes& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<std::byte>(v >> (8 * i)));
    return *this;
  }
  std::vector<std::byte> bytes_;
};

// GGUF metadata value type ids (gguf_metadata_value_type).
namespace value_type {
inline constexpr uint32_t kUint8 = 0, kInt8 = 1, kUint16 = 2, kInt16 = 3, kUint32 = 4, kInt32 = 5,
                          kFloat32 = 6, kBool = 7, kString = 8, kArray = 9, kUint64 = 10,
                          kInt64 = 11, kFloat64 = 12;
}

// One metadata value to write: its type id and its encoding after the type id (for an array:
// element type, count, then each element's encoding).
struct GgufWriteValue {
  uint32_t type = value_type::kUint8;
  std::vector<std::byte> payload;

  static GgufWriteValue u8(uint8_t v) { return make(value_type::kUint8, GgufBytes().u8(v)); }
  static GgufWriteValue i8(int8_t v) { return make(value_type::kInt8, GgufBytes().i8(v)); }
  static GgufWriteValue u16(uint16_t v) { return make(value_type::kUint16, GgufBytes().u16(v)); }
  static GgufWriteValue i16(int16_t v) { return make(value_type::kInt16, GgufBytes().i16(v)); }
  static GgufWriteValue u32(uint32_t v) { return make(value_type::kUint32, GgufBytes().u32(v)); }
  static GgufWriteValue i32(int32_t v) { return make(value_type::kInt32, GgufBytes().i32(v)); }
  static GgufWriteValue f32(float v) { return make(value_type::kFloat32, GgufBytes().f32(v)); }
  static GgufWriteValue boolean(bool v) { return make(value_type::kBool, GgufBytes().u8(v)); }
  static GgufWriteValue string(std::string_view v) {
    return make(value_type::kString, GgufBytes().str(v));
  }
  static GgufWriteValue u64(uint64_t v) { return make(value_type::kUint64, GgufBytes().u64(v)); }
  static GgufWriteValue i64(int64_t v) { return make(value_type::kInt64, GgufBytes().i64(v)); }
  static GgufWriteValue f64(double v) { return make(value_type::kFloat64, GgufBytes().f64(v)); }
  // An array of `elements`, which must all be of `element_type` (nested arrays too).
  static GgufWriteValue array(uint32_t element_type, const std::vector<GgufWriteValue>& elements) {
    GgufBytes b;
    b.u32(element_type).u64(elements.size());
    for (const GgufWriteValue& e : elements) {
      if (e.type != element_type) throw std::logic_error("GgufWriteValue::array: mixed types");
      b.raw(e.payload);
    }
    return make(value_type::kArray, b);
  }
  // An array header claiming `count` elements of `element_type`, followed by `elements_bytes`
  // (for arrays whose length does not match what follows).
  static GgufWriteValue raw_array(uint32_t element_type, uint64_t count,
                                  std::span<const std::byte> elements_bytes = {}) {
    GgufBytes b;
    b.u32(element_type).u64(count).raw(elements_bytes);
    return make(value_type::kArray, b);
  }
  static GgufWriteValue strings(const std::vector<std::string>& v) {
    GgufBytes b;
    b.u32(value_type::kString).u64(v.size());
    for (const std::string& s : v) b.str(s);
    return make(value_type::kArray, b);
  }
  static GgufWriteValue int32s(const std::vector<int32_t>& v) {
    GgufBytes b;
    b.u32(value_type::kInt32).u64(v.size());
    for (int32_t x : v) b.i32(x);
    return make(value_type::kArray, b);
  }
  static GgufWriteValue float32s(const std::vector<float>& v) {
    GgufBytes b;
    b.u32(value_type::kFloat32).u64(v.size());
    for (float x : v) b.f32(x);
    return make(value_type::kArray, b);
  }

 private:
  static GgufWriteValue make(uint32_t type, const GgufBytes& b) { return {type, b.bytes()}; }
};

// One tensor to write.
struct GgufWriteTensor {
  std::string name;
  std::vector<uint64_t> dims;      // ggml order: dims[0] is the row length
  uint32_t type = 0;               // ggml type id (0 F32, 1 F16, 8 Q8_0, 12 Q4_K, ...)
  std::vector<std::byte> data;     // the stored bytes (whole blocks for quantized kinds)
  std::optional<uint64_t> offset;  // the offset to record instead of where the data lands
};

// Writes a GGUF file: header, metadata in the order added, tensor infos, the data section
// aligned to the alignment, each tensor's data at the next multiple of the alignment.
class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}

  // Metadata, written in the order added (a key added twice is written twice).
  GgufWriter& add(std::string key, GgufWriteValue value) {
    kvs_.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  GgufWriter& add_uint32(std::string key, uint32_t v) {
    return add(std::move(key), GgufWriteValue::u32(v));
  }
  GgufWriter& add_int32(std::string key, int32_t v) {
    return add(std::move(key), GgufWriteValue::i32(v));
  }
  GgufWriter& add_uint64(std::string key, uint64_t v) {
    return add(std::move(key), GgufWriteValue::u64(v));
  }
  GgufWriter& add_float32(std::string key, float v) {
    return add(std::move(key), GgufWriteValue::f32(v));
  }
  GgufWriter& add_bool(std::string key, bool v) {
    return add(std::move(key), GgufWriteValue::boolean(v));
  }
  GgufWriter& add_string(std::string key, std::string_view v) {
    return add(std::move(key), GgufWriteValue::string(v));
  }
  // Adds `general.alignment` (uint32) and lays the data out with it (0 or a non-power of two
  // are written as given, for malformed files; the layout then uses 1).
  GgufWriter& set_alignment(uint32_t alignment) {
    alignment_ = alignment;
    return add_uint32("general.alignment", alignment);
  }

  // A tensor of ggml type `type` from its raw bytes.
  GgufWriter& add_tensor(std::string name, std::vector<uint64_t> dims, uint32_t type,
                         std::vector<std::byte> data, std::optional<uint64_t> offset = {}) {
    tensors_.push_back({std::move(name), std::move(dims), type, std::move(data), offset});
    return *this;
  }
  GgufWriter& add_tensor_f32(std::string name, std::vector<uint64_t> dims,
                             std::span<const float> values) {
    GgufBytes b;
    for (float v : values) b.f32(v);
    return add_tensor(std::move(name), std::move(dims), 0, b.bytes());
  }
  // float16 data from floats (rounded to nearest even).
  GgufWriter& add_tensor_f16(std::string name, std::vector<uint64_t> dims,
                             std::span<const float> values) {
    GgufBytes b;
    for (float v : values) b.u16(float_to_half_bits(v));
    return add_tensor(std::move(name), std::move(dims), 1, b.bytes());
  }

  // Counts written in the header instead of the real ones (malformed files).
  std::optional<uint64_t> tensor_count_override, kv_count_override;

  std::vector<std::byte> bytes() const {
    const uint64_t align = alignment_ != 0 && (alignment_ & (alignment_ - 1)) == 0 ? alignment_ : 1;
    GgufBytes b;
    b.raw("GGUF").u32(version_);
    b.u64(tensor_count_override.value_or(tensors_.size()));
    b.u64(kv_count_override.value_or(kvs_.size()));
    for (const auto& [key, value] : kvs_) b.str(key).u32(value.type).raw(value.payload);
    uint64_t next = 0;  // data offsets, relative to the data section
    std::vector<uint64_t> placed;
    for (const GgufWriteTensor& t : tensors_) {
      placed.push_back(next);
      next += (t.data.size() + align - 1) / align * align;
    }
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const GgufWriteTensor& t = tensors_[i];
      b.str(t.name).u32(static_cast<uint32_t>(t.dims.size()));
      for (uint64_t d : t.dims) b.u64(d);
      b.u32(t.type).u64(t.offset.value_or(placed[i]));
    }
    b.pad_to(align);
    for (const GgufWriteTensor& t : tensors_) b.raw(t.data).pad_to(align);
    return b.bytes();
  }

  void write(const std::filesystem::path& path) const {
    const std::vector<std::byte> data = bytes();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out) throw std::runtime_error("GgufWriter: cannot write " + path.string());
  }

 private:
  uint32_t version_;
  uint32_t alignment_ = 32;
  std::vector<std::pair<std::string, GgufWriteValue>> kvs_;
  std::vector<GgufWriteTensor> tensors_;
};

}  // namespace cppnn::gguf::testing
