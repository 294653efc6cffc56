// The Unicode data tables the tokenizer needs, generated at build time from Debian's
// `unicode-data` files (UnicodeData.txt, PropList.txt, DerivedCoreProperties.txt,
// DerivedNormalizationProps.txt) by tools/unicode_tables/gen_unicode_tables.cpp into the build
// folder (cmake/unicode_tables.cmake); never committed. Every table is sorted by code point and
// its ranges do not overlap, so lookups are binary searches (src/llm/unicode.h).
#pragma once

#include <cstdint>
#include <span>

namespace cppnn::llm {

// The Unicode General_Category values (UAX #44 §5.7.1), in UnicodeData.txt's two-letter names.
// kCn (unassigned) is what a code point no table range covers has.
// clang-format off
enum class GeneralCategory : uint8_t {
  kLu, kLl, kLt, kLm, kLo,            // letters (\p{L})
  kMn, kMc, kMe,                      // marks (\p{M})
  kNd, kNl, kNo,                      // numbers (\p{N})
  kPc, kPd, kPs, kPe, kPi, kPf, kPo,  // punctuation (\p{P})
  kSm, kSc, kSk, kSo,                 // symbols (\p{S})
  kZs, kZl, kZp,                      // separators (\p{Z})
  kCc, kCf, kCs, kCo, kCn,            // other (\p{C})
};
// clang-format on

// A run of code points [first, last] with one general category.
struct CategoryRange {
  char32_t first;
  char32_t last;
  GeneralCategory category;
};

// A run of code points [first, last] that have a binary property.
struct CodeRange {
  char32_t first;
  char32_t last;
};

// A run of code points [first, last] with one non-zero Canonical_Combining_Class.
struct CombiningClassRange {
  char32_t first;
  char32_t last;
  uint8_t combining_class;
};

// A canonical decomposition mapping of UnicodeData.txt field 5 (one level, not applied
// recursively): `code_point` -> `first` `second` (`second` 0 for a singleton).
struct CanonicalDecomposition {
  char32_t code_point;
  char32_t first;
  char32_t second;
};

// A primary composite (UAX #15 §3): a two-code-point canonical decomposition `first` `second`
// of `composite` that is not Full_Composition_Exclusion. Sorted by (first, second).
struct CanonicalComposition {
  char32_t first;
  char32_t second;
  char32_t composite;
};

// The generated tables (defined in <build>/generated/unicode_tables.cpp).
namespace unicode_tables {
// The Unicode version of the data files ("15.0.0").
extern const char* const kVersion;
// General categories of every assigned code point (unassigned ones are absent: kCn).
std::span<const CategoryRange> categories();
// White_Space (PropList.txt): what the regex engines' \s matches.
std::span<const CodeRange> white_space();
// Alphabetic (DerivedCoreProperties.txt): part of the regex crate's \w.
std::span<const CodeRange> alphabetic();
// Non-zero canonical combining classes (UnicodeData.txt field 3).
std::span<const CombiningClassRange> combining_classes();
// Canonical decompositions, sorted by code point (Hangul syllables are algorithmic, not here).
std::span<const CanonicalDecomposition> canonical_decompositions();
// Primary composites, sorted by (first, second) (Hangul syllables are algorithmic, not here).
std::span<const CanonicalComposition> canonical_compositions();
}  // namespace unicode_tables

}  // namespace cppnn::llm
