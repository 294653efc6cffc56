// Detection post-processing of the OCR example, in the manner of PaddleOCR's DB post-processing
// (DBPostProcess) with axis-aligned boxes: threshold the text probability map, find connected
// components, drop tiny or faint ones, expand ("unclip") each bounding box, and sort the boxes
// in reading order. Pure functions of the map, no I/O.
#pragma once

#include <span>
#include <vector>

namespace ocr {

// An axis-aligned box [x0, x1) x [y0, y1) in pixels.
struct Box {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
  friend bool operator==(const Box&, const Box&) = default;
};

// One connected component of the thresholded map: its bounding box, pixel count and mean
// probability over its pixels.
struct Component {
  Box box;
  int pixels = 0;
  float mean_score = 0;
};

// The parameters of DB post-processing (PaddleOCR's defaults).
struct BoxParams {
  float threshold = 0.3f;      // a pixel is text when its probability is at least this
  float box_threshold = 0.6f;  // a component is kept when its mean probability is at least this
  int min_size = 3;            // ... and its bounding box's short side at least this
  float unclip_ratio = 1.5f;   // expansion distance = area * ratio / perimeter
};

// The 4-connected components of the pixels of `map` (width x height, row-major) >= threshold,
// in raster order of their first pixel. std::invalid_argument when map.size() != width * height.
std::vector<Component> connected_components(std::span<const float> map, int width, int height,
                                            float threshold);

// `box` grown on every side by DB's unclip distance area * ratio / perimeter (the offset that
// PaddleOCR applies to the shrunk text kernel), clamped to [0, width) x [0, height).
Box unclip(const Box& box, float ratio, int width, int height);

// The text boxes of a probability map, in map coordinates and reading order.
std::vector<Box> text_boxes(std::span<const float> map, int width, int height,
                            const BoxParams& params = {});

// Sorts boxes top to bottom, and left to right for boxes on the same line (vertical centres
// closer than half the smaller height).
void sort_reading_order(std::vector<Box>& boxes);

}  // namespace ocr
