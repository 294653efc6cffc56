// The tokenizer's Unicode layer: general categories and the \s / \w classes from the generated
// tables (src/llm/unicode.h), UTF-8 decoding with U+FFFD over maximal subparts
// (src/llm/unicode_utf8.h), NFC / NFD (src/llm/unicode_normalize.h) and GPT-2's byte map
// (src/llm/tokenizer_byte_level.h).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "src/llm/tokenizer_byte_level.h"
#include "src/llm/unicode.h"
#include "src/llm/unicode_normalize.h"
#include "src/llm/unicode_utf8.h"

namespace cppnn::llm {
namespace {

using C = GeneralCategory;

TEST(TokenizerUnicode, GeneralCategories) {
  EXPECT_EQ(general_category('A'), C::kLu);
  EXPECT_EQ(general_category('z'), C::kLl);
  EXPECT_EQ(general_category(0x01C5), C::kLt);  // ǅ
  EXPECT_EQ(general_category(0x02B0), C::kLm);  // ʰ
  EXPECT_EQ(general_category(0x4E2D), C::kLo);  // 中 (a CJK range of UnicodeData.txt)
  EXPECT_EQ(general_category(0xD55C), C::kLo);  // 한 (the Hangul syllable range)
  EXPECT_EQ(general_category(0x0301), C::kMn);  // combining acute
  EXPECT_EQ(general_category(0x0903), C::kMc);  // Devanagari visarga
  EXPECT_EQ(general_category(0x20DD), C::kMe);  // enclosing circle
  EXPECT_EQ(general_category('7'), C::kNd);
  EXPECT_EQ(general_category(0x0663), C::kNd);  // Arabic-Indic three
  EXPECT_EQ(general_category(0x216B), C::kNl);  // Ⅻ
  EXPECT_EQ(general_category(0x00BD), C::kNo);  // ½
  EXPECT_EQ(general_category('_'), C::kPc);
  EXPECT_EQ(general_category(0x20AC), C::kSc);   // €
  EXPECT_EQ(general_category(0x1F600), C::kSo);  // 😀
  EXPECT_EQ(general_category(' '), C::kZs);
  EXPECT_EQ(general_category(0x2028), C::kZl);
  EXPECT_EQ(general_category(0x2029), C::kZp);
  EXPECT_EQ(general_category('\n'), C::kCc);
  EXPECT_EQ(general_category(0x200D), C::kCf);  // ZWJ
  EXPECT_EQ(general_category(0xE000), C::kCo);  // private use range
  EXPECT_EQ(general_category(0x0378), C::kCn);  // unassigned
  EXPECT_EQ(general_category(0x110000), C::kCn);
  EXPECT_TRUE(is_letter(0x00E9));
  EXPECT_FALSE(is_letter(0x0301));
  EXPECT_TRUE(is_number(0x00B2));  // ²
  EXPECT_TRUE(is_mark(0xFE0F));    // variation selector 16
}

TEST(TokenizerUnicode, WhiteSpaceIsTheWhiteSpaceProperty) {
  for (char32_t c : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028,
                     0x2029, 0x202F, 0x205F, 0x3000})
    EXPECT_TRUE(is_white_space(c)) << std::hex << uint32_t(c);
  // Not White_Space: the information separators, the zero-width characters, U+180E (Cf since
  // Unicode 6.3), the BOM.
  for (char32_t c : {U'\x1C', U'\x1F', U'\u200B', U'\u200D', U'\u180E', U'\uFEFF', U'a'})
    EXPECT_FALSE(is_white_space(c)) << std::hex << uint32_t(c);
}

TEST(TokenizerUnicode, WordCharacters) {
  for (char32_t c : {U'a', U'Z', U'5', U'_', U'\u00E9', U'\u0301', U'\u0663', U'\u200C', U'\u200D',
                     U'\u4E2D', U'\u2160'})
    EXPECT_TRUE(is_word_char(c)) << std::hex << uint32_t(c);
  for (char32_t c : {U' ', U'-', U',', U'\u00BD', U'\U0001F600', U'\u3000'})
    EXPECT_FALSE(is_word_char(c)) << std::hex << uint32_t(c);
}

TEST(TokenizerUnicode, CombiningClasses) {
  EXPECT_EQ(combining_class('a'), 0);
  EXPECT_EQ(combining_class(0x0301), 230);
  EXPECT_EQ(combining_class(0x0323), 220);
  EXPECT_EQ(combining_class(0x093C), 7);
}

TEST(TokenizerUtf8, DecodesWellFormedSequences) {
  const std::string s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a é € 😀
  Utf8Char c = decode_utf8(s, 0);
  EXPECT_EQ(c.cp, U'a');
  c = decode_utf8(s, 1);
  EXPECT_EQ(c.cp, 0xE9u);
  EXPECT_EQ(c.length, 2);
  c = decode_utf8(s, 3);
  EXPECT_EQ(c.cp, 0x20ACu);
  EXPECT_EQ(c.length, 3);
  c = decode_utf8(s, 6);
  EXPECT_EQ(c.cp, 0x1F600u);
  EXPECT_EQ(c.length, 4);
  EXPECT_TRUE(is_valid_utf8(s));
  std::string out;
  for (char32_t cp : {U'a', char32_t(0xE9), char32_t(0x20AC), char32_t(0x1F600)})
    append_utf8(out, cp);
  EXPECT_EQ(out, s);
}

TEST(TokenizerUtf8, IllFormedSequencesBecomeOneReplacementPerMaximalSubpart) {
  // Unicode §3.9 Table 3-8's example: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
  const std::string bad = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
  EXPECT_FALSE(is_valid_utf8(bad));
  EXPECT_EQ(utf8_lossy(bad), "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd");
  // Overlong, surrogate and out-of-range forms.
  EXPECT_EQ(utf8_lossy("\xC0\xAF"), "\uFFFD\uFFFD");
  EXPECT_EQ(utf8_lossy("\xE0\x80\xAF"), "\uFFFD\uFFFD\uFFFD");
  EXPECT_EQ(utf8_lossy("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");
  EXPECT_EQ(utf8_lossy("\xF4\x90\x80\x80"), "\uFFFD\uFFFD\uFFFD\uFFFD");
  EXPECT_EQ(utf8_lossy("\xE2\x82"), "\uFFFD");  // a truncated sequence: one subpart
}

TEST(TokenizerNormalize, Nfd) {
  EXPECT_EQ(to_nfd("caf\u00E9"), "cafe\u0301");
  EXPECT_EQ(to_nfd("\u1E69"), "s\u0323\u0307");         // recursive: ṩ = s + dot below + dot
  EXPECT_EQ(to_nfd("\uD55C"), "\u1112\u1161\u11AB");    // 한: algorithmic Hangul
  EXPECT_EQ(to_nfd("a\u0301\u0323"), "a\u0323\u0301");  // canonical order: 220 before 230
  EXPECT_EQ(to_nfd("\u212B"), "A\u030A");               // Å ANGSTROM SIGN (singleton)
  EXPECT_EQ(to_nfd("plain ascii"), "plain ascii");
}

TEST(TokenizerNormalize, Nfc) {
  EXPECT_EQ(to_nfc("cafe\u0301"), "caf\u00E9");
  EXPECT_EQ(to_nfc("s\u0307\u0323"), "\u1E69");        // reordered, then composed twice
  EXPECT_EQ(to_nfc("\u1112\u1161\u11AB"), "\uD55C");   // L V T -> LVT
  EXPECT_EQ(to_nfc("\u1112\u1161"), "\uD558");         // L V -> LV
  EXPECT_EQ(to_nfc("\u212B"), "\u00C5");               // singleton: never composed back
  EXPECT_EQ(to_nfc("\u0958"), "\u0915\u093C");         // composition exclusion (क़)
  EXPECT_EQ(to_nfc("\u0344"), "\u0308\u0301");         // non-starter decomposition
  EXPECT_EQ(to_nfc("a\u0323\u0301"), "\u1EA1\u0301");  // ạ then the acute stays apart
  EXPECT_EQ(to_nfc("e\u0301\u0301"), "\u00E9\u0301");  // a second acute is blocked
  EXPECT_EQ(to_nfc("\u0B47\u0B3E"), "\u0B4B");         // two starters compose
  EXPECT_EQ(to_nfc("\u00E9"), "\u00E9");
  // Ill-formed bytes pass through and block composition across them.
  EXPECT_EQ(to_nfc("e\xFF\u0301"), "e\xFF\u0301");
  EXPECT_EQ(to_nfc("\xE2\x82"), "\xE2\x82");
}

TEST(TokenizerByteLevel, Gpt2ByteMap) {
  EXPECT_EQ(byte_to_unicode('!'), U'!');
  EXPECT_EQ(byte_to_unicode('~'), U'~');
  EXPECT_EQ(byte_to_unicode(0xA1), char32_t(0xA1));
  EXPECT_EQ(byte_to_unicode(0xFF), char32_t(0xFF));
  EXPECT_EQ(byte_to_unicode(0x00), char32_t(0x100));
  EXPECT_EQ(byte_to_unicode('\n'), char32_t(0x10A));  // Ċ
  EXPECT_EQ(byte_to_unicode(' '), char32_t(0x120));   // Ġ
  EXPECT_EQ(byte_to_unicode(0x7F), char32_t(0x121));
  EXPECT_EQ(byte_to_unicode(0xAD), char32_t(0x143));  // the last one: 68 bytes remapped
  std::set<char32_t> image;
  for (int b = 0; b < 256; ++b) {
    const char32_t cp = byte_to_unicode(static_cast<uint8_t>(b));
    image.insert(cp);
    EXPECT_EQ(unicode_to_byte(cp), std::optional<uint8_t>(static_cast<uint8_t>(b)));
  }
  EXPECT_EQ(image.size(), 256u);
  EXPECT_EQ(unicode_to_byte(0x144), std::nullopt);
  EXPECT_EQ(byte_level_encode(" hi\n"), "\u0120hi\u010A");
  EXPECT_EQ(byte_level_decode("\u0120hi\u010A"), std::optional<std::string>(" hi\n"));
  EXPECT_EQ(byte_level_decode("\u4E2D"), std::nullopt);
}

}  // namespace
}  // namespace cppnn::llm
