// Images for the OCR example: 8-bit RGB pixels in memory, read from any format stb_image knows
// (PNG, JPEG, BMP, GIF, TGA, PSD, PNM...; transparency composited on white), written as PNG,
// cropped and resized.
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

// The largest image the example reads or makes: 2^28 pixels (768 MiB of RGB).
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 28;
// The largest image file it reads (stb_image takes the length as an int).
inline constexpr uint64_t kMaxImageFileBytes = uint64_t{1} << 30;

// Reads an image file: only a regular file, of a declared size of at least 1x1 and at most
// kMaxImagePixels (checked before decoding); an alpha channel is composited on white. Throws
// std::runtime_error naming the file and the reason (the decoder's) when it cannot.
Image load_image(const std::string& path);
// Throws std::runtime_error naming `path` unless width x height is a valid image size (both
// positive, at most kMaxImagePixels pixels).
void check_image_size(const std::string& path, int64_t width, int64_t height);
// Writes `image` as a PNG file. Throws std::runtime_error when it cannot.
void save_png(const Image& image, const std::string& path);
// The pixels of [x0, x1) x [y0, y1), clamped to the image (at least 1x1).
Image crop(const Image& image, int x0, int y0, int x1, int y1);
// `image` resampled to width x height (both >= 1).
Image resize(const Image& image, int width, int height);

}  // namespace ocr
