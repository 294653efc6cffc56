// Python `str` semantics on UTF-8 text for the chat-template interpreter (src/llm/jinja_*.h).
// Jinja2 runs on Python strings, so lengths, indices and slices count code points, whitespace is
// what Python's str.isspace() accepts, and case mapping follows str.upper()/lower(). Text here is
// valid UTF-8 (the template and the context are checked on entry); an ill-formed byte decodes to
// U+FFFD rather than failing, so no input can make these functions misbehave.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cppnn::llm::jinja {

// The code point at byte `pos` of `text` (pos < text.size()); advances `pos` past it. An
// ill-formed byte gives U+FFFD and advances by one.
char32_t utf8_next(std::string_view text, size_t& pos);

// Appends `cp` as UTF-8 (surrogates and values past U+10FFFF become U+FFFD).
void utf8_append(std::string& out, char32_t cp);

// The code points of `text`.
std::u32string utf8_decode(std::string_view text);

// `cps` as UTF-8.
std::string utf8_encode(std::u32string_view cps);

// len(text): the number of code points.
size_t code_point_count(std::string_view text);

// Python's str.isspace() for one character (Unicode White_Space plus U+001C..U+001F).
bool is_python_space(char32_t cp);

// True for characters Python's str.isprintable() accepts (repr() shows them unescaped): not a
// control, format, separator (other than the space), surrogate or private-use character.
bool is_python_printable(char32_t cp);

// An approximation of Python's regex \w for one character (letters, digits, numbers and '_' in
// any script; punctuation, symbols, emoji and spaces are not word characters).
bool is_word_char(char32_t cp);

// True for a cased letter with an upper/lower mapping in the tables of jinja_text.cpp (Latin,
// Greek, Cyrillic, Armenian, Vietnamese Latin, full-width Latin).
bool is_cased(char32_t cp);
bool is_lower(char32_t cp);
bool is_upper(char32_t cp);

// str.upper(), str.lower(), str.title(), str.capitalize(), str.swapcase() (simple case mapping
// plus ß -> SS; other scripts are left unchanged).
std::string python_upper(std::string_view text);
std::string python_lower(std::string_view text);
std::string python_title(std::string_view text);
std::string python_capitalize(std::string_view text);

// Jinja's `title` filter: the first character of each word (words begin after '-', whitespace
// or an opening bracket) upper-cased and the rest lower-cased.
std::string jinja_title(std::string_view text);

// str.strip/lstrip/rstrip: removes characters of `chars` (Python whitespace when nullopt).
std::string python_strip(std::string_view text, bool left, bool right,
                         std::optional<std::string_view> chars = std::nullopt);

// str.split(sep, maxsplit) (sep nullopt: runs of whitespace; sep must not be empty) and
// str.rsplit(sep, maxsplit). maxsplit < 0 means no limit.
std::vector<std::string> python_split(std::string_view text, std::optional<std::string_view> sep,
                                      long long maxsplit);
std::vector<std::string> python_rsplit(std::string_view text, std::optional<std::string_view> sep,
                                       long long maxsplit);

// str.splitlines(keepends): splits at \n, \r, \r\n, \v, \f, \x1c..\x1e, \x85, U+2028, U+2029.
std::vector<std::string> python_splitlines(std::string_view text, bool keepends);

// str.replace(old, new, count) (count < 0: all; an empty `old` inserts between characters).
// Returns nullopt when the result would exceed `max_bytes`.
std::optional<std::string> python_replace(std::string_view text, std::string_view old_text,
                                          std::string_view new_text, long long count,
                                          size_t max_bytes);

// repr(text): quoted as Python does (single quotes unless the text holds ' and no ").
std::string python_repr(std::string_view text);

// repr(float) (the shortest round-trip digits, Python's choice of fixed or exponent notation:
// 1.0, 0.0001, 1e-05, 1e+16, inf, nan).
std::string python_float_repr(double value);

}  // namespace cppnn::llm::jinja
