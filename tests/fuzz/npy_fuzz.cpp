// libFuzzer target: the .npy reader of `cppnn run --input NAME=FILE.npy` (tools/cppnn/npy.cpp).
// Parses the input; an array it accepts must hold exactly the bytes its dtype and shape need,
// and writing it back (format_npy) must give a file that parses to the same array.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "tests/fuzz/fuzz_check.h"
#include "tools/cppnn/npy.h"

namespace {

using namespace cppnn;
using namespace cppnn::tool;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = parse_npy(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.npy");
  if (!parsed.ok()) {
    CHECK(!parsed.error().message.empty());
    return 0;
  }
  uint64_t bytes = data_type_bits(parsed->dataType) / 8;
  for (uint32_t d : parsed->shape) bytes *= d;  // fits: the reader checked the byte size
  CHECK(parsed->data.size() == bytes);
  CHECK(!npy_dtype(parsed->dataType).empty());
  auto written = format_npy(*parsed);
  CHECK(written.ok());
  CHECK(written->size() % 64 == parsed->data.size() % 64);  // the header is padded to 64 bytes
  auto again = parse_npy(*written, "again.npy");
  CHECK(again.ok());
  CHECK(again->dataType == parsed->dataType);
  CHECK(again->shape == parsed->shape);
  CHECK(again->data == parsed->data);
  return 0;
}
