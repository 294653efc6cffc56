// Decoder steps (HF decoders/*.rs decode_chain semantics): each maps the list of token strings
// to a new list; the result is their concatenation.
#include <utility>

#include "src/llm/tokenizer_byte_level.h"
#include "src/llm/tokenizer_pipeline.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm::detail {
namespace {

// ByteLevel: every token's characters mapped back to bytes (a token with a character outside
// the map keeps its own bytes), all concatenated and read as UTF-8 with U+FFFD substitution.
std::vector<std::string> byte_level(const std::vector<std::string>& tokens) {
  std::string bytes;
  for (const std::string& t : tokens) {
    if (std::optional<std::string> b = byte_level_decode(t)) {
      bytes += *b;
    } else {
      bytes += t;
    }
  }
  return {utf8_lossy(bytes)};
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The byte a "<0xXX>" token stands for (Rust's u8::from_str_radix on "XX", which also takes
// "+X"), or -1.
int byte_fallback_value(std::string_view token) {
  if (token.size() != 6 || token.substr(0, 3) != "<0x" || token[5] != '>') return -1;
  if (token[3] == '+') return hex_digit(token[4]);
  const int hi = hex_digit(token[3]);
  const int lo = hex_digit(token[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// ByteFallback: each run of <0xXX> tokens becomes its bytes when they are valid UTF-8, else one
// U+FFFD per byte.
std::vector<std::string> byte_fallback(std::vector<std::string> tokens) {
  std::vector<std::string> out;
  std::string run;
  auto flush = [&] {
    if (run.empty()) return;
    if (is_valid_utf8(run)) {
      out.push_back(run);
    } else {
      for (size_t k = 0; k < run.size(); ++k) out.emplace_back(kReplacementUtf8);
    }
    run.clear();
  };
  for (std::string& t : tokens) {
    const int b = byte_fallback_value(t);
    if (b >= 0) {
      run += static_cast<char>(b);
      continue;
    }
    flush();
    out.push_back(std::move(t));
  }
  flush();
  return out;
}

// Strip: up to `start` leading and `stop` trailing `content` characters off each token.
std::string strip(const std::string& token, std::string_view content, uint32_t start,
                  uint32_t stop) {
  std::vector<size_t> offsets;  // character starts, plus the end
  for (size_t i = 0; i < token.size(); i += decode_utf8(token, i).length) offsets.push_back(i);
  offsets.push_back(token.size());
  const size_t n = offsets.size() - 1;
  auto is_content = [&](size_t k) {
    return std::string_view(token).substr(offsets[k], offsets[k + 1] - offsets[k]) == content;
  };
  size_t first = 0;
  while (first < n && first < start && is_content(first)) ++first;
  size_t last = n;
  for (uint32_t k = 0; k < stop && last > first && is_content(last - 1); ++k) --last;
  return token.substr(offsets[first], offsets[last] - offsets[first]);
}

// Metaspace: the replacement becomes a space, except in the first token (unless the
// prepend scheme is "never"), where it is dropped.
std::vector<std::string> metaspace(const DecoderStep& step, std::vector<std::string> tokens,
                                   bool at_text_start) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool drop = at_text_start && i == 0 && step.prepend_scheme != PrependScheme::kNever;
    tokens[i] = replace_all(tokens[i], step.replacement, drop ? "" : " ");
  }
  return tokens;
}

std::vector<std::string> apply_step(const DecoderStep& step, std::vector<std::string> tokens,
                                    bool at_text_start) {
  switch (step.kind) {
    case DecoderStep::Kind::kByteLevel:
      return byte_level(tokens);
    case DecoderStep::Kind::kReplace:
      for (std::string& t : tokens) t = replace_all(t, step.pattern, step.content);
      return tokens;
    case DecoderStep::Kind::kByteFallback:
      return byte_fallback(std::move(tokens));
    case DecoderStep::Kind::kFuse: {
      std::string all;
      for (const std::string& t : tokens) all += t;
      return {all};
    }
    case DecoderStep::Kind::kStrip:
      for (std::string& t : tokens)
        t = strip(t, step.content, at_text_start ? step.start : 0, step.stop);
      return tokens;
    case DecoderStep::Kind::kMetaspace:
      return metaspace(step, std::move(tokens), at_text_start);
  }
  return tokens;
}

}  // namespace

std::string decode_tokens(const std::vector<DecoderStep>& steps, std::vector<std::string> tokens,
                          bool at_text_start) {
  std::string out;
  if (steps.empty()) {
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i) out += ' ';
      out += tokens[i];
    }
    return out;
  }
  for (const DecoderStep& step : steps) tokens = apply_step(step, std::move(tokens), at_text_start);
  for (const std::string& t : tokens) out += t;
  return out;
}

}  // namespace cppnn::llm::detail
