// libFuzzer target: the `.llm.json` sidecar of `cppnn convert-gguf` (src/llm/llm_package.h). A
// package that parses must print and parse back to the same text, and its tokenizer is built
// (Tokenizer::from_spec) and run on a short text without crashing.
#include <cstdint>
#include <string>

#include "src/llm/llm_package.h"
#include "src/llm/tokenizer.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cppnn::llm;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto package = parse_llm_package(text, "fuzz");
  if (!package.ok()) return 0;
  const std::string printed = llm_package_json(*package);
  auto again = parse_llm_package(printed, "printed");
  CHECK(again.ok());
  CHECK(llm_package_json(*again) == printed);
  if (package->tokenizer.tokens.size() <= 4096) {
    if (auto tokenizer = Tokenizer::from_spec(package->tokenizer); tokenizer.ok()) {
      const std::vector<int32_t> ids = tokenizer->encode("Hello, world! 123 <|im_start|>");
      (void)tokenizer->decode(ids);
    }
  }
  return 0;
}
