// The keys file and greedy CTC decoding (argmax per step, merge repeats, drop blanks).
#include "ctc.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace ocr {

CharacterSet CharacterSet::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read keys file " + path);
  std::vector<std::string> keys;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    keys.push_back(line);
  }
  if (keys.empty()) throw std::runtime_error("keys file " + path + " is empty");
  return CharacterSet(std::move(keys));
}

const std::string& CharacterSet::text(size_t c) const {
  if (c == 0 || c >= class_count())
    throw std::out_of_range("no character for class " + std::to_string(c));
  return c <= keys_.size() ? keys_[c - 1] : space_;
}

std::string ctc_greedy_decode(std::span<const float> probs, size_t steps, size_t classes,
                              const CharacterSet& chars) {
  if (classes == 0 || probs.size() != steps * classes)
    throw std::invalid_argument("CTC input size does not match steps x classes");
  if (classes != chars.class_count())
    throw std::invalid_argument("the recognizer has " + std::to_string(classes) +
                                " classes but the keys give " +
                                std::to_string(chars.class_count()));
  std::string text;
  size_t previous = 0;
  for (size_t t = 0; t < steps; ++t) {
    const auto row = probs.subspan(t * classes, classes);
    const size_t best = static_cast<size_t>(std::max_element(row.begin(), row.end()) - row.begin());
    if (best != 0 && best != previous) text += chars.text(best);
    previous = best;
  }
  return text;
}

}  // namespace ocr
