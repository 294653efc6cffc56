// Detection pre-processing (resize, pad, ImageNet normalization) and the mapping of the boxes
// found in the probability map back to the image.
#include "detect.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ocr {

std::vector<float> detector_input(const Image& image, int width, int height, double& scale) {
  static constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
  static constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};
  scale = std::min(static_cast<double>(width) / image.width,
                   static_cast<double>(height) / image.height);
  const int w = std::clamp(static_cast<int>(std::lround(image.width * scale)), 1, width);
  const int h = std::clamp(static_cast<int>(std::lround(image.height * scale)), 1, height);
  const Image resized = resize(image, w, h);
  const size_t plane = static_cast<size_t>(width) * height;
  std::vector<float> input(3 * plane, 0.0f);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        input[c * plane + static_cast<size_t>(y) * width + x] =
            (resized.at(x, y, c) / 255.0f - kMean[c]) / kStd[c];
  return input;
}

std::vector<Box> detect_text(Model& detector, const Image& image, const BoxParams& params) {
  const std::vector<uint32_t>& in = detector.input_shape();
  const std::vector<uint32_t>& out = detector.output_shape();
  if (in.size() != 4 || in[0] != 1 || in[1] != 3)
    throw std::runtime_error("the detector's input must be [1, 3, H, W]");
  if (out.size() != 4 || out[0] != 1 || out[1] != 1 || out[2] != in[2] || out[3] != in[3])
    throw std::runtime_error("the detector's output must be [1, 1, H, W]");
  const int width = static_cast<int>(in[3]), height = static_cast<int>(in[2]);
  double scale = 1;
  const std::vector<float> map = detector.run(detector_input(image, width, height, scale));

  std::vector<Box> boxes;
  for (const Box& b : text_boxes(map, width, height, params)) {
    auto to_image = [scale](int v, int limit) {  // clamped as a double: no int overflow
      return static_cast<int>(std::lround(std::clamp(v / scale, 0.0, double(limit))));
    };
    Box mapped{to_image(b.x0, image.width), to_image(b.y0, image.height),
               to_image(b.x1, image.width), to_image(b.y1, image.height)};
    if (mapped.width() > 0 && mapped.height() > 0) boxes.push_back(mapped);
  }
  return boxes;
}

}  // namespace ocr
