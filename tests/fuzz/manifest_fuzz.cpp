// libFuzzer target: the weights manifest (webnn-graph-format.md §6.2, §7.3). The input is parsed
// with the strict and the flexible schema; a strict manifest must print and parse back to the
// same text; every entry's range is checked against a small blob and its declaration checked
// (§6.2) without crashing.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/formats/manifest.h"
#include "src/formats/manifest_check.h"
#include "src/formats/manifest_weights.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace cppnn;
using namespace cppnn::formats;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::vector<std::byte> blob(64, std::byte{1});
  if (auto m = parse_manifest_strict(text, "fuzz"); m.ok()) {
    const std::string printed = print_manifest(*m);
    auto again = parse_manifest_strict(printed, "printed");
    CHECK(again.ok());
    CHECK(print_manifest(*again) == printed);
    std::vector<DeclaredWeight> decls;
    for (const auto& [name, e] : m->tensors) decls.push_back({name, name, {e.dataType, e.shape}});
    (void)check_manifest_declarations(*m, decls);
  }
  if (auto m = parse_manifest_flexible(text, "fuzz"); m.ok()) {
    for (const auto& [name, e] : m->tensors) {
      auto r = manifest_range(blob, e.byteOffset, e.byteLength, name, "blob");
      if (r.ok()) CHECK(r->size() == e.byteLength && e.byteOffset + e.byteLength <= blob.size());
    }
  }
  return 0;
}
