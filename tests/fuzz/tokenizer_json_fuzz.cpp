// libFuzzer target: the tokenizer.json loader (Tokenizer::from_hf_json) and, on a tokenizer it
// accepts, encode / decode / the stream decoder on fuzzed text. The input is the JSON, then
// optionally a NUL byte and the text to encode (else a fixed sample). Invariants: encoding is
// deterministic (the word cache changes nothing), every id is in the vocabulary, decoded text is
// valid UTF-8, and where the text holds no U+FFFD the stream decoder's pieces add up to it.
#include <cstdint>
#include <string>
#include <string_view>

#include "src/llm/tokenizer.h"
#include "src/llm/unicode_utf8.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cppnn::llm;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos
                                    ? std::string_view("Hello world, it's 2024! <s> caf\xC3\xA9")
                                    : input.substr(nul + 1);
  auto loaded = Tokenizer::from_hf_json(json, "fuzz.json");
  if (!loaded.ok()) return 0;
  const Tokenizer& t = *loaded;
  for (bool parse_special : {true, false}) {
    const EncodeOptions options{.parse_special = parse_special, .add_special = parse_special};
    const std::vector<int32_t> ids = t.encode(text, options);
    CHECK(t.encode(text, options) == ids);
    for (int32_t id : ids) CHECK(id >= 0 && id < t.vocab_size());
    for (bool skip : {false, true}) {
      const std::string decoded = t.decode(ids, {.skip_special = skip});
      CHECK(is_valid_utf8(decoded));
      StreamDecoder stream(t, {.skip_special = skip});
      std::string streamed;
      for (int32_t id : ids) streamed += stream.push(id);
      streamed += stream.finish();
      CHECK(is_valid_utf8(streamed));
      if (decoded.find(kReplacementUtf8) == std::string::npos) CHECK(streamed == decoded);
    }
  }
  // Ids the encoder would never produce decode safely too.
  const std::vector<int32_t> odd = {-1, 0, t.vocab_size() - 1, t.vocab_size(), INT32_MAX};
  CHECK(is_valid_utf8(t.decode(odd)));
  return 0;
}
