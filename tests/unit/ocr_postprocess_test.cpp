// The model-free pieces of the OCR example (examples/ocr): connected components, DB unclip and
// reading order of the detection post-processing, and greedy CTC decoding.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "examples/ocr/boxes.h"
#include "examples/ocr/ctc.h"

namespace ocr {
namespace {

// A width x height map of zeros with the rectangles [x0, x1) x [y0, y1) set to `value`.
std::vector<float> map_with(int width, int height, const std::vector<Box>& rects,
                            float value = 0.9f) {
  std::vector<float> map(static_cast<size_t>(width) * height, 0.0f);
  for (const Box& r : rects)
    for (int y = r.y0; y < r.y1; ++y)
      for (int x = r.x0; x < r.x1; ++x) map[static_cast<size_t>(y) * width + x] = value;
  return map;
}

TEST(OcrBoxes, ComponentsAreFourConnected) {
  // Two rectangles touching only at a corner are two components; an L shape is one.
  std::vector<float> map =
      map_with(10, 8, {{0, 0, 2, 2}, {2, 2, 4, 4}, {6, 0, 7, 5}, {6, 4, 9, 5}});
  const std::vector<Component> c = connected_components(map, 10, 8, 0.3f);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].box, (Box{0, 0, 2, 2}));
  EXPECT_EQ(c[0].pixels, 4);
  EXPECT_EQ(c[1].box, (Box{6, 0, 9, 5}));
  EXPECT_EQ(c[1].pixels, 7);
  EXPECT_EQ(c[2].box, (Box{2, 2, 4, 4}));
  EXPECT_FLOAT_EQ(c[2].mean_score, 0.9f);
}

TEST(OcrBoxes, ThresholdIsInclusiveAndNaNIsBackground) {
  std::vector<float> map = {0.3f, 0.29f, std::numeric_limits<float>::quiet_NaN(), 0.5f};
  const std::vector<Component> c = connected_components(map, 4, 1, 0.3f);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].box, (Box{0, 0, 1, 1}));
  EXPECT_EQ(c[1].box, (Box{3, 0, 4, 1}));
}

TEST(OcrBoxes, ComponentsRejectAMismatchedMap) {
  std::vector<float> map(11, 0.0f);
  EXPECT_THROW(connected_components(map, 4, 3, 0.3f), std::invalid_argument);
}

TEST(OcrBoxes, UnclipGrowsByAreaTimesRatioOverPerimeter) {
  // 40 x 10: area 400, perimeter 100, ratio 1.5 -> 6 pixels on every side.
  EXPECT_EQ(unclip({20, 20, 60, 30}, 1.5f, 100, 100), (Box{14, 14, 66, 36}));
  // Clamped to the map.
  EXPECT_EQ(unclip({2, 1, 42, 11}, 1.5f, 45, 100), (Box{0, 0, 45, 17}));
  // A larger ratio grows more.
  EXPECT_EQ(unclip({20, 20, 60, 30}, 2.0f, 100, 100), (Box{12, 12, 68, 38}));
}

TEST(OcrBoxes, TextBoxesDropTinyAndFaintComponents) {
  std::vector<float> map = map_with(64, 32, {{4, 4, 30, 10}, {40, 4, 42, 6}});  // kept, tiny
  for (int x = 4; x < 30; ++x) map[20 * 64 + x] = 0.4f;  // a faint 1-pixel line: tiny too
  for (int y = 24; y < 30; ++y)
    for (int x = 40; x < 60; ++x) map[y * 64 + x] = 0.5f;  // faint: mean below 0.6
  const std::vector<Box> boxes = text_boxes(map, 64, 32);
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_EQ(boxes[0], unclip({4, 4, 30, 10}, 1.5f, 64, 32));
}

TEST(OcrBoxes, ReadingOrderIsTopToBottomThenLeftToRight) {
  // Two boxes on one line (the right one starts a little higher) above a third.
  std::vector<Box> boxes = {{0, 40, 50, 60}, {60, 8, 90, 28}, {0, 10, 50, 30}};
  sort_reading_order(boxes);
  EXPECT_EQ(boxes, (std::vector<Box>{{0, 10, 50, 30}, {60, 8, 90, 28}, {0, 40, 50, 60}}));
}

// Probabilities for `steps` steps over 5 classes, one-hot at `argmax[t]`.
std::vector<float> one_hot(const std::vector<size_t>& argmax) {
  std::vector<float> p(argmax.size() * 5, 0.01f);
  for (size_t t = 0; t < argmax.size(); ++t) p[t * 5 + argmax[t]] = 0.9f;
  return p;
}

TEST(OcrCtc, MergesRepeatsAndDropsBlanks) {
  const CharacterSet chars({"a", "b", "\xe4\xb8\xad"});  // classes: blank a b 中 space
  EXPECT_EQ(ctc_greedy_decode(one_hot({1, 1, 0, 1, 2, 2, 0}), 7, 5, chars), "aab");
  EXPECT_EQ(ctc_greedy_decode(one_hot({0, 3, 4, 4, 2}), 5, 5, chars), "\xe4\xb8\xad b");
  EXPECT_EQ(ctc_greedy_decode(one_hot({0, 0}), 2, 5, chars), "");
}

TEST(OcrCtc, RejectsMismatchedSizes) {
  const CharacterSet chars({"a", "b", "c"});
  EXPECT_THROW(ctc_greedy_decode(one_hot({1, 2}), 3, 5, chars), std::invalid_argument);
  const CharacterSet fewer({"a", "b"});  // 4 classes, the output has 5
  EXPECT_THROW(ctc_greedy_decode(one_hot({1, 2}), 2, 5, fewer), std::invalid_argument);
  EXPECT_THROW(chars.text(0), std::out_of_range);
  EXPECT_THROW(chars.text(5), std::out_of_range);
}

}  // namespace
}  // namespace ocr
