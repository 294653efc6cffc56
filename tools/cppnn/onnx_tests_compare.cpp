// The output check of `cppnn onnx-tests`: numpy.testing.assert_allclose(actual, expected,
// rtol, atol) as ONNX's backend tests run it (equal_nan), exact for integers and bools, with
// exact types and shapes (see onnx_tests.h).
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "cppnn/float16.h"
#include "tools/cppnn/onnx_tests.h"

namespace cppnn::tool::onnx_tests {
namespace {

std::string shape_text(std::span<const uint32_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// The multi-dimensional index of flat element `flat` of `shape`.
std::string index_text(std::span<const uint32_t> shape, size_t flat) {
  std::vector<size_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) {
    if (d) s += ',';
    s += std::to_string(idx[d]);
  }
  return s + "]";
}

double float_at(MLOperandDataType type, std::span<const std::byte> bytes, size_t i) {
  if (type == MLOperandDataType::kFloat16) {
    uint16_t h = 0;
    std::memcpy(&h, bytes.data() + i * 2, 2);
    return half_bits_to_float(h);
  }
  float f = 0;
  std::memcpy(&f, bytes.data() + i * 4, 4);
  return f;
}

// An integer element as text (signed or unsigned by type).
std::string int_text(MLOperandDataType type, std::span<const std::byte> bytes, size_t i) {
  const size_t size = data_type_bits(type) / 8;
  uint64_t u = 0;
  std::memcpy(&u, bytes.data() + i * size, size);
  if (is_signed_integer(type) && size < 8 && (u >> (size * 8 - 1)) & 1)
    u |= ~uint64_t{0} << (size * 8);  // sign-extend
  return is_signed_integer(type) ? std::to_string(static_cast<int64_t>(u)) : std::to_string(u);
}

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

}  // namespace

Comparison compare_output(const TestTensor& expected, MLOperandDataType type,
                          std::span<const uint32_t> shape, std::span<const std::byte> bytes,
                          const std::string& what, const Tolerance& tolerance) {
  Comparison c;
  auto fail = [&](std::string message) {
    c.ok = false;
    c.message = what + ": " + std::move(message);
    return c;
  };
  if (type != expected.type)
    return fail("data type " + std::string(data_type_name(type)) + ", expected " +
                std::string(data_type_name(expected.type)) + " (ONNX " +
                onnx_type_name(expected.onnx_type) + ")");
  if (!std::equal(shape.begin(), shape.end(), expected.shape.begin(), expected.shape.end()))
    return fail("shape " + shape_text(shape) + ", expected " + shape_text(expected.shape));
  const size_t size = data_type_bits(type) / 8;
  if (bytes.size() != expected.bytes.size() || size == 0 || bytes.size() % size != 0)
    return fail(std::to_string(bytes.size()) + " bytes, expected " +
                std::to_string(expected.bytes.size()));
  const size_t count = bytes.size() / size;
  const std::span<const std::byte> want(expected.bytes);
  size_t mismatches = 0;
  std::string first;
  if (is_floating_point(type)) {
    const double inf = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < count; ++i) {
      const double a = float_at(type, bytes, i), e = float_at(type, want, i);
      bool ok = false;
      double err = 0;
      if (std::isnan(a) || std::isnan(e)) {
        ok = std::isnan(a) && std::isnan(e);
        err = ok ? 0 : inf;
      } else if (std::isinf(a) || std::isinf(e)) {
        ok = a == e;
        err = ok ? 0 : inf;
      } else {
        err = std::fabs(a - e);
        ok = err <= tolerance.atol + tolerance.rtol * std::fabs(e);
      }
      if (err > c.max_abs_error) c.max_abs_error = err;
      if (ok) continue;
      if (mismatches++ == 0)
        first = index_text(shape, i) + " is " + number_text(a) + ", expected " + number_text(e);
    }
  } else {
    for (size_t i = 0; i < count; ++i) {
      if (std::memcmp(bytes.data() + i * size, want.data() + i * size, size) == 0) continue;
      if (mismatches++ == 0)
        first = index_text(shape, i) + " is " + int_text(type, bytes, i) + ", expected " +
                int_text(type, want, i);
    }
  }
  if (mismatches == 0) return c;
  std::string message = std::to_string(mismatches) + " of " + std::to_string(count) +
                        " elements differ; first: " + first;
  if (is_floating_point(type))
    message += " (max abs error " + number_text(c.max_abs_error) + ", rtol " +
               number_text(tolerance.rtol) + ", atol " + number_text(tolerance.atol) + ")";
  return fail(std::move(message));
}

}  // namespace cppnn::tool::onnx_tests
