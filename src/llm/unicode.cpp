// Property lookups: binary searches over the generated range tables, with the categories of
// U+0000..U+00FF cached in a table built once (most tokenizer input is Latin).
#include "src/llm/unicode.h"

#include <algorithm>
#include <array>
#include <span>

namespace cppnn::llm {
namespace {

// The range of `ranges` (sorted, disjoint, each with first/last) that holds `cp`, or nullptr.
template <class Range>
const Range* find_range(std::span<const Range> ranges, char32_t cp) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), cp,
                             [](char32_t c, const Range& r) { return c < r.first; });
  if (it == ranges.begin()) return nullptr;
  --it;
  return cp <= it->last ? &*it : nullptr;
}

GeneralCategory lookup_category(char32_t cp) {
  const CategoryRange* r = find_range(unicode_tables::categories(), cp);
  return r ? r->category : GeneralCategory::kCn;
}

// The categories of U+0000..U+00FF.
const std::array<GeneralCategory, 256>& latin1_categories() {
  static const std::array<GeneralCategory, 256> kTable = [] {
    std::array<GeneralCategory, 256> t{};
    for (char32_t c = 0; c < 256; ++c) t[c] = lookup_category(c);
    return t;
  }();
  return kTable;
}

}  // namespace

GeneralCategory general_category(char32_t cp) {
  if (cp < 256) return latin1_categories()[cp];
  return lookup_category(cp);
}

bool is_letter(char32_t cp) {
  return general_category(cp) <= GeneralCategory::kLo;
}

bool is_number(char32_t cp) {
  const GeneralCategory c = general_category(cp);
  return c >= GeneralCategory::kNd && c <= GeneralCategory::kNo;
}

bool is_mark(char32_t cp) {
  const GeneralCategory c = general_category(cp);
  return c >= GeneralCategory::kMn && c <= GeneralCategory::kMe;
}

bool is_white_space(char32_t cp) {
  if (cp < 128) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  return find_range(unicode_tables::white_space(), cp) != nullptr;
}

bool is_word_char(char32_t cp) {
  if (cp < 128) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
  }
  if (cp == 0x200C || cp == 0x200D) return true;  // Join_Control
  const GeneralCategory c = general_category(cp);
  if (c == GeneralCategory::kNd || c == GeneralCategory::kPc || is_mark(cp)) return true;
  return find_range(unicode_tables::alphabetic(), cp) != nullptr;
}

uint8_t combining_class(char32_t cp) {
  if (cp < 0x300) return 0;
  const CombiningClassRange* r = find_range(unicode_tables::combining_classes(), cp);
  return r ? r->combining_class : 0;
}

}  // namespace cppnn::llm
