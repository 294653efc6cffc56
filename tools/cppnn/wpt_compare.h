// The WPT conformance comparison rules (shared/wpt/README.md §4, WPT webnn/resources/utils.js):
// the JS number conversions the harness applies to input and expected data, the ULP and absolute
// error metrics, and the element-wise check of one output. Depends on nothing but the data type
// enum, so that unit tests can exercise it without the tool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "cppnn/data_type.h"
#include "tools/cppnn/exact_number.h"

namespace cppnn::tool::wpt {

// A number of the corpus: a double, or an exact 64-bit integer (JSON integers, written exactly
// for int64/uint64 data); messages print its doubles with format_double().
using JsNumber = ExactNumber;

// ---- conversions the harness applies ------------------------------------------------------------

// JavaScript's Math.fround: round to nearest even; beyond the float32 range +-Infinity.
float js_fround(double x);
// WPT's toHalf(Float32(x)): the float32 rounding, then James Tursa's conversion (round half up in
// magnitude on the 11th mantissa bit, float32 exponents below 103 flush to signed zero, above 142
// give Infinity; NaN gives the quiet NaN 0x7e00).
uint16_t wpt_to_half(double x);
// The bits JavaScript's typed array of `type` stores for `v` (float32 rounds, float16 through
// wpt_to_half, 8/32-bit integers wrap modulo 2^n, int64/uint64 wrap modulo 2^64, int4/uint4 are
// the low 4 bits), as the low bytes of a uint64.
uint64_t js_typed_bits(MLOperandDataType type, const JsNumber& v);

// ---- metrics ------------------------------------------------------------------------------------

// WPT's float32 ULP distance: the bit pattern of |x| negated for negative x, so -0 and +0 are
// the same and distances across zero add up.
uint64_t float32_ulp_distance(float a, float b);
// WPT's float16 ULP distance: |a - b| of the raw 16-bit patterns (sign bit included), 0 when both
// are zeros.
uint64_t float16_ulp_distance(uint16_t a, uint16_t b);

enum class Metric : uint8_t { kUlp, kAtol };
struct Tolerance {
  Metric metric = Metric::kUlp;
  double value = 0;
};
// "ULP" / "ATOL".
const char* metric_name(Metric m);

// One element's check: whether it passes and its error in the metric's unit (ULP distance, or
// absolute error; +Infinity for a NaN or infinity mismatch).
struct ElementCheck {
  bool pass = true;
  double error = 0;
};

// A float32 result against an expected number (rounded to float32 first). A NaN expected accepts
// any NaN; an infinity on either side must match exactly. `exact` additionally requires
// identical values, the sign of zero included (WPT exactCompare).
ElementCheck check_float32(float actual, const JsNumber& expected, const Tolerance& t, bool exact);
// A float16 result (raw bits) against an expected number (through wpt_to_half for ULP and
// exactCompare; ATOL compares the decoded value with the expected double).
ElementCheck check_float16(uint16_t actual, const JsNumber& expected, const Tolerance& t,
                           bool exact);
// An integer result against an expected number: the plain |a - b| (exact for 64-bit values).
ElementCheck check_integer(const JsNumber& actual, const Tolerance& t, const JsNumber& expected);

// The check of one output tensor: `expected` holds one number per element, or one number that
// every element is checked against (only the first min(1000, count) elements then, as WPT does).
struct OutputCheck {
  size_t checked = 0;     // elements compared
  size_t mismatches = 0;  // elements that failed
  double max_error = 0;   // largest error over the compared elements
  std::string first;      // the first mismatch: "[index] got X, expected Y (error E)"
};
// `actual` is the tensor's bytes (int4/uint4 packed two per byte, low nibble first) holding
// `count` elements of `type`.
OutputCheck check_output(MLOperandDataType type, std::span<const std::byte> actual, size_t count,
                         std::span<const JsNumber> expected, const Tolerance& t, bool exact);

// The element i of a tensor's bytes as a JsNumber (float16 decoded; int4 sign-extended).
JsNumber element_of(MLOperandDataType type, std::span<const std::byte> bytes, size_t i);

}  // namespace cppnn::tool::wpt
