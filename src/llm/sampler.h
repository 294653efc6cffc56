// Choosing the next token from a step's logits (GenerationOptions, include/cppnn/llm.h): greedy
// decoding, or the repetition penalty, temperature, top-k and top-p (nucleus) in the order
// Hugging Face transformers applies them, then a draw from a seeded generator whose results do
// not depend on the platform's standard library.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cppnn::llm {

// What the sampler does (the fields of GenerationOptions it uses).
struct SamplingParams {
  float temperature = 0.0f;  // <= 0: greedy
  uint32_t top_k = 0;        // 0: all tokens
  float top_p = 1.0f;        // >= 1: all tokens
  float repetition_penalty = 1.0f;
  uint32_t repetition_window = 64;
};

// SplitMix64-seeded xoshiro256** (public-domain algorithms by Vigna and Blackman), so that a
// seed gives the same tokens on every platform.
class Random {
 public:
  explicit Random(uint64_t seed);
  uint64_t next();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();

 private:
  uint64_t s_[4];
};

// A sampler with its random state.
class Sampler {
 public:
  explicit Sampler(uint64_t seed) : random_(seed) {}
  // The next token for `logits` (one per vocabulary entry) after the context `history`.
  int32_t sample(std::span<const float> logits, std::span<const int32_t> history,
                 const SamplingParams& params);

 private:
  Random random_;
  std::vector<float> scratch_;
  std::vector<int32_t> order_;
};

// The index of the largest value (the lowest among equals; NaN never wins).
int32_t argmax(std::span<const float> values);

}  // namespace cppnn::llm
