// Images for the OCR example: 8-bit RGB pixels in memory, read from any format stb_image knows
// (PNG, JPEG, BMP, GIF, TGA, PSD, PNM...), written as PNG, cropped and resized.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ocr {

// An 8-bit RGB image, rows top to bottom, 3 bytes per pixel.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;

  // A width x height image filled with one gray level.
  static Image filled(int width, int height, uint8_t value);
  // The byte of channel `c` (0 R, 1 G, 2 B) of pixel (x, y).
  uint8_t at(int x, int y, int c) const {
    return rgb[(static_cast<size_t>(y) * width + x) * 3 + c];
  }
  uint8_t& at(int x, int y, int c) { return rgb[(static_cast<size_t>(y) * width + x) * 3 + c]; }
};

// Reads an image file (converted to RGB). Throws std::runtime_error naming the file and the
// decoder's reason when it cannot.
Image load_image(const std::string& path);
// Writes `image` as a PNG file. Throws std::runtime_error when it cannot.
void save_png(const Image& image, const std::string& path);
// The pixels of [x0, x1) x [y0, y1), clamped to the image (at least 1x1).
Image crop(const Image& image, int x0, int y0, int x1, int y1);
// `image` resampled to width x height (both >= 1).
Image resize(const Image& image, int width, int height);

}  // namespace ocr
