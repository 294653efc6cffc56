// libFuzzer target: the GGUF reader (src/import/gguf/gguf_file.h) and its tensor kinds
// (gguf_quant.h). A rejected input must be a DataError naming the file; an accepted one is walked
// whole: every key through every typed getter, every array element, every tensor (its bytes
// inside the input, no two overlapping), and tensors up to a size bound dequantized and turned
// into their WebNN form, whose values must equal the dequantized ones bit for bit (NaN for NaN).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "src/import/gguf/gguf_file.h"
#include "src/import/gguf/gguf_quant.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace cppnn;
using namespace cppnn::gguf;

constexpr uint64_t kMaxDequantizedElements = uint64_t{1} << 16;
constexpr uint64_t kMaxWalkedElements = 4096;

// Every element of a value, nested arrays included (up to a bound per array).
void walk(const GgufValue& v) {
  (void)v.type_string();
  (void)value_as_uint(v);
  (void)value_as_int(v);
  (void)value_as_float(v);
  (void)value_as_bool(v);
  (void)value_as_string(v);
  if (v.type != GgufValueType::kArray) return;
  (void)value_as_string_array(v);
  (void)value_as_int_array(v);
  (void)value_as_float_array(v);
  if (v.element_type == GgufValueType::kString) CHECK(v.strings.size() == v.count);
  if (v.element_type == GgufValueType::kArray) {
    CHECK(v.arrays.size() == v.count);
    for (const GgufValue& a : v.arrays) walk(a);
  }
  if (value_type_size(v.element_type) != 0) {
    CHECK(v.packed.size() == v.count * value_type_size(v.element_type));
    for (uint64_t i = 0; i < std::min(v.count, kMaxWalkedElements); ++i) walk(v.packed_element(i));
  }
}

void check_tensor(const GgufFile& f, const GgufTensor& t, std::span<const std::byte> input) {
  CHECK(f.find_tensor(t.name) == &t);
  CHECK(t.data.size() == t.byte_size);
  CHECK(t.data.empty() || (t.data.data() >= input.data() &&
                           t.data.data() + t.data.size() <= input.data() + input.size()));
  CHECK(!t.dims.empty() && t.dims.size() <= kMaxDims);
  CHECK(t.dims[0] % kind_info(t.kind).block == 0);
  const Status supported = check_supported(t);
  if (!supported.ok()) {
    CHECK(supported.error().kind == ErrorKind::kNotSupportedError);
    CHECK(!dequantize(t).ok());
    CHECK(!to_webnn_weight(t).ok());
    return;
  }
  if (t.element_count > kMaxDequantizedElements) return;
  auto values = dequantize(t);
  CHECK(values.ok());
  auto weight = to_webnn_weight(t);
  CHECK(weight.ok());
  CHECK(weight->shape.size() == t.dims.size());
  auto from_weight = webnn_weight_values(*weight);
  CHECK(from_weight.ok());
  CHECK(from_weight->size() == values->size());
  // Bit for bit, except that a NaN (from NaN or infinite float16 scales) may differ in sign
  // and payload, which IEEE 754 leaves open.
  for (size_t i = 0; i < values->size(); ++i) {
    const float a = (*values)[i], b = (*from_weight)[i];
    CHECK(std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, sizeof a) == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  auto parsed = GgufFile::parse(input, nullptr, "fuzz.gguf");
  if (!parsed.ok()) {
    CHECK(parsed.error().kind == ErrorKind::kDataError);
    CHECK(parsed.error().message.rfind("GGUF `fuzz.gguf`: ", 0) == 0);
    return 0;
  }
  const GgufFile& f = **parsed;
  CHECK(f.version() == 2 || f.version() == 3);
  CHECK(f.alignment() != 0 && (f.alignment() & (f.alignment() - 1)) == 0);
  for (const GgufKeyValue& kv : f.metadata()) {
    CHECK(!kv.key.empty());
    CHECK(f.find(kv.key) == &kv.value);
    walk(kv.value);
  }
  std::vector<std::pair<const std::byte*, const std::byte*>> ranges;
  for (const GgufTensor& t : f.tensors()) {
    check_tensor(f, t, input);
    if (!t.data.empty()) ranges.emplace_back(t.data.data(), t.data.data() + t.data.size());
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].second <= ranges[i].first);
  return 0;
}
