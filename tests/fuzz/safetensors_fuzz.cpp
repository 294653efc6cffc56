// libFuzzer target: the SafeTensors reader (webnn-graph-format.md §7.2). Parses the input as an
// archive; when the header is valid, every tensor is served to several declarations (its own
// dtype, float32 from BF16, packed 4-bit), which must either succeed with the declared byte
// length or fail with an error, never crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/formats/safetensors_reader.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace cppnn;
using namespace cppnn::formats;

void try_load(const SafeTensorsFile& file, const std::string& name, MLOperandDescriptor d) {
  auto c = file.load(name, "c", d);
  if (c.ok()) CHECK(c->size() == *declared_byte_length(d));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = std::span(reinterpret_cast<const std::byte*>(data), size);
  auto header = parse_safetensors_header(bytes, "fuzz");
  if (!header.ok()) return 0;
  for (const auto& [name, e] : header->tensors)
    CHECK(header->data_start + e.end <= size && e.begin <= e.end);
  // The reader proper works on a mapped file: put the input in an anonymous one.
  const int fd = memfd_create("fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  auto file = SafeTensorsFile::open("/proc/self/fd/" + std::to_string(fd));
  close(fd);
  CHECK(file.ok());
  for (const auto& [name, e] : (*file)->header().tensors) {
    std::vector<uint32_t> shape;
    bool fits = true;
    for (uint64_t d : e.shape) {
      fits = fits && d <= UINT32_MAX;
      shape.push_back(static_cast<uint32_t>(d));
    }
    if (!fits) continue;
    const auto type = data_type_for(e.dtype);
    try_load(**file, name, {type.value_or(MLOperandDataType::kFloat32), shape});
    try_load(**file, name, {MLOperandDataType::kFloat32, shape});
    try_load(**file, name, {MLOperandDataType::kInt4, shape});
    if (!shape.empty()) try_load(**file, name, {MLOperandDataType::kUint4, {shape[0] * 2}});
    // Normalized lookups run through the name index as well.
    try_load(**file, normalize_weight_name(name), {MLOperandDataType::kUint8, shape});
  }
  return 0;
}
