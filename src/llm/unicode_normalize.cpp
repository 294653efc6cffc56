// NFD / NFC over the generated decomposition and composition tables.
#include "src/llm/unicode_normalize.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "src/llm/unicode.h"
#include "src/llm/unicode_tables.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

// Hangul syllable composition constants (Unicode §3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28;
constexpr char32_t kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

// A character of the text being normalized: a code point, or (cp == kRawByte) one byte of an
// ill-formed sequence kept as it is.
struct Unit {
  char32_t cp;
  uint8_t raw;
};
constexpr char32_t kRawByte = 0xFFFFFFFF;

uint8_t unit_class(const Unit& u) {
  return u.cp == kRawByte ? 0 : combining_class(u.cp);
}

const CanonicalDecomposition* find_decomposition(char32_t cp) {
  const auto table = unicode_tables::canonical_decompositions();
  auto it = std::lower_bound(
      table.begin(), table.end(), cp,
      [](const CanonicalDecomposition& d, char32_t c) { return d.code_point < c; });
  return it != table.end() && it->code_point == cp ? &*it : nullptr;
}

// Appends the full canonical decomposition of `cp` (the table's mappings nest at most a few
// levels, and every level maps to code points of the table's own finite set).
void decompose(char32_t cp, std::vector<Unit>& out, int depth = 0) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const char32_t s = cp - kSBase;
    out.push_back({kLBase + s / kNCount, 0});
    out.push_back({kVBase + (s % kNCount) / kTCount, 0});
    if (s % kTCount != 0) out.push_back({kTBase + s % kTCount, 0});
    return;
  }
  const CanonicalDecomposition* d = depth < 8 ? find_decomposition(cp) : nullptr;
  if (d == nullptr) {
    out.push_back({cp, 0});
    return;
  }
  decompose(d->first, out, depth + 1);
  if (d->second != 0) decompose(d->second, out, depth + 1);
}

// The decomposed, canonically ordered units of `text`.
std::vector<Unit> decomposed_units(std::string_view text) {
  std::vector<Unit> units;
  units.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const Utf8Char c = decode_utf8(text, i);
    if (c.valid) {
      decompose(c.cp, units);
    } else {
      for (size_t k = 0; k < c.length; ++k) units.push_back({kRawByte, uint8_t(text[i + k])});
    }
    i += c.length;
  }
  // Canonical ordering: each run of non-starters is stably sorted by combining class.
  for (size_t i = 0; i < units.size();) {
    if (unit_class(units[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < units.size() && unit_class(units[j]) != 0) ++j;
    std::stable_sort(units.begin() + static_cast<ptrdiff_t>(i),
                     units.begin() + static_cast<ptrdiff_t>(j),
                     [](const Unit& a, const Unit& b) { return unit_class(a) < unit_class(b); });
    i = j;
  }
  return units;
}

// The primary composite of `a` `b`, or 0.
char32_t compose_pair(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount)
    return a + (b - kTBase);
  const auto table = unicode_tables::canonical_compositions();
  auto it = std::lower_bound(table.begin(), table.end(), std::pair{a, b},
                             [](const CanonicalComposition& c, std::pair<char32_t, char32_t> k) {
                               return c.first != k.first ? c.first < k.first : c.second < k.second;
                             });
  return it != table.end() && it->first == a && it->second == b ? it->composite : 0;
}

std::string encode_units(const std::vector<Unit>& units) {
  std::string out;
  out.reserve(units.size());
  for (const Unit& u : units) {
    if (u.cp == kRawByte) {
      out += static_cast<char>(u.raw);
    } else {
      append_utf8(out, u.cp);
    }
  }
  return out;
}

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

}  // namespace

std::string to_nfd(std::string_view text) {
  if (is_ascii(text)) return std::string(text);
  return encode_units(decomposed_units(text));
}

std::string to_nfc(std::string_view text) {
  if (is_ascii(text)) return std::string(text);
  std::vector<Unit> units = decomposed_units(text);
  // Canonical composition (UAX #15 §1.3): each character C after the last starter S composes
  // with S when it is not blocked (no character between them has class 0 or a class >= C's).
  std::vector<Unit> out;
  out.reserve(units.size());
  ptrdiff_t starter = -1;
  int last_class = -1;  // class of the last character kept after the starter; -1: none
  for (const Unit& u : units) {
    const int cls = unit_class(u);
    if (starter >= 0 && u.cp != kRawByte && out[size_t(starter)].cp != kRawByte &&
        (last_class == -1 || (last_class != 0 && last_class < cls))) {
      const char32_t composite = compose_pair(out[size_t(starter)].cp, u.cp);
      if (composite != 0) {
        out[size_t(starter)].cp = composite;
        continue;
      }
    }
    if (cls == 0) {
      starter = static_cast<ptrdiff_t>(out.size());
      last_class = -1;
    } else {
      last_class = cls;
    }
    out.push_back(u);
  }
  return encode_units(out);
}

}  // namespace cppnn::llm
