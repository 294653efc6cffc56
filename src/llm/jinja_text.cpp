// Python str semantics on UTF-8 text (see jinja_text.h).
#include "src/llm/jinja_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "src/core/utf8.h"

namespace cppnn::llm::jinja {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// A range [first, last] of code points whose upper-case letters sit at even (parity 0) or odd
// (parity 1) code points, each followed by its lower-case letter.
struct AlternatingRange {
  char32_t first;
  char32_t last;
  char32_t upper_parity;
};

// Latin Extended-A/B, Cyrillic and Latin Extended Additional blocks that alternate upper/lower.
constexpr AlternatingRange kAlternating[] = {
    {0x0100, 0x012F, 0}, {0x0132, 0x0137, 0}, {0x0139, 0x0148, 1}, {0x014A, 0x0177, 0},
    {0x0179, 0x017E, 1}, {0x01CD, 0x01DC, 1}, {0x01DE, 0x01EF, 0}, {0x01F8, 0x021F, 0},
    {0x0460, 0x0481, 0}, {0x048A, 0x04BF, 0}, {0x04C1, 0x04CE, 1}, {0x04D0, 0x052F, 0},
    {0x1E00, 0x1E95, 0}, {0x1EA0, 0x1EFF, 0},
};

// A range of upper-case letters whose lower-case letters are `offset` code points above.
struct OffsetRange {
  char32_t first;
  char32_t last;
  char32_t offset;
};

constexpr OffsetRange kOffsetUpper[] = {
    {'A', 'Z', 32},       {0x00C0, 0x00D6, 32}, {0x00D8, 0x00DE, 32}, {0x0388, 0x038A, 37},
    {0x038E, 0x038F, 63}, {0x0391, 0x03A1, 32}, {0x03A3, 0x03AB, 32}, {0x0400, 0x040F, 80},
    {0x0410, 0x042F, 32}, {0x0531, 0x0556, 48}, {0xFF21, 0xFF3A, 32},
};

// Single pairs (upper, lower) outside the regular ranges.
constexpr std::pair<char32_t, char32_t> kPairs[] = {
    {0x0178, 0x00FF}, {0x0386, 0x03AC}, {0x038C, 0x03CC}, {0x04C0, 0x04CF}, {0x1E9E, 0x00DF},
};

// The simple lower-case mapping of `cp` (itself when it has none).
char32_t simple_lower(char32_t cp) {
  for (const OffsetRange& r : kOffsetUpper) {
    if (cp >= r.first && cp <= r.last) return cp + r.offset;
  }
  for (const AlternatingRange& r : kAlternating) {
    if (cp >= r.first && cp <= r.last && (cp & 1) == r.upper_parity) {
      return cp + 1 <= r.last ? cp + 1 : cp;
    }
  }
  for (const auto& [upper, lower] : kPairs) {
    if (cp == upper) return lower;
  }
  return cp;
}

// The simple upper-case mapping of `cp` (itself when it has none).
char32_t simple_upper(char32_t cp) {
  switch (cp) {
    case 0x00B5:
      return 0x039C;  // micro sign
    case 0x0131:
      return 'I';  // dotless i
    case 0x017F:
      return 'S';  // long s
    case 0x03C2:
      return 0x03A3;  // final sigma
    case 0x00DF:
      return cp;  // ß: only the full mapping (SS) changes it
    default:
      break;
  }
  for (const OffsetRange& r : kOffsetUpper) {
    if (cp >= r.first + r.offset && cp <= r.last + r.offset) return cp - r.offset;
  }
  for (const AlternatingRange& r : kAlternating) {
    if (cp > r.first && cp <= r.last && (cp & 1) != r.upper_parity) return cp - 1;
  }
  for (const auto& [upper, lower] : kPairs) {
    if (cp == lower && upper != 0x1E9E) return upper;
  }
  return cp;
}

// Appends the full upper-case mapping of `cp` (ß -> SS).
void append_upper(std::string& out, char32_t cp) {
  if (cp == 0x00DF) {
    out += "SS";
  } else {
    utf8_append(out, simple_upper(cp));
  }
}

// Appends the full title-case mapping of `cp` (ß -> Ss).
void append_title(std::string& out, char32_t cp) {
  if (cp == 0x00DF) {
    out += "Ss";
  } else {
    utf8_append(out, simple_upper(cp));
  }
}

// Appends the full lower-case mapping of `cp` (İ -> i + combining dot above).
void append_lower(std::string& out, char32_t cp) {
  if (cp == 0x0130) {
    out += "i\xCC\x87";
  } else {
    utf8_append(out, simple_lower(cp));
  }
}

// Case-ignorable characters that the Final_Sigma rule skips (apostrophes, periods, colons,
// modifier letters, soft hyphen, combining marks).
bool is_case_ignorable(char32_t cp) {
  return cp == '\'' || cp == '.' || cp == ':' || cp == '^' || cp == '`' || cp == 0x00AD ||
         cp == 0x00B7 || cp == 0x2018 || cp == 0x2019 || cp == 0x2024 || cp == 0x2027 ||
         (cp >= 0x02B0 && cp <= 0x036F) || (cp >= 0x0483 && cp <= 0x0489) ||
         (cp >= 0x1DC0 && cp <= 0x1DFF) || (cp >= 0x20D0 && cp <= 0x20FF) ||
         (cp >= 0xFE20 && cp <= 0xFE2F);
}

// Appends the lower case of cps[i], with Python's Final_Sigma rule for U+03A3 (a capital sigma
// after a cased letter and not before one becomes the final form U+03C2), looking at the
// characters in [begin, end) around it.
void append_lower_in_context(std::string& out, const std::u32string& cps, size_t i, size_t begin,
                             size_t end) {
  if (cps[i] != 0x03A3) {
    append_lower(out, cps[i]);
    return;
  }
  size_t j = i;
  while (j > begin && is_case_ignorable(cps[j - 1])) --j;
  bool final_sigma = j > begin && is_cased(cps[j - 1]);
  if (final_sigma) {
    size_t k = i + 1;
    while (k < end && is_case_ignorable(cps[k])) ++k;
    final_sigma = k == end || !is_cased(cps[k]);
  }
  utf8_append(out, final_sigma ? 0x03C2 : 0x03C3);
}

bool in_set(char32_t cp, const std::u32string& set) {
  return set.find(cp) != std::u32string::npos;
}

// Appends `cp` as \xhh, \uhhhh or \Uhhhhhhhh (Python's repr escapes).
void append_escape(std::string& out, char32_t cp) {
  char buf[16];
  if (cp < 0x100) {
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
  } else if (cp < 0x10000) {
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  } else {
    std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
  }
  out += buf;
}

}  // namespace

char32_t utf8_next(std::string_view text, size_t& pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b0 = byte(pos);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  size_t length = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++pos;
    return kReplacement;
  }
  if (text.size() - pos < length) {
    ++pos;
    return kReplacement;
  }
  for (size_t i = 1; i < length; ++i) {
    const unsigned char b = byte(pos + i);
    if ((b & 0xC0) != 0x80) {
      ++pos;
      return kReplacement;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++pos;
    return kReplacement;
  }
  pos += length;
  return cp;
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
  core::append_utf8(out, cp);
}

std::u32string utf8_decode(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) out += utf8_next(text, pos);
  return out;
}

std::string utf8_encode(std::u32string_view cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) utf8_append(out, cp);
  return out;
}

size_t code_point_count(std::string_view text) {
  size_t count = 0;
  for (size_t pos = 0; pos < text.size(); ++count) utf8_next(text, pos);
  return count;
}

bool is_python_space(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
         cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool is_python_printable(char32_t cp) {
  if (cp == ' ') return true;
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0)) return false;  // Cc and NBSP
  if (is_python_space(cp)) return false;                      // Zs, Zl, Zp
  static constexpr std::pair<char32_t, char32_t> kNotPrintable[] = {
      {0x00AD, 0x00AD},    {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
      {0x070F, 0x070F},    {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},
      {0x200B, 0x200F},    {0x202A, 0x202E},   {0x2060, 0x2064},   {0x2066, 0x206F},
      {0xD800, 0xF8FF},    {0xFDD0, 0xFDEF},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},
      {0xFFFE, 0xFFFF},    {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F},
      {0x1BCA0, 0x1BCA3},  {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
      {0xF0000, 0x10FFFF},
  };
  for (const auto& [first, last] : kNotPrintable) {
    if (cp >= first && cp <= last) return false;
  }
  return (cp & 0xFFFE) != 0xFFFE;  // the last two code points of every plane are noncharacters
}

bool is_word_char(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
           cp == '_';
  }
  if (cp < 0xC0) {
    return cp == 0xAA || cp == 0xB2 || cp == 0xB3 || cp == 0xB5 || cp == 0xB9 || cp == 0xBA ||
           (cp >= 0xBC && cp <= 0xBE);
  }
  if (cp == 0xD7 || cp == 0xF7 || !is_python_printable(cp) || is_python_space(cp)) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) {
    return (cp >= 0x2070 && cp <= 0x209F) || (cp >= 0x2100 && cp <= 0x218F) ||
           (cp >= 0x2460 && cp <= 0x24FF);
  }
  static constexpr std::pair<char32_t, char32_t> kNotWord[] = {
      {0x037E, 0x037E}, {0x0387, 0x0387}, {0x055A, 0x055F},   {0x0589, 0x058A}, {0x060C, 0x060D},
      {0x061B, 0x061F}, {0x066A, 0x066D}, {0x06D4, 0x06D4},   {0x0964, 0x0965}, {0x0E3F, 0x0E3F},
      {0x2E00, 0x2E7F}, {0x3000, 0x3004}, {0x3008, 0x3020},   {0x3030, 0x3030}, {0x30FB, 0x30FB},
      {0xFE30, 0xFE4F}, {0xFE50, 0xFE6F}, {0xFF01, 0xFF0F},   {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40},
      {0xFF5B, 0xFF65}, {0xFFE0, 0xFFEF}, {0x1F000, 0x1FAFF},
  };
  for (const auto& [first, last] : kNotWord) {
    if (cp >= first && cp <= last) return false;
  }
  return true;
}

bool is_lower(char32_t cp) {
  return cp == 0x00DF || simple_upper(cp) != cp;
}
bool is_upper(char32_t cp) {
  return cp == 0x0130 || simple_lower(cp) != cp;
}
bool is_cased(char32_t cp) {
  return is_lower(cp) || is_upper(cp);
}

std::string python_upper(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) append_upper(out, utf8_next(text, pos));
  return out;
}

std::string python_lower(std::string_view text) {
  const std::u32string cps = utf8_decode(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < cps.size(); ++i) append_lower_in_context(out, cps, i, 0, cps.size());
  return out;
}

std::string python_title(std::string_view text) {
  const std::u32string cps = utf8_decode(text);
  std::string out;
  out.reserve(text.size());
  bool previous_cased = false;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (previous_cased) {
      append_lower_in_context(out, cps, i, 0, cps.size());
    } else {
      append_title(out, cps[i]);
    }
    previous_cased = is_cased(cps[i]);
  }
  return out;
}

std::string python_capitalize(std::string_view text) {
  const std::u32string cps = utf8_decode(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < cps.size(); ++i) {
    if (i == 0) {
      append_title(out, cps[i]);
    } else {
      append_lower_in_context(out, cps, i, 0, cps.size());
    }
  }
  return out;
}

std::string jinja_title(std::string_view text) {
  // Jinja splits at runs of [-\s({[<] and capitalizes every piece, the separators included
  // (whose first character has no case): piece[0].upper() + piece[1:].lower().
  const auto is_separator = [](char32_t cp) {
    return cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || is_python_space(cp);
  };
  const std::u32string cps = utf8_decode(text);
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start < cps.size()) {
    const bool separator = is_separator(cps[start]);
    size_t end = start + 1;
    while (end < cps.size() && is_separator(cps[end]) == separator) ++end;
    append_upper(out, cps[start]);
    for (size_t i = start + 1; i < end; ++i) append_lower_in_context(out, cps, i, start + 1, end);
    start = end;
  }
  return out;
}

std::string python_strip(std::string_view text, bool left, bool right,
                         std::optional<std::string_view> chars) {
  const std::u32string cps = utf8_decode(text);
  const std::u32string set = chars ? utf8_decode(*chars) : std::u32string();
  const auto strip = [&](char32_t cp) { return chars ? in_set(cp, set) : is_python_space(cp); };
  size_t begin = 0;
  size_t end = cps.size();
  if (left) {
    while (begin < end && strip(cps[begin])) ++begin;
  }
  if (right) {
    while (end > begin && strip(cps[end - 1])) --end;
  }
  return utf8_encode(std::u32string_view(cps).substr(begin, end - begin));
}

std::vector<std::string> python_split(std::string_view text, std::optional<std::string_view> sep,
                                      long long maxsplit) {
  std::vector<std::string> parts;
  if (sep) {
    size_t start = 0;
    while (maxsplit < 0 || static_cast<long long>(parts.size()) < maxsplit) {
      const size_t found = text.find(*sep, start);
      if (found == std::string_view::npos) break;
      parts.emplace_back(text.substr(start, found - start));
      start = found + sep->size();
    }
    parts.emplace_back(text.substr(start));
    return parts;
  }
  const std::u32string cps = utf8_decode(text);
  size_t i = 0;
  while (true) {
    while (i < cps.size() && is_python_space(cps[i])) ++i;
    if (i == cps.size()) break;
    if (maxsplit >= 0 && static_cast<long long>(parts.size()) == maxsplit) {
      parts.push_back(utf8_encode(std::u32string_view(cps).substr(i)));
      break;
    }
    const size_t start = i;
    while (i < cps.size() && !is_python_space(cps[i])) ++i;
    parts.push_back(utf8_encode(std::u32string_view(cps).substr(start, i - start)));
  }
  return parts;
}

std::vector<std::string> python_rsplit(std::string_view text, std::optional<std::string_view> sep,
                                       long long maxsplit) {
  std::vector<std::string> parts;
  if (sep) {
    size_t end = text.size();
    while (maxsplit < 0 || static_cast<long long>(parts.size()) < maxsplit) {
      if (end < sep->size()) break;
      const size_t found = text.rfind(*sep, end - sep->size());
      if (found == std::string_view::npos) break;
      parts.emplace_back(text.substr(found + sep->size(), end - found - sep->size()));
      end = found;
    }
    parts.emplace_back(text.substr(0, end));
  } else {
    const std::u32string cps = utf8_decode(text);
    size_t i = cps.size();
    while (true) {
      while (i > 0 && is_python_space(cps[i - 1])) --i;
      if (i == 0) break;
      if (maxsplit >= 0 && static_cast<long long>(parts.size()) == maxsplit) {
        parts.push_back(utf8_encode(std::u32string_view(cps).substr(0, i)));
        break;
      }
      const size_t end = i;
      while (i > 0 && !is_python_space(cps[i - 1])) --i;
      parts.push_back(utf8_encode(std::u32string_view(cps).substr(i, end - i)));
    }
  }
  return std::vector<std::string>(parts.rbegin(), parts.rend());
}

std::vector<std::string> python_splitlines(std::string_view text, bool keepends) {
  const std::u32string cps = utf8_decode(text);
  std::vector<std::string> lines;
  size_t start = 0;
  size_t i = 0;
  while (i < cps.size()) {
    const char32_t cp = cps[i];
    const bool is_break = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C ||
                          (cp >= 0x1C && cp <= 0x1E) || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
    if (!is_break) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    if (cp == '\r' && end < cps.size() && cps[end] == '\n') ++end;
    lines.push_back(
        utf8_encode(std::u32string_view(cps).substr(start, (keepends ? end : i) - start)));
    start = i = end;
  }
  if (start < cps.size()) lines.push_back(utf8_encode(std::u32string_view(cps).substr(start)));
  return lines;
}

std::optional<std::string> python_replace(std::string_view text, std::string_view old_text,
                                          std::string_view new_text, long long count,
                                          size_t max_bytes) {
  std::string out;
  long long done = 0;
  const auto room = [&](size_t more) {
    return out.size() <= max_bytes && more <= max_bytes - out.size();
  };
  if (old_text.empty()) {
    // Python inserts `new` before every character and at the end.
    size_t pos = 0;
    while (true) {
      if (count < 0 || done < count) {
        if (!room(new_text.size())) return std::nullopt;
        out += new_text;
        ++done;
      }
      if (pos >= text.size()) break;
      const size_t start = pos;
      utf8_next(text, pos);
      if (!room(pos - start)) return std::nullopt;
      out.append(text.substr(start, pos - start));
    }
    return out;
  }
  size_t start = 0;
  while (count < 0 || done < count) {
    const size_t found = text.find(old_text, start);
    if (found == std::string_view::npos) break;
    if (!room(found - start + new_text.size())) return std::nullopt;
    out.append(text.substr(start, found - start));
    out += new_text;
    start = found + old_text.size();
    ++done;
  }
  if (!room(text.size() - start)) return std::nullopt;
  out.append(text.substr(start));
  return out;
}

std::string python_repr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t pos = 0; pos < text.size();) {
    const char32_t cp = utf8_next(text, pos);
    if (cp == static_cast<char32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (!is_python_printable(cp)) {
      append_escape(out, cp);
    } else {
      utf8_append(out, cp);
    }
  }
  out += quote;
  return out;
}

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // The shortest round-trip digits, as d.ddde±x, then laid out as Python's repr does.
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<size_t>(result.ptr - buf));
  const size_t e_at = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_at);
  int exponent = 0;
  std::from_chars(sci.data() + e_at + 1 + (sci[e_at + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  std::string out;
  if (!mantissa.empty() && mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      const size_t int_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_digits) {
        out += digits;
        out.append(int_digits - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, int_digits);
        out += '.';
        out += digits.substr(int_digits);
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  char exp_buf[16];
  std::snprintf(exp_buf, sizeof exp_buf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  out += exp_buf;
  return out;
}

}  // namespace cppnn::llm::jinja
