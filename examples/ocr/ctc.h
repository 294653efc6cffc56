// Recognition post-processing of the OCR example: the character list of a PaddleOCR recognizer
// and greedy CTC decoding of its per-step class probabilities. Pure functions, no I/O beyond
// reading the keys file.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace ocr {

// The classes of a PaddleOCR recognizer: class 0 is the CTC blank, class i (1..N) is line i-1
// of the keys file, class N+1 is a space (use_space_char).
class CharacterSet {
 public:
  // From the keys, one UTF-8 string per class 1..N.
  explicit CharacterSet(std::vector<std::string> keys) : keys_(std::move(keys)) {}
  // Reads a keys file (one character per line, '\r' ignored). std::runtime_error when the file
  // cannot be read or holds no key.
  static CharacterSet load(const std::string& path);
  // Blank + keys + space.
  size_t class_count() const { return keys_.size() + 2; }
  // The text of class `c` (1 <= c < class_count()).
  const std::string& text(size_t c) const;

 private:
  std::vector<std::string> keys_;
  std::string space_ = " ";
};

// Greedy CTC: the argmax class of each of the `steps` rows of `probs` (steps x classes,
// row-major), repeats merged, blanks (class 0) dropped, the rest mapped through `chars`.
// std::invalid_argument when the sizes do not match.
std::string ctc_greedy_decode(std::span<const float> probs, size_t steps, size_t classes,
                              const CharacterSet& chars);

}  // namespace ocr
