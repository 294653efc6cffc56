// Image file I/O and resampling through the stb headers (Debian libstb-dev).
#include "image.h"

#include <stb/stb_image.h>
#include <stb/stb_image_resize.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "file_io.h"

namespace ocr {

Image Image::filled(int width, int height, uint8_t value) {
  if (width < 1 || height < 1) throw std::runtime_error("image size must be positive");
  if (static_cast<int64_t>(width) * height > kMaxImagePixels)
    throw std::runtime_error("image size " + std::to_string(width) + "x" + std::to_string(height) +
                             " is more than 2^28 pixels");
  Image image{width, height, {}};
  image.rgb.assign(static_cast<size_t>(width) * height * 3, value);
  return image;
}

Image load_image(const std::string& path) {
  const std::vector<unsigned char> file = read_regular_file(path, "image", kMaxImageFileBytes);
  auto fail = [&](const std::string& reason) {
    return std::runtime_error("cannot read image " + path + ": " + reason);
  };
  if (file.empty()) throw fail("the file is empty");
  // The declared size first, so a huge or empty image is refused before it is decoded.
  int width = 0, height = 0, channels = 0;
  const int length = static_cast<int>(file.size());  // <= kMaxImageFileBytes < INT_MAX
  if (!stbi_info_from_memory(file.data(), length, &width, &height, &channels))
    throw fail(stbi_failure_reason());
  check_image_size(path, width, height);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(file.data(), length, &width, &height, &channels, 4), stbi_image_free);
  if (!pixels) throw fail(stbi_failure_reason());
  check_image_size(path, width, height);
  // RGBA composited on white: transparent pixels are paper, not ink.
  Image image{width, height, {}};
  const size_t count = static_cast<size_t>(width) * static_cast<size_t>(height);
  image.rgb.resize(count * 3);
  const stbi_uc* p = pixels.get();
  for (size_t i = 0; i < count; ++i, p += 4)
    for (int c = 0; c < 3; ++c)
      image.rgb[i * 3 + c] = static_cast<uint8_t>((p[c] * p[3] + 255 * (255 - p[3]) + 127) / 255);
  return image;
}

void check_image_size(const std::string& path, int64_t width, int64_t height) {
  if (width < 1 || height < 1)
    throw std::runtime_error("image " + path + " is " + std::to_string(width) + "x" +
                             std::to_string(height) + " pixels: both dimensions must be positive");
  // Both are below 2^31 here, so the product cannot overflow 64 bits.
  if (width * height > kMaxImagePixels)
    throw std::runtime_error("image " + path + " is " + std::to_string(width) + "x" +
                             std::to_string(height) + " pixels, more than the limit of 2^28 (" +
                             std::to_string(kMaxImagePixels) + ") pixels");
}

void save_png(const Image& image, const std::string& path) {
  if (!stbi_write_png(path.c_str(), image.width, image.height, 3, image.rgb.data(),
                      image.width * 3))
    throw std::runtime_error("cannot write " + path);
}

Image crop(const Image& image, int x0, int y0, int x1, int y1) {
  x0 = std::clamp(x0, 0, image.width - 1);
  y0 = std::clamp(y0, 0, image.height - 1);
  x1 = std::clamp(x1, x0 + 1, image.width);
  y1 = std::clamp(y1, y0 + 1, image.height);
  Image out = Image::filled(x1 - x0, y1 - y0, 0);
  for (int y = y0; y < y1; ++y)
    std::copy_n(&image.rgb[(static_cast<size_t>(y) * image.width + x0) * 3], out.width * 3,
                &out.rgb[static_cast<size_t>(y - y0) * out.width * 3]);
  return out;
}

Image resize(const Image& image, int width, int height) {
  Image out = Image::filled(width, height, 0);
  if (!stbir_resize_uint8(image.rgb.data(), image.width, image.height, 0, out.rgb.data(), width,
                          height, 0, 3))
    throw std::runtime_error("cannot resize the image");
  return out;
}

}  // namespace ocr
