#include "cppnn/number.h"

#include <cmath>
#include <cstring>

#include "cppnn/float16.h"

namespace cppnn {
namespace {

struct IntRange {
  long double lo, hi;
};

IntRange range_of(MLOperandDataType t) {
  switch (t) {
    case MLOperandDataType::kInt32:
      return {-2147483648.0L, 2147483647.0L};
    case MLOperandDataType::kUint32:
      return {0, 4294967295.0L};
    case MLOperandDataType::kInt64:
      return {-9223372036854775808.0L, 9223372036854775807.0L};
    case MLOperandDataType::kUint64:
      return {0, 18446744073709551615.0L};
    case MLOperandDataType::kInt8:
      return {-128, 127};
    case MLOperandDataType::kUint8:
      return {0, 255};
    case MLOperandDataType::kInt4:
      return {-8, 7};
    case MLOperandDataType::kUint4:
      return {0, 15};
    case MLOperandDataType::kFloat32:
    case MLOperandDataType::kFloat16:
      break;
  }
  return {0, 0};
}

}  // namespace

double MLNumber::as_double() const noexcept {
  switch (kind_) {
    case Kind::kDouble:
      return d_;
    case Kind::kInt64:
      return static_cast<double>(i_);
    case Kind::kUint64:
      return static_cast<double>(u_);
  }
  return 0;
}

double MLNumber::cast_to_double(MLOperandDataType type) const noexcept {
  switch (type) {
    case MLOperandDataType::kFloat32:
      if (kind_ == Kind::kInt64) return static_cast<float>(i_);
      if (kind_ == Kind::kUint64) return static_cast<float>(u_);
      return static_cast<float>(d_);
    case MLOperandDataType::kFloat16:
      return half_bits_to_float(double_to_half_bits(as_double()));
    default:
      if (is_signed_integer(type)) return static_cast<double>(cast_to_int64(type));
      return static_cast<double>(cast_to_uint64(type));
  }
}

int64_t MLNumber::cast_to_int64(MLOperandDataType type) const noexcept {
  IntRange r = range_of(type);
  long double v = 0;
  switch (kind_) {
    case Kind::kDouble:
      if (std::isnan(d_)) return 0;
      v = std::trunc(static_cast<long double>(d_));
      break;
    case Kind::kInt64:
      v = static_cast<long double>(i_);
      break;
    case Kind::kUint64:
      v = static_cast<long double>(u_);
      break;
  }
  if (v < r.lo) v = r.lo;
  if (v > r.hi) v = r.hi;
  if (kind_ == Kind::kInt64 && v == static_cast<long double>(i_)) return i_;
  return static_cast<int64_t>(v);
}

uint64_t MLNumber::cast_to_uint64(MLOperandDataType type) const noexcept {
  IntRange r = range_of(type);
  long double v = 0;
  switch (kind_) {
    case Kind::kDouble:
      if (std::isnan(d_)) return 0;
      v = std::trunc(static_cast<long double>(d_));
      break;
    case Kind::kInt64:
      v = static_cast<long double>(i_);
      break;
    case Kind::kUint64:
      return u_ > static_cast<uint64_t>(r.hi) ? static_cast<uint64_t>(r.hi) : u_;
  }
  if (v < r.lo) v = r.lo;
  if (v > r.hi) v = r.hi;
  return static_cast<uint64_t>(v);
}

void MLNumber::cast_to_bytes(MLOperandDataType type, void* out) const noexcept {
  auto put = [out](auto v) { std::memcpy(out, &v, sizeof v); };
  switch (type) {
    case MLOperandDataType::kFloat32:
      put(static_cast<float>(cast_to_double(type)));
      break;
    case MLOperandDataType::kFloat16:
      put(double_to_half_bits(as_double()));
      break;
    case MLOperandDataType::kInt32:
      put(static_cast<int32_t>(cast_to_int64(type)));
      break;
    case MLOperandDataType::kUint32:
      put(static_cast<uint32_t>(cast_to_uint64(type)));
      break;
    case MLOperandDataType::kInt64:
      put(cast_to_int64(type));
      break;
    case MLOperandDataType::kUint64:
      put(cast_to_uint64(type));
      break;
    case MLOperandDataType::kInt8:
    case MLOperandDataType::kInt4:
      put(static_cast<int8_t>(cast_to_int64(type)));
      break;
    case MLOperandDataType::kUint8:
    case MLOperandDataType::kUint4:
      put(static_cast<uint8_t>(cast_to_uint64(type)));
      break;
  }
}

int MLNumber::compare_as(MLOperandDataType type, const MLNumber& a, const MLNumber& b) noexcept {
  if (is_floating_point(type)) {
    double x = a.cast_to_double(type), y = b.cast_to_double(type);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (is_signed_integer(type)) {
    int64_t x = a.cast_to_int64(type), y = b.cast_to_int64(type);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  uint64_t x = a.cast_to_uint64(type), y = b.cast_to_uint64(type);
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool operator==(const MLNumber& a, const MLNumber& b) noexcept {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case MLNumber::Kind::kDouble:
      return std::memcmp(&a.d_, &b.d_, sizeof(double)) == 0;
    case MLNumber::Kind::kInt64:
      return a.i_ == b.i_;
    case MLNumber::Kind::kUint64:
      return a.u_ == b.u_;
  }
  return false;
}

}  // namespace cppnn
