// The checks of truetype.h. Every read goes through Span, which knows the bytes of one table
// (or of the file) and throws Overrun past its end; the public functions turn Overrun into
// "NAME: not a TrueType font (...)".
#include "truetype.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "file_io.h"

namespace ocr {
namespace {

// A read past the end of `what`.
struct Overrun {
  std::string what;
};

// Big-endian reads of the bytes [base, base + size), checked.
struct Span {
  const unsigned char* base = nullptr;
  uint64_t size = 0;
  std::string what;

  void need(uint64_t at, uint64_t n) const {
    if (at > size || n > size - at) throw Overrun{what};
  }
  uint8_t u8(uint64_t at) const {
    need(at, 1);
    return base[at];
  }
  uint16_t u16(uint64_t at) const {
    need(at, 2);
    return static_cast<uint16_t>(base[at] << 8 | base[at + 1]);
  }
  int16_t s16(uint64_t at) const { return static_cast<int16_t>(u16(at)); }
  uint32_t u32(uint64_t at) const {
    need(at, 4);
    return static_cast<uint32_t>(base[at]) << 24 | static_cast<uint32_t>(base[at + 1]) << 16 |
           static_cast<uint32_t>(base[at + 2]) << 8 | base[at + 3];
  }
};

std::string tag_string(uint32_t tag) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const char c = static_cast<char>((tag >> shift) & 0xff);
    s += c >= 0x20 && c < 0x7f ? c : '?';
  }
  return s;
}

// Composite glyphs nest at most this deep (real fonts use two or three levels); an outline
// expands to at most this many vertices.
constexpr int kMaxCompositeDepth = 16;
constexpr uint64_t kMaxOutlineVertices = 1u << 20;

}  // namespace

Font::Font(const std::string& path) : Font(read_regular_file(path, "font", kMaxFileBytes), path) {}

Font::Font(std::vector<unsigned char> data, std::string name)
    : data_(std::move(data)), name_(std::move(name)) {
  try {
    check_tables();
    check_cmap();
  } catch (const Overrun& o) {
    bad("the " + o.what + " is truncated");
  }
  if (!stbtt_InitFont(&info_, data_.data(), 0)) bad("stb_truetype cannot use it");
}

void Font::bad(const std::string& reason) const {
  throw std::runtime_error(name_ + ": not a TrueType font (" + reason + ")");
}

void Font::check_tables() {
  const Span file{data_.data(), data_.size(), "file"};
  if (data_.size() < 12)
    bad("the file has " + std::to_string(data_.size()) + " bytes, too few for an sfnt header");
  const uint32_t version = file.u32(0);
  if (version == 0x4F54544F)  // 'OTTO'
    bad("OpenType with CFF outlines; only TrueType (glyf) outlines are supported");
  if (version == 0x74746366)  // 'ttcf'
    bad("a font collection; give a single font");
  if (version != 0x00010000 && version != 0x74727565)  // 1.0 or 'true'
    bad("no sfnt header");
  const uint16_t count = file.u16(4);
  if (count == 0) bad("the table directory is empty");
  const uint64_t directory_end = 12 + 16 * uint64_t{count};
  if (directory_end > data_.size())
    bad("the table directory of " + std::to_string(count) + " tables ends at byte " +
        std::to_string(directory_end) + ", past the end of the file (" +
        std::to_string(data_.size()) + " bytes)");
  for (uint16_t i = 0; i < count; ++i) {
    const uint64_t record = 12 + 16 * uint64_t{i};
    const std::string tag = tag_string(file.u32(record));
    const uint64_t offset = file.u32(record + 8), length = file.u32(record + 12);
    if (offset > data_.size() || length > data_.size() - offset)
      bad("table '" + tag + "' at offset " + std::to_string(offset) + " with length " +
          std::to_string(length) + " ends past the end of the file (" +
          std::to_string(data_.size()) + " bytes)");
    if (length > 0 && offset < directory_end)
      bad("table '" + tag + "' at offset " + std::to_string(offset) +
          " overlaps the table directory");
    tables_.emplace(tag, FontTable{offset, length, true});  // the first wins, as in stb
  }
  for (const char* tag : {"cmap", "head", "hhea", "hmtx", "loca", "glyf", "maxp"})
    if (!tables_.contains(tag)) bad(std::string("no '") + tag + "' table");
  auto span = [&](const std::string& tag) {
    const FontTable& t = tables_.at(tag);
    return Span{data_.data() + t.offset, t.length, "'" + tag + "' table"};
  };

  const Span head = span("head");
  head.need(0, 54);
  if (head.u32(12) != 0x5F0F3CF5) bad("the 'head' table has no magic number");
  loca_format_ = head.s16(50);
  if (loca_format_ != 0 && loca_format_ != 1)
    bad("head's indexToLocFormat is " + std::to_string(loca_format_) + ", not 0 or 1");

  const Span maxp = span("maxp");
  num_glyphs_ = maxp.u16(4);
  if (num_glyphs_ == 0) bad("maxp declares no glyphs");

  const Span hhea = span("hhea");
  hhea.need(0, 36);
  if (hhea.s16(4) <= hhea.s16(6)) bad("hhea's ascent is not above its descent");
  num_hmetrics_ = hhea.u16(34);
  if (num_hmetrics_ == 0) bad("hhea declares no horizontal metrics");
  const uint64_t hmtx_size =
      4 * uint64_t(num_hmetrics_) +
      (num_glyphs_ > num_hmetrics_ ? 2 * uint64_t(num_glyphs_ - num_hmetrics_) : 0);
  if (tables_.at("hmtx").length < hmtx_size)
    bad("the 'hmtx' table has " + std::to_string(tables_.at("hmtx").length) + " bytes, " +
        std::to_string(hmtx_size) + " needed for its " + std::to_string(num_glyphs_) + " glyphs");

  // Every glyph's bytes inside glyf.
  const Span loca = span("loca");
  const uint64_t glyf_length = tables_.at("glyf").length;
  const uint64_t entry = loca_format_ ? 4 : 2;
  loca.need(0, entry * (uint64_t(num_glyphs_) + 1));
  for (int g = 0; g < num_glyphs_; ++g) {
    const auto [start, end] = glyph_range(g);
    if (start > end || end > glyf_length)
      bad("loca puts glyph " + std::to_string(g) + " at bytes " + std::to_string(start) + ".." +
          std::to_string(end) + " of the 'glyf' table of " + std::to_string(glyf_length) +
          " bytes");
  }
}

std::pair<uint64_t, uint64_t> Font::glyph_range(int glyph) const {
  const FontTable& t = tables_.at("loca");
  const Span loca{data_.data() + t.offset, t.length, "'loca' table"};
  const uint64_t g = static_cast<uint64_t>(glyph);
  if (loca_format_ == 0) return {2 * uint64_t{loca.u16(2 * g)}, 2 * uint64_t{loca.u16(2 * g + 2)}};
  return {loca.u32(4 * g), loca.u32(4 * g + 4)};
}

// The encoding record stb_truetype picks (the last Microsoft Unicode BMP/full or Unicode one)
// and its subtable's size.
void Font::check_cmap() {
  const FontTable& t = tables_.at("cmap");
  const Span cmap{data_.data() + t.offset, t.length, "'cmap' table"};
  const uint16_t count = cmap.u16(2);
  cmap.need(4, 8 * uint64_t{count});
  std::optional<uint64_t> chosen;
  for (uint16_t i = 0; i < count; ++i) {
    const uint64_t record = 4 + 8 * uint64_t{i};
    const uint16_t platform = cmap.u16(record), encoding = cmap.u16(record + 2);
    if ((platform == STBTT_PLATFORM_ID_MICROSOFT &&
         (encoding == STBTT_MS_EID_UNICODE_BMP || encoding == STBTT_MS_EID_UNICODE_FULL)) ||
        platform == STBTT_PLATFORM_ID_UNICODE)
      chosen = cmap.u32(record + 4);
  }
  if (!chosen) bad("no Unicode character map");
  if (*chosen == 0) bad("the Unicode character map overlaps the cmap header");
  cmap_subtable_ = *chosen;
  const uint64_t sub = cmap_subtable_;
  const uint16_t format = cmap.u16(sub);
  switch (format) {
    case 0:
      cmap.need(sub, 6 + 256);
      break;
    case 4: {
      const uint64_t segments = cmap.u16(sub + 6) / 2;
      cmap.need(sub, 16 + 8 * segments);
      break;
    }
    case 6:
      cmap.need(sub, 10 + 2 * uint64_t{cmap.u16(sub + 8)});
      break;
    case 12:
    case 13:
      cmap.need(sub, 16 + 12 * uint64_t{cmap.u32(sub + 12)});
      break;
    default:
      bad("the Unicode character map has format " + std::to_string(format) +
          ", not 0, 4, 6, 12 or 13");
  }
}

// stbtt_FindGlyphIndex with checked reads.
int Font::lookup_cmap(uint32_t cp) const {
  const FontTable& t = tables_.at("cmap");
  const Span cmap{data_.data() + t.offset, t.length, "'cmap' table"};
  const uint64_t sub = cmap_subtable_;
  const uint16_t format = cmap.u16(sub);
  if (format == 0) {
    const int64_t bytes = cmap.u16(sub + 2);
    return static_cast<int64_t>(cp) < bytes - 6 ? cmap.u8(sub + 6 + cp) : 0;
  }
  if (format == 6) {
    const uint32_t first = cmap.u16(sub + 6), count = cmap.u16(sub + 8);
    return cp >= first && cp < first + count ? cmap.u16(sub + 10 + 2 * uint64_t{cp - first}) : 0;
  }
  if (format == 4) {
    const uint16_t segcount = cmap.u16(sub + 6) >> 1;
    uint16_t search_range = cmap.u16(sub + 8) >> 1;
    uint16_t entry_selector = cmap.u16(sub + 10);
    const uint16_t range_shift = cmap.u16(sub + 12) >> 1;
    const uint64_t end_count = sub + 14;
    uint64_t search = end_count;
    if (cp > 0xffff) return 0;
    if (cp >= cmap.u16(search + range_shift * 2u)) search += range_shift * 2u;
    search -= 2;
    while (entry_selector) {
      search_range >>= 1;
      if (cp > cmap.u16(search + search_range * 2u)) search += search_range * 2u;
      --entry_selector;
    }
    search += 2;
    const uint16_t item = static_cast<uint16_t>((search - end_count) >> 1);
    const uint16_t start = cmap.u16(sub + 14 + segcount * 2u + 2 + 2u * item);
    const uint16_t last = cmap.u16(end_count + 2u * item);
    if (cp < start || cp > last) return 0;
    const uint16_t offset = cmap.u16(sub + 14 + segcount * 6u + 2 + 2u * item);
    if (offset == 0)
      return static_cast<uint16_t>(cp + cmap.s16(sub + 14 + segcount * 4u + 2 + 2u * item));
    return cmap.u16(offset + (cp - start) * 2u + sub + 14 + segcount * 6u + 2 + 2u * item);
  }
  // 12 or 13 (check_cmap admits nothing else).
  const uint32_t groups = cmap.u32(sub + 12);
  int64_t low = 0, high = static_cast<int32_t>(groups);
  while (low < high) {
    const int64_t mid = low + ((high - low) >> 1);
    const uint64_t group = sub + 16 + static_cast<uint64_t>(mid) * 12;
    const uint32_t start_char = cmap.u32(group), end_char = cmap.u32(group + 4);
    if (cp < start_char) {
      high = mid;
    } else if (cp > end_char) {
      low = mid + 1;
    } else {
      const uint32_t start_glyph = cmap.u32(group + 8);
      return static_cast<int>(format == 12 ? start_glyph + (cp - start_char) : start_glyph);
    }
  }
  return 0;
}

int Font::glyph(uint32_t codepoint) {
  int g = 0;
  try {
    g = lookup_cmap(codepoint);
    if (g < 0 || g >= num_glyphs_)
      bad("the character map maps U+" + std::to_string(codepoint) + " to glyph " +
          std::to_string(static_cast<uint32_t>(g)) + ", the font has " +
          std::to_string(num_glyphs_));
    check_outline(g, 0);
  } catch (const Overrun& o) {
    bad("the " + o.what + " is truncated");
  }
  check_shape(g);
  return g;
}

// Mirrors what stbtt__GetGlyphShapeTT reads, with checks; also refuses what it would mishandle
// (a contour that starts with its last off-curve point, point-matched components, cycles).
Font::Outline Font::check_outline(int glyph, int depth) {
  auto too_deep = [&] {
    bad("composite glyphs nest more than " + std::to_string(kMaxCompositeDepth) + " levels");
  };
  if (auto it = outlines_.find(glyph); it != outlines_.end()) {
    if (it->second.vertices == 0)
      bad("composite glyph " + std::to_string(glyph) + " contains itself");
    if (depth + it->second.height > kMaxCompositeDepth) too_deep();
    return it->second;
  }
  if (depth > kMaxCompositeDepth) too_deep();
  const auto [start, end] = glyph_range(glyph);
  Outline outline{1, 0};  // an empty glyph
  if (start == end) {
    outlines_[glyph] = outline;
    return outline;
  }
  const FontTable& glyf = tables_.at("glyf");
  const Span g{data_.data() + glyf.offset + start, end - start,
               "outline of glyph " + std::to_string(glyph)};
  g.need(0, 10);
  if (g.s16(2) > g.s16(6) || g.s16(4) > g.s16(8))
    bad("glyph " + std::to_string(glyph) + " has an inverted bounding box");
  const int16_t contours = g.s16(0);
  outlines_[glyph] = Outline{0, 0};  // in progress
  if (contours > 0) {
    const uint64_t ends = 10;
    int previous = -1;
    std::vector<uint64_t> starts;
    for (int c = 0; c < contours; ++c) {
      const int e = g.u16(ends + 2 * uint64_t(c));
      if (e <= previous)
        bad("the contours of glyph " + std::to_string(glyph) + " do not end in increasing order");
      starts.push_back(static_cast<uint64_t>(previous + 1));
      previous = e;
    }
    const uint64_t points = static_cast<uint64_t>(previous) + 1;
    uint64_t p = ends + 2 * uint64_t(contours);
    p += 2 + uint64_t{g.u16(p)};  // instructions
    std::vector<uint8_t> flags(points);
    uint8_t flag = 0, repeat = 0;
    for (uint64_t i = 0; i < points; ++i) {
      if (repeat == 0) {
        flag = g.u8(p++);
        if (flag & 8) repeat = g.u8(p++);
      } else {
        --repeat;
      }
      flags[i] = flag;
    }
    for (uint8_t f : flags) p += (f & 2) ? 1 : (f & 16) ? 0 : 2;
    for (uint8_t f : flags) p += (f & 4) ? 1 : (f & 32) ? 0 : 2;
    g.need(0, p);
    for (uint64_t s : starts)
      if (!(flags[s] & 1) && s + 1 >= points)
        bad("glyph " + std::to_string(glyph) + " ends with a contour of one off-curve point");
    outline.vertices = points + 2 * uint64_t(contours);
  } else if (contours < 0) {
    outline.vertices = 0;
    uint64_t p = 10;
    for (bool more = true; more;) {
      const uint16_t flags = g.u16(p);
      const int component = g.u16(p + 2);
      p += 4;
      if (!(flags & 2))
        bad("composite glyph " + std::to_string(glyph) +
            " places a component by point numbers, which stb_truetype cannot do");
      p += (flags & 1) ? 4 : 2;
      if (flags & (1 << 3))
        p += 2;
      else if (flags & (1 << 6))
        p += 4;
      else if (flags & (1 << 7))
        p += 8;
      g.need(0, p);
      if (component >= num_glyphs_)
        bad("composite glyph " + std::to_string(glyph) + " uses glyph " +
            std::to_string(component) + ", the font has " + std::to_string(num_glyphs_));
      const Outline part = check_outline(component, depth + 1);
      outline.vertices += part.vertices;
      outline.height = std::max(outline.height, part.height + 1);
      if (outline.vertices > kMaxOutlineVertices)
        bad("the outline of glyph " + std::to_string(glyph) + " has more than " +
            std::to_string(kMaxOutlineVertices) + " vertices");
      more = flags & (1 << 5);
    }
    outline.vertices = std::max<uint64_t>(outline.vertices, 1);
  }
  outlines_[glyph] = outline;
  return outline;
}

// The rasterizer draws into a bitmap sized by the glyph's bounding box: every vertex (and
// control point) must lie inside it.
void Font::check_shape(int glyph) {
  if (shapes_checked_.contains(glyph)) return;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  if (stbtt_GetGlyphBox(&info_, glyph, &x0, &y0, &x1, &y1)) {
    stbtt_vertex* vertices = nullptr;
    const int n = stbtt_GetGlyphShape(&info_, glyph, &vertices);
    bool inside = true;
    auto in_box = [&](int x, int y) { return x >= x0 && x <= x1 && y >= y0 && y <= y1; };
    for (int i = 0; i < n; ++i) {
      inside = inside && in_box(vertices[i].x, vertices[i].y);
      if (vertices[i].type == STBTT_vcurve || vertices[i].type == STBTT_vcubic)
        inside = inside && in_box(vertices[i].cx, vertices[i].cy);
    }
    stbtt_FreeShape(&info_, vertices);
    if (!inside) bad("the outline of glyph " + std::to_string(glyph) + " leaves its bounding box");
  }
  shapes_checked_.insert(glyph);
}

void Font::h_metrics(int glyph, int& advance, int& bearing) const {
  // glyph < num_glyphs_ and hmtx holds all of them (check_tables): stb's reads are inside.
  stbtt_GetGlyphHMetrics(&info_, glyph, &advance, &bearing);
}

int Font::kern_advance(int glyph1, int glyph2) const {
  try {
    // As stb_truetype: GPOS when the font has one, else kern (a table at offset 0 is none).
    if (info_.gpos) return gpos_advance(glyph1, glyph2);
    if (info_.kern) return kern_table_advance(glyph1, glyph2);
    return 0;
  } catch (const Overrun& o) {
    bad("the " + o.what + " is truncated or points outside itself");
  }
}

// stbtt__GetGlyphKernInfoAdvance with checked reads.
int Font::kern_table_advance(int glyph1, int glyph2) const {
  const FontTable& t = tables_.at("kern");
  const Span kern{data_.data() + t.offset, t.length, "'kern' table"};
  if (kern.u16(2) < 1 || kern.u16(8) != 1) return 0;
  int l = 0, r = kern.u16(10) - 1;
  const uint32_t needle = static_cast<uint32_t>(glyph1) << 16 | static_cast<uint32_t>(glyph2);
  while (l <= r) {
    const int m = (l + r) >> 1;
    const uint32_t straw = kern.u32(18 + 6 * uint64_t(m));
    if (needle < straw)
      r = m - 1;
    else if (needle > straw)
      l = m + 1;
    else
      return kern.s16(22 + 6 * uint64_t(m));
  }
  return 0;
}

// stbtt__GetGlyphGPOSInfoAdvance (pair adjustment lookups, formats 1 and 2 with an x advance
// only) with checked reads.
int Font::gpos_advance(int glyph1, int glyph2) const {
  const FontTable& t = tables_.at("GPOS");
  const Span gpos{data_.data() + t.offset, t.length, "'GPOS' table"};
  // The range record {first, last, value} of a format-2 coverage or class table holding
  // `glyph` (binary search over the records sorted by range), or 0 when none does.
  auto range_record = [&](uint64_t table, int glyph) -> uint64_t {
    int64_t l = 0, r = int64_t{gpos.u16(table + 2)} - 1;
    while (l <= r) {
      const int64_t m = (l + r) >> 1;
      const uint64_t record = table + 4 + 6 * static_cast<uint64_t>(m);
      const int first = gpos.u16(record), last = gpos.u16(record + 2);
      if (glyph < first)
        r = m - 1;
      else if (glyph > last)
        l = m + 1;
      else
        return record;
    }
    return 0;
  };
  auto coverage_index = [&](uint64_t table, int glyph) -> int64_t {
    const uint16_t format = gpos.u16(table);
    if (format == 1) {
      int64_t l = 0, r = int64_t{gpos.u16(table + 2)} - 1;
      while (l <= r) {
        const int64_t m = (l + r) >> 1;
        const int straw = gpos.u16(table + 4 + 2 * static_cast<uint64_t>(m));
        if (glyph < straw)
          r = m - 1;
        else if (glyph > straw)
          l = m + 1;
        else
          return m;
      }
    } else if (format == 2) {
      if (const uint64_t record = range_record(table, glyph))
        return gpos.u16(record + 4) + glyph - gpos.u16(record);
    }
    return -1;
  };
  auto glyph_class = [&](uint64_t table, int glyph) -> int64_t {
    const uint16_t format = gpos.u16(table);
    if (format == 1) {
      const int first = gpos.u16(table + 2), count = gpos.u16(table + 4);
      if (glyph >= first && glyph < first + count)
        return gpos.u16(table + 6 + 2 * static_cast<uint64_t>(glyph - first));
      return 0;
    }
    if (format == 2) {
      const uint64_t record = range_record(table, glyph);
      return record ? gpos.u16(record + 4) : 0;
    }
    return -1;
  };

  if (gpos.u16(0) != 1 || gpos.u16(2) != 0) return 0;
  const uint64_t lookup_list = gpos.u16(8);
  const uint16_t lookups = gpos.u16(lookup_list);
  for (uint16_t i = 0; i < lookups; ++i) {
    const uint64_t lookup = lookup_list + gpos.u16(lookup_list + 2 + 2 * uint64_t{i});
    if (gpos.u16(lookup) != 2) continue;  // pair adjustment only
    const uint16_t subtables = gpos.u16(lookup + 4);
    for (uint16_t s = 0; s < subtables; ++s) {
      const uint64_t table = lookup + gpos.u16(lookup + 6 + 2 * uint64_t{s});
      const uint16_t format = gpos.u16(table);
      const int64_t coverage = coverage_index(table + gpos.u16(table + 2), glyph1);
      if (coverage == -1) continue;
      if (format == 1) {
        if (gpos.u16(table + 4) != 4 || gpos.u16(table + 6) != 0) return 0;
        if (coverage >= gpos.u16(table + 8)) return 0;
        const uint64_t pairs = table + gpos.u16(table + 10 + 2 * static_cast<uint64_t>(coverage));
        int64_t l = 0, r = int64_t{gpos.u16(pairs)} - 1;
        while (l <= r) {
          const int64_t m = (l + r) >> 1;
          const uint64_t pair = pairs + 2 + 4 * static_cast<uint64_t>(m);
          const int second = gpos.u16(pair);
          if (glyph2 < second)
            r = m - 1;
          else if (glyph2 > second)
            l = m + 1;
          else
            return gpos.s16(pair + 2);
        }
      } else if (format == 2) {
        if (gpos.u16(table + 4) != 4 || gpos.u16(table + 6) != 0) return 0;
        const int64_t class1 = glyph_class(table + gpos.u16(table + 8), glyph1);
        const int64_t class2 = glyph_class(table + gpos.u16(table + 10), glyph2);
        const int64_t class1_count = gpos.u16(table + 12), class2_count = gpos.u16(table + 14);
        if (class1 < 0 || class1 >= class1_count) return 0;
        if (class2 < 0 || class2 >= class2_count) return 0;
        return gpos.s16(table + 16 + 2 * static_cast<uint64_t>(class1 * class2_count + class2));
      } else {
        return 0;
      }
    }
  }
  return 0;
}

}  // namespace ocr
