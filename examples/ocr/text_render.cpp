// Rasterizes text with stb_truetype: per glyph a coverage bitmap, darkened into the image. The
// font is checked first (truetype.h) and stb_truetype only sees glyphs it checked.
#include "text_render.h"

#include <stb/stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "truetype.h"

namespace ocr {
namespace {

// The largest glyph bitmap drawn (a font whose glyphs come out larger is refused).
constexpr int kMaxGlyphPixels = 4096;

// The glyphs of `text`, looked up and checked once.
std::vector<int> glyphs_of(Font& font, const std::string& text) {
  std::vector<int> glyphs;
  for (char c : text) glyphs.push_back(font.glyph(static_cast<unsigned char>(c)));
  return glyphs;
}

// The advance of `glyphs` in pixels (with kerning).
float text_width(const Font& font, float scale, const std::vector<int>& glyphs) {
  float x = 0;
  for (size_t i = 0; i < glyphs.size(); ++i) {
    int advance = 0, bearing = 0;
    font.h_metrics(glyphs[i], advance, bearing);
    x += advance * scale;
    if (i + 1 < glyphs.size()) x += scale * font.kern_advance(glyphs[i], glyphs[i + 1]);
  }
  return x;
}

// Draws `glyphs` with their baseline at y = `baseline`, starting at x = `left`.
void draw_line(Image& image, const Font& font, float scale, const std::vector<int>& glyphs,
               float left, int baseline, const std::string& font_path) {
  float x = left;
  for (size_t i = 0; i < glyphs.size(); ++i) {
    int advance = 0, bearing = 0;
    font.h_metrics(glyphs[i], advance, bearing);
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    const float shift = x - std::floor(x);
    stbtt_GetGlyphBitmapBoxSubpixel(&font.info(), glyphs[i], scale, scale, shift, 0, &x0, &y0, &x1,
                                    &y1);
    const int w = x1 - x0, h = y1 - y0;
    if (w > kMaxGlyphPixels || h > kMaxGlyphPixels)
      throw std::runtime_error(font_path + ": not a TrueType font (glyph " +
                               std::to_string(glyphs[i]) + " is " + std::to_string(w) + "x" +
                               std::to_string(h) + " pixels at " + std::to_string(scale) +
                               " pixels per unit)");
    if (w > 0 && h > 0) {
      std::vector<unsigned char> coverage(static_cast<size_t>(w) * h);
      stbtt_MakeGlyphBitmapSubpixel(&font.info(), coverage.data(), w, h, w, scale, scale, shift, 0,
                                    glyphs[i]);
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
    if (i + 1 < glyphs.size()) x += scale * font.kern_advance(glyphs[i], glyphs[i + 1]);
  }
}

}  // namespace

Image render_text(const std::vector<std::string>& lines, const std::string& font_path,
                  const TextLayout& layout) {
  Font font(font_path);  // checked before stb_truetype reads it
  std::vector<std::vector<int>> glyphs;
  for (const std::string& line : lines) glyphs.push_back(glyphs_of(font, line));
  const float scale = stbtt_ScaleForPixelHeight(&font.info(), layout.pixel_height);
  int ascent = 0, descent = 0, gap = 0;
  stbtt_GetFontVMetrics(&font.info(), &ascent, &descent, &gap);

  float widest = 0;
  for (const std::vector<int>& line : glyphs)
    widest = std::max(widest, text_width(font, scale, line));
  const float width = std::ceil(widest) + 2.0f * layout.margin;
  if (!(width >= 1 && width <= static_cast<float>(kMaxImagePixels)))
    throw std::runtime_error(font_path + ": not a TrueType font (the text would be " +
                             std::to_string(width) + " pixels wide)");
  const int height = 2 * layout.margin + static_cast<int>(lines.size()) * layout.line_pitch;
  Image image = Image::filled(static_cast<int>(width), height, 255);
  // Each line is centred vertically in its pitch.
  const float glyph_height = (ascent - descent) * scale;
  for (size_t i = 0; i < lines.size(); ++i) {
    const float top = layout.margin + static_cast<float>(i) * layout.line_pitch +
                      (layout.line_pitch - glyph_height) / 2;
    draw_line(image, font, scale, glyphs[i], static_cast<float>(layout.margin),
              static_cast<int>(std::lround(top + ascent * scale)), font_path);
  }
  return image;
}

}  // namespace ocr
