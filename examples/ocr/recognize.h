// Text recognition with PaddleOCR's CRNN-style recognizer (ch_PP-OCRv4_rec): one line image
// resized to the graph's fixed input height, normalized, run, and decoded by greedy CTC.
#pragma once

#include <string>
#include <vector>

#include "ctc.h"
#include "image.h"
#include "model.h"

namespace ocr {

// The recognizer's input for a line image: resized to `height` keeping its aspect ratio (its
// width capped at `width`), channels in BGR order normalized as (x / 255 - 0.5) / 0.5, padded
// on the right with 0 (mid-gray), NCHW [1, 3, height, width].
std::vector<float> recognizer_input(const Image& line, int width, int height);

// The text of a line image. `recognizer` takes [1, 3, H, W] and returns [1, steps, classes]
// probabilities.
std::string recognize_line(Model& recognizer, const Image& line, const CharacterSet& chars);

}  // namespace ocr
