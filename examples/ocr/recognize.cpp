// Recognition pre-processing (aspect-preserving resize, BGR, symmetric normalization, right
// padding) and the CTC decoding of the recognizer's output.
#include "recognize.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ocr {

std::vector<float> recognizer_input(const Image& line, int width, int height) {
  const double aspect = static_cast<double>(line.width) / line.height;
  // Clamped as a double: a very wide line must not overflow the int.
  const int w = static_cast<int>(std::clamp(std::ceil(height * aspect), 1.0, double(width)));
  const Image resized = resize(line, w, height);
  const size_t plane = static_cast<size_t>(width) * height;
  std::vector<float> input(3 * plane, 0.0f);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < w; ++x)
        input[c * plane + static_cast<size_t>(y) * width + x] =
            (resized.at(x, y, 2 - c) / 255.0f - 0.5f) / 0.5f;  // plane 0 is blue
  return input;
}

std::string recognize_line(Model& recognizer, const Image& line, const CharacterSet& chars) {
  const std::vector<uint32_t>& in = recognizer.input_shape();
  const std::vector<uint32_t>& out = recognizer.output_shape();
  if (in.size() != 4 || in[0] != 1 || in[1] != 3)
    throw std::runtime_error("the recognizer's input must be [1, 3, H, W]");
  if (out.size() != 3 || out[0] != 1)
    throw std::runtime_error("the recognizer's output must be [1, steps, classes]");
  const std::vector<float> probs =
      recognizer.run(recognizer_input(line, static_cast<int>(in[3]), static_cast<int>(in[2])));
  return ctc_greedy_decode(probs, out[1], out[2], chars);
}

}  // namespace ocr
