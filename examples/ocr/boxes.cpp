// Connected components by an iterative flood fill, DB unclip, reading order.
#include "boxes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace ocr {

std::vector<Component> connected_components(std::span<const float> map, int width, int height,
                                            float threshold) {
  if (width < 0 || height < 0 ||
      map.size() != static_cast<size_t>(width) * static_cast<size_t>(height))
    throw std::invalid_argument("probability map size does not match its width and height");
  std::vector<Component> components;
  std::vector<uint8_t> seen(map.size(), 0);
  std::vector<size_t> stack;
  for (size_t start = 0; start < map.size(); ++start) {
    if (seen[start] || !(map[start] >= threshold)) continue;
    const int sx = static_cast<int>(start % width), sy = static_cast<int>(start / width);
    Component c{{sx, sy, sx + 1, sy + 1}, 0, 0};
    double score = 0;
    seen[start] = 1;
    stack.assign(1, start);
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      const int x = static_cast<int>(i % width), y = static_cast<int>(i / width);
      ++c.pixels;
      score += map[i];
      c.box = {std::min(c.box.x0, x), std::min(c.box.y0, y), std::max(c.box.x1, x + 1),
               std::max(c.box.y1, y + 1)};
      auto visit = [&](int nx, int ny) {
        if (nx < 0 || ny < 0 || nx >= width || ny >= height) return;
        const size_t n = static_cast<size_t>(ny) * width + nx;
        if (seen[n] || !(map[n] >= threshold)) return;
        seen[n] = 1;
        stack.push_back(n);
      };
      visit(x - 1, y);
      visit(x + 1, y);
      visit(x, y - 1);
      visit(x, y + 1);
    }
    c.mean_score = static_cast<float>(score / c.pixels);
    components.push_back(c);
  }
  return components;
}

Box unclip(const Box& box, float ratio, int width, int height) {
  const double area = static_cast<double>(box.width()) * box.height();
  const double perimeter = 2.0 * (box.width() + box.height());
  const int d = perimeter > 0 ? static_cast<int>(std::lround(area * ratio / perimeter)) : 0;
  return {std::max(box.x0 - d, 0), std::max(box.y0 - d, 0), std::min(box.x1 + d, width),
          std::min(box.y1 + d, height)};
}

std::vector<Box> text_boxes(std::span<const float> map, int width, int height,
                            const BoxParams& params) {
  std::vector<Box> boxes;
  for (const Component& c : connected_components(map, width, height, params.threshold)) {
    if (std::min(c.box.width(), c.box.height()) < params.min_size) continue;
    if (c.mean_score < params.box_threshold) continue;
    boxes.push_back(unclip(c.box, params.unclip_ratio, width, height));
  }
  sort_reading_order(boxes);
  return boxes;
}

void sort_reading_order(std::vector<Box>& boxes) {
  auto same_line = [](const Box& a, const Box& b) {
    return std::abs((a.y0 + a.y1) - (b.y0 + b.y1)) < std::min(a.height(), b.height());
  };
  std::stable_sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) {
    return a.y0 != b.y0 ? a.y0 < b.y0 : a.x0 < b.x0;
  });
  // Then left to right within a line (PaddleOCR's sorted_boxes does the same adjacent swaps).
  for (size_t i = 1; i < boxes.size(); ++i)
    for (size_t j = i; j > 0 && same_line(boxes[j - 1], boxes[j]) && boxes[j].x0 < boxes[j - 1].x0;
         --j)
      std::swap(boxes[j - 1], boxes[j]);
}

}  // namespace ocr
