// Text detection with PaddleOCR's DB detector (ch_PP-OCRv4_det): the image resized into the
// graph's fixed input, normalized, run, and the probability map turned into boxes.
#pragma once

#include <vector>

#include "boxes.h"
#include "image.h"
#include "model.h"

namespace ocr {

// The detector's input for `image`: resized keeping its aspect ratio to fit width x height
// (top-left aligned; the rest is padding of normalized 0), RGB scaled to [0, 1] and normalized
// with the ImageNet mean and standard deviation, NCHW. `scale` receives the resize factor.
std::vector<float> detector_input(const Image& image, int width, int height, double& scale);

// The text boxes of `image` in image coordinates and reading order. `detector` takes
// [1, 3, H, W] and returns the probability map [1, 1, H, W].
std::vector<Box> detect_text(Model& detector, const Image& image, const BoxParams& params = {});

}  // namespace ocr
