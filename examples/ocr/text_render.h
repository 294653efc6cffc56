// Text rendering for the OCR demo: lines of text drawn black on white with a TrueType font
// (stb_truetype), so the demo knows exactly which text the image holds.
#pragma once

#include <string>
#include <vector>

#include "image.h"

namespace ocr {

// How the lines are laid out: glyph height in pixels, distance between baselines, margin.
struct TextLayout {
  float pixel_height = 28;
  int line_pitch = 56;
  int margin = 32;
};

// An image just large enough for `lines` (ASCII) rendered with the font file `font_path`, one
// line below the other, left-aligned. Throws std::runtime_error naming the file when the font
// cannot be read or is not a TrueType font (truetype.h checks it before stb_truetype reads it).
Image render_text(const std::vector<std::string>& lines, const std::string& font_path,
                  const TextLayout& layout = {});

}  // namespace ocr
