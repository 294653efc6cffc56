// Image file I/O and resampling through the stb headers (Debian libstb-dev).
#include "image.h"

#include <stb/stb_image.h>
#include <stb/stb_image_resize.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace ocr {

Image Image::filled(int width, int height, uint8_t value) {
  if (width < 1 || height < 1) throw std::runtime_error("image size must be positive");
  Image image{width, height, {}};
  image.rgb.assign(static_cast<size_t>(width) * height * 3, value);
  return image;
}

Image load_image(const std::string& path) {
  int width = 0, height = 0, channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load(path.c_str(), &width, &height, &channels, 3), stbi_image_free);
  if (!pixels) throw std::runtime_error("cannot read image " + path + ": " + stbi_failure_reason());
  Image image{width, height, {}};
  image.rgb.assign(pixels.get(), pixels.get() + static_cast<size_t>(width) * height * 3);
  return image;
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
