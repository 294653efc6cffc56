// Generated inputs and output summaries.
#include "tools/cppnn/tensor_values.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <random>

#include "cppnn/float16.h"

namespace cppnn::tool {
namespace {

template <class T>
T load(std::span<const std::byte> bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <class T>
void store(std::vector<std::byte>& out, size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

uint64_t element_count(const MLOperandDescriptor& desc) {
  uint64_t n = 1;
  for (uint32_t d : desc.shape) n *= d;  // the builder validated the byte length
  return n;
}

}  // namespace

ExactNumber element_value(MLOperandDataType t, std::span<const std::byte> bytes, size_t i) {
  const auto real = ExactNumber::of_double;
  const auto sint = ExactNumber::of_int64;
  const auto uint = ExactNumber::of_uint64;
  switch (t) {
    case MLOperandDataType::kFloat32:
      return real(load<float>(bytes, i));
    case MLOperandDataType::kFloat16:
      return real(half_bits_to_float(load<uint16_t>(bytes, i)));
    case MLOperandDataType::kInt32:
      return sint(load<int32_t>(bytes, i));
    case MLOperandDataType::kUint32:
      return uint(load<uint32_t>(bytes, i));
    case MLOperandDataType::kInt64:
      return sint(load<int64_t>(bytes, i));
    case MLOperandDataType::kUint64:
      return uint(load<uint64_t>(bytes, i));
    case MLOperandDataType::kInt8:
      return sint(load<int8_t>(bytes, i));
    case MLOperandDataType::kUint8:
      return uint(load<uint8_t>(bytes, i));
    case MLOperandDataType::kInt4:
    case MLOperandDataType::kUint4: {
      const unsigned byte = unsigned(bytes[i / 2]);
      const unsigned nibble = (i % 2 == 0) ? (byte & 0xf) : (byte >> 4);
      return t == MLOperandDataType::kInt4 ? sint(nibble >= 8 ? int(nibble) - 16 : int(nibble))
                                           : uint(nibble);
    }
  }
  return real(0);
}

std::vector<std::byte> generated_bytes(const MLOperandDescriptor& desc, bool random, uint64_t seed,
                                       uint64_t salt) {
  const uint64_t n = element_count(desc);
  const unsigned bits = data_type_bits(desc.dataType);
  std::vector<std::byte> out((n * bits + 7) / 8);
  if (!random) return out;
  // mt19937_64's output is specified exactly; the mapping to values is done here (the
  // standard distributions differ between library implementations).
  std::mt19937_64 gen(seed ^ (salt * 0x9E3779B97F4A7C15ull));
  auto unit = [&] { return double(gen() >> 11) * 0x1.0p-53; };  // [0, 1)
  for (uint64_t i = 0; i < n; ++i) {
    const double f = unit() * 2 - 1;
    const int64_t s = int64_t(gen() % 16) - 8;
    const uint64_t u = gen() % 16;
    switch (desc.dataType) {
      case MLOperandDataType::kFloat32:
        store(out, i, float(f));
        break;
      case MLOperandDataType::kFloat16:
        store(out, i, float_to_half_bits(float(f)));
        break;
      case MLOperandDataType::kInt32:
        store(out, i, int32_t(s));
        break;
      case MLOperandDataType::kUint32:
        store(out, i, uint32_t(u));
        break;
      case MLOperandDataType::kInt64:
        store(out, i, int64_t(s));
        break;
      case MLOperandDataType::kUint64:
        store(out, i, uint64_t(u));
        break;
      case MLOperandDataType::kInt8:
        store(out, i, int8_t(s));
        break;
      case MLOperandDataType::kUint8:
        store(out, i, uint8_t(u));
        break;
      case MLOperandDataType::kInt4:
      case MLOperandDataType::kUint4: {
        const unsigned nibble =
            unsigned(desc.dataType == MLOperandDataType::kInt4 ? s : int64_t(u)) & 0xf;
        out[i / 2] |= std::byte(i % 2 == 0 ? nibble : nibble << 4);
        break;
      }
    }
  }
  return out;
}

TensorSummary summarize(const MLOperandDescriptor& desc, std::span<const std::byte> bytes,
                        size_t first_count) {
  TensorSummary s;
  s.elements = element_count(desc);
  double sum = 0;
  uint64_t counted = 0;
  for (uint64_t i = 0; i < s.elements; ++i) {
    const ExactNumber v = element_value(desc.dataType, bytes, i);
    if (i < first_count) s.first.push_back(v);
    if (v.is_nan()) {
      ++s.nans;
      continue;
    }
    if (counted == 0 || v.less_than(s.min)) s.min = v;
    if (counted == 0 || s.max.less_than(v)) s.max = v;
    sum += v.as_double();
    ++counted;
  }
  s.mean = counted ? sum / double(counted) : 0;
  return s;
}

std::string describe(const MLOperandDescriptor& desc) {
  std::string s(data_type_name(desc.dataType));
  s += " [";
  for (size_t i = 0; i < desc.shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(desc.shape[i]);
  }
  return s + "]";
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string format_number(const ExactNumber& v) {
  return v.to_string([](double d) { return format_number(d); });
}

}  // namespace cppnn::tool
