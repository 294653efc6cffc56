// A TrueType font file checked before stb_truetype reads it. stb_truetype trusts its input: it
// follows the file's offsets and counts without bounds checks, so a truncated or malformed font
// makes it read outside the buffer. Font checks the sfnt header, the table directory and the
// tables stb_truetype needs when it is opened, and each glyph's outline before stb_truetype
// reads it; character-to-glyph lookups (cmap), metrics and kerning (kern, GPOS) follow
// stb_truetype's algorithms with checked reads, so a valid font renders exactly as before.
#pragma once

#include <stb/stb_truetype.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ocr {

// Where a table lies in the file (offset and length, both inside the file).
struct FontTable {
  uint64_t offset = 0, length = 0;
  bool present = false;
};

class Font {
 public:
  // The largest font file read (stb_truetype computes offsets in int).
  static constexpr uint64_t kMaxFileBytes = uint64_t{256} << 20;

  // Reads `path` and checks it. Throws std::runtime_error "cannot read font PATH: REASON" when
  // the file cannot be read and "PATH: not a TrueType font (REASON)" when it is not a single
  // TrueType font whose tables lie inside the file.
  explicit Font(const std::string& path);
  // The same checks on bytes in memory; `name` names them in errors.
  Font(std::vector<unsigned char> data, std::string name);
  Font(const Font&) = delete;
  Font& operator=(const Font&) = delete;

  // stb_truetype's view of the font: use it only with glyph indices from glyph().
  const stbtt_fontinfo& info() const { return info_; }
  // The glyph of `codepoint` by the font's Unicode cmap (0, the missing glyph, when it maps
  // none), its outline checked so stb_truetype can read, measure and rasterize it. Throws
  // "NAME: not a TrueType font (...)" when the lookup or the outline is malformed.
  int glyph(uint32_t codepoint);
  // The advance width and left side bearing of `glyph` (from glyph()), in font units.
  void h_metrics(int glyph, int& advance, int& bearing) const;
  // The kerning between `glyph1` and `glyph2` (from glyph()) in font units, as
  // stbtt_GetGlyphKernAdvance computes it. Throws when the kern or GPOS table is malformed.
  int kern_advance(int glyph1, int glyph2) const;

 private:
  [[noreturn]] void bad(const std::string& reason) const;
  void check_tables();
  void check_cmap();
  // What check_outline found: how many vertices the outline expands to (an upper bound) and
  // how many composite levels lie below it.
  struct Outline {
    uint64_t vertices = 0;
    int height = 0;
  };
  // Checks the outline of `glyph` (and of its components); `depth` counts the composite
  // levels above it.
  Outline check_outline(int glyph, int depth);
  // Checks that the outline stb_truetype makes of `glyph` lies inside its bounding box.
  void check_shape(int glyph);
  // The [start, end) byte range of `glyph` in the glyf table.
  std::pair<uint64_t, uint64_t> glyph_range(int glyph) const;
  int lookup_cmap(uint32_t codepoint) const;
  int gpos_advance(int glyph1, int glyph2) const;
  int kern_table_advance(int glyph1, int glyph2) const;

  std::vector<unsigned char> data_;
  std::string name_;
  std::map<std::string, FontTable> tables_;  // the first record of each tag, as stb finds them
  uint64_t cmap_subtable_ = 0;               // offset of the chosen subtable within cmap
  int num_glyphs_ = 0, num_hmetrics_ = 0, loca_format_ = 0;
  std::map<int, Outline> outlines_;  // glyphs checked so far (vertices 0: in progress)
  std::set<int> shapes_checked_;
  stbtt_fontinfo info_{};
};

}  // namespace ocr
