// Rasterizes text with stb_truetype: per glyph a coverage bitmap, darkened into the image.
#include "text_render.h"

#include <stb/stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace ocr {
namespace {

// The whole font file.
std::vector<unsigned char> read_font(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read font " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The advance of `text` in pixels (with kerning).
float text_width(const stbtt_fontinfo& font, float scale, const std::string& text) {
  float x = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&font, text[i], &advance, &bearing);
    x += advance * scale;
    if (i + 1 < text.size())
      x += scale * stbtt_GetCodepointKernAdvance(&font, text[i], text[i + 1]);
  }
  return x;
}

// Draws `text` with its baseline at y = `baseline`, starting at x = `left`.
void draw_line(Image& image, const stbtt_fontinfo& font, float scale, const std::string& text,
               float left, int baseline) {
  float x = left;
  for (size_t i = 0; i < text.size(); ++i) {
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&font, text[i], &advance, &bearing);
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    const float shift = x - std::floor(x);
    stbtt_GetCodepointBitmapBoxSubpixel(&font, text[i], scale, scale, shift, 0, &x0, &y0, &x1, &y1);
    const int w = x1 - x0, h = y1 - y0;
    if (w > 0 && h > 0) {
      std::vector<unsigned char> coverage(static_cast<size_t>(w) * h);
      stbtt_MakeCodepointBitmapSubpixel(&font, coverage.data(), w, h, w, scale, scale, shift, 0,
                                        text[i]);
      const int ox = static_cast<int>(std::floor(x)) + x0, oy = baseline + y0;
      for (int gy = 0; gy < h; ++gy)
        for (int gx = 0; gx < w; ++gx) {
          const int px = ox + gx, py = oy + gy;
          if (px < 0 || py < 0 || px >= image.width || py >= image.height) continue;
          const uint8_t ink =
              static_cast<uint8_t>(255 - coverage[static_cast<size_t>(gy) * w + gx]);
          for (int c = 0; c < 3; ++c) image.at(px, py, c) = std::min(image.at(px, py, c), ink);
        }
    }
    x += advance * scale;
    if (i + 1 < text.size())
      x += scale * stbtt_GetCodepointKernAdvance(&font, text[i], text[i + 1]);
  }
}

}  // namespace

Image render_text(const std::vector<std::string>& lines, const std::string& font_path,
                  const TextLayout& layout) {
  const std::vector<unsigned char> data = read_font(font_path);
  stbtt_fontinfo font;
  if (data.empty() ||
      !stbtt_InitFont(&font, data.data(), stbtt_GetFontOffsetForIndex(data.data(), 0)))
    throw std::runtime_error("not a TrueType font: " + font_path);
  const float scale = stbtt_ScaleForPixelHeight(&font, layout.pixel_height);
  int ascent = 0, descent = 0, gap = 0;
  stbtt_GetFontVMetrics(&font, &ascent, &descent, &gap);

  float widest = 0;
  for (const std::string& line : lines) widest = std::max(widest, text_width(font, scale, line));
  const int width = static_cast<int>(std::ceil(widest)) + 2 * layout.margin;
  const int height = 2 * layout.margin + static_cast<int>(lines.size()) * layout.line_pitch;
  Image image = Image::filled(width, height, 255);
  // Each line is centred vertically in its pitch.
  const float glyph_height = (ascent - descent) * scale;
  for (size_t i = 0; i < lines.size(); ++i) {
    const float top = layout.margin + static_cast<float>(i) * layout.line_pitch +
                      (layout.line_pitch - glyph_height) / 2;
    draw_line(image, font, scale, lines[i], static_cast<float>(layout.margin),
              static_cast<int>(std::lround(top + ascent * scale)));
  }
  return image;
}

}  // namespace ocr
