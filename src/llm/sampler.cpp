#include "src/llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace cppnn::llm {

Random::Random(uint64_t seed) {
  for (uint64_t& s : s_) {  // SplitMix64
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s = z ^ (z >> 31);
  }
}

uint64_t Random::next() {  // xoshiro256**
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Random::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

int32_t argmax(std::span<const float> values) {
  int32_t best = 0;
  float best_value = -std::numeric_limits<float>::infinity();
  bool found = false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) continue;
    if (!found || values[i] > best_value) {
      best = static_cast<int32_t>(i);
      best_value = values[i];
      found = true;
    }
  }
  return best;
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history,
                        const SamplingParams& params) {
  scratch_.assign(logits.begin(), logits.end());
  std::vector<float>& x = scratch_;
  const int32_t n = static_cast<int32_t>(x.size());
  // Repetition penalty (transformers' RepetitionPenaltyLogitsProcessor, over the last window):
  // each distinct token once.
  if (params.repetition_penalty != 1.0f && params.repetition_window > 0) {
    const size_t from =
        history.size() > params.repetition_window ? history.size() - params.repetition_window : 0;
    std::vector<int32_t> seen(history.begin() + static_cast<std::ptrdiff_t>(from), history.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (int32_t t : seen) {
      if (t < 0 || t >= n) continue;
      float& v = x[static_cast<size_t>(t)];
      v = v > 0 ? v / params.repetition_penalty : v * params.repetition_penalty;
    }
  }
  if (params.temperature <= 0.0f) return argmax(x);
  for (float& v : x) v /= params.temperature;

  // Candidates by decreasing logit (ties by id), cut to top-k.
  order_.resize(static_cast<size_t>(n));
  std::iota(order_.begin(), order_.end(), 0);
  auto by_logit = [&](int32_t a, int32_t b) {
    const float va = x[static_cast<size_t>(a)], vb = x[static_cast<size_t>(b)];
    if (std::isnan(va) != std::isnan(vb)) return std::isnan(vb);
    return va > vb || (va == vb && a < b);
  };
  size_t keep = order_.size();
  if (params.top_k > 0 && params.top_k < keep) {
    keep = params.top_k;
    std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(keep),
                      order_.end(), by_logit);
  } else {
    std::sort(order_.begin(), order_.end(), by_logit);
  }
  order_.resize(keep);
  // Softmax over the candidates (in double), then top-p: the smallest prefix whose probability
  // reaches top_p (at least one token).
  const float top = x[static_cast<size_t>(order_[0])];
  if (!std::isfinite(top)) return order_[0];
  std::vector<double> p(keep);
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) {
    const float v = x[static_cast<size_t>(order_[i])];
    p[i] = std::isnan(v) ? 0.0 : std::exp(static_cast<double>(v) - top);
    sum += p[i];
  }
  if (params.top_p < 1.0f) {
    double cumulative = 0;
    size_t cut = keep;
    for (size_t i = 0; i < keep; ++i) {
      cumulative += p[i] / sum;
      if (cumulative >= params.top_p) {
        cut = i + 1;
        break;
      }
    }
    keep = cut;
    sum = std::accumulate(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(keep), 0.0);
  }
  double r = random_.uniform() * sum;
  for (size_t i = 0; i < keep; ++i) {
    r -= p[i];
    if (r < 0) return order_[i];
  }
  return order_[keep - 1];
}

}  // namespace cppnn::llm
