// The chat-template lexer (see jinja_lexer.h). The structure follows jinja2/lexer.py: a root
// state that finds the next tag and applies the whitespace rules to the text before it, and tag
// states that read expression tokens until the closing delimiter, which only counts while no
// bracket is open.
#include "src/llm/jinja_lexer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "src/llm/jinja_state.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// Byte offsets of the normalized source to line/column positions.
class SourceMap {
 public:
  explicit SourceMap(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  // The position of `offset` (a character boundary). Positions are mostly asked in increasing
  // order, so a cursor keeps the cost linear on one long line.
  SourcePos at(size_t offset) {
    offset = std::min(offset, text_.size());
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());
    if (line != cursor_line_ || offset < cursor_offset_) {
      cursor_line_ = line;
      cursor_offset_ = line_starts_[line - 1];
      cursor_column_ = 1;
    }
    cursor_column_ += code_point_count(text_.substr(cursor_offset_, offset - cursor_offset_));
    cursor_offset_ = offset;
    return SourcePos{static_cast<uint32_t>(line), static_cast<uint32_t>(cursor_column_)};
  }

 private:
  std::string_view text_;
  std::vector<size_t> line_starts_;
  size_t cursor_line_ = 0;
  size_t cursor_offset_ = 0;
  size_t cursor_column_ = 1;
};

// \r\n and \r become \n, and one trailing newline is dropped (keep_trailing_newline=False).
std::string normalize_newlines(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || is_digit(c);
}

// The length of Python whitespace (\s*) at `pos`.
size_t whitespace_length(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end < text.size()) {
    size_t next = end;
    if (!is_python_space(utf8_next(text, next))) break;
    end = next;
  }
  return end - pos;
}

// `text` without its trailing Python whitespace (str.rstrip()).
std::string_view rstrip(std::string_view text) {
  // Decode forwards (UTF-8 cannot be decoded backwards safely in general) and keep the end of
  // the last non-space character.
  size_t keep = 0;
  for (size_t pos = 0; pos < text.size();) {
    const char32_t cp = utf8_next(text, pos);
    if (!is_python_space(cp)) keep = pos;
  }
  return text.substr(0, keep);
}

// True when `text` is non-empty and all Python whitespace (`\s+` fully matching).
bool all_space(std::string_view text) {
  return !text.empty() && whitespace_length(text, 0) == text.size();
}

class Lexer {
 public:
  Lexer(std::string_view source, const LexerOptions& options)
      : src_(source), map_(source), options_(options) {}

  Result<std::vector<Token>> run() {
    size_t pos = 0;
    while (pos < src_.size()) {
      const size_t tag = find_tag(pos);
      if (tag == std::string_view::npos) {
        emit_text(src_.substr(pos), pos);
        break;
      }
      const char kind = src_[tag + 1];
      size_t after = tag + 2;
      char sign = 0;
      if (after < src_.size() && (src_[after] == '-' || src_[after] == '+')) sign = src_[after];
      const std::optional<size_t> raw_end = kind == '%' ? match_raw_begin(tag) : std::nullopt;
      emit_text(strip_before_tag(src_.substr(pos, tag - pos), sign, kind != '{'), pos);
      if (sign) ++after;
      if (raw_end) {
        auto next = lex_raw(tag, *raw_end);
        if (!next.ok()) return next.error();
        pos = *next;
      } else if (kind == '#') {
        auto next = lex_comment(tag, after);
        if (!next.ok()) return next.error();
        pos = *next;
      } else {
        auto next = lex_tag(tag, after, kind == '%');
        if (!next.ok()) return next.error();
        pos = *next;
      }
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.pos = map_.at(src_.size());
    tokens_.push_back(std::move(end));
    return std::move(tokens_);
  }

 private:
  ErrorInfo error_at(size_t offset, const std::string& message) {
    return template_error(describe(map_.at(offset)), ": ", message);
  }

  // The next "{{", "{%" or "{#" at or after `pos`.
  size_t find_tag(size_t pos) const {
    while (true) {
      pos = src_.find('{', pos);
      if (pos == std::string_view::npos || pos + 1 >= src_.size()) return std::string_view::npos;
      const char next = src_[pos + 1];
      if (next == '{' || next == '%' || next == '#') return pos;
      ++pos;
    }
  }

  // The whitespace control applied to the text before a tag: `-` strips all whitespace; else,
  // for block and comment tags with lstrip_blocks, the spaces and tabs between the line start and
  // the tag (OptionalLStrip in jinja2/lexer.py).
  std::string_view strip_before_tag(std::string_view text, char sign, bool lstrip_kind) const {
    if (sign == '-') return rstrip(text);
    if (sign != '+' && options_.lstrip_blocks && lstrip_kind) {
      const size_t newline = text.rfind('\n');
      const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
      if ((line_start > 0 || line_starting_) && all_space(text.substr(line_start))) {
        return text.substr(0, line_start);
      }
    }
    return text;
  }

  void emit_text(std::string_view text, size_t offset) {
    if (text.empty()) return;
    Token token;
    token.kind = TokenKind::kText;
    token.pos = map_.at(offset);
    token.text = std::string(text);
    tokens_.push_back(std::move(token));
  }

  void emit(TokenKind kind, size_t offset, std::string text = {}) {
    Token token;
    token.kind = kind;
    token.pos = map_.at(offset);
    token.text = std::move(text);
    tokens_.push_back(std::move(token));
  }

  // If "{%[-+]? raw (-%}\s*|%})" starts at `tag`, the offset after it.
  std::optional<size_t> match_raw_begin(size_t tag) const {
    size_t p = tag + 2;
    if (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) ++p;
    p += whitespace_length(src_, p);
    if (src_.substr(p, 3) != "raw") return std::nullopt;
    p += 3;
    p += whitespace_length(src_, p);
    if (src_.substr(p, 3) == "-%}") return p + 3 + whitespace_length(src_, p + 3);
    if (src_.substr(p, 2) == "%}") return p + 2;
    return std::nullopt;
  }

  // A {% raw %} section whose begin tag ends at `content`: its text up to {% endraw %}.
  Result<size_t> lex_raw(size_t tag, size_t content) {
    line_starting_ = src_[content - 1] == '\n';
    for (size_t i = src_.find("{%", content); i != std::string_view::npos;
         i = src_.find("{%", i + 1)) {
      size_t p = i + 2;
      char sign = 0;
      if (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) sign = src_[p++];
      p += whitespace_length(src_, p);
      if (src_.substr(p, 6) != "endraw") continue;
      p += 6;
      p += whitespace_length(src_, p);
      const std::optional<size_t> end = match_block_end(p);
      if (!end) continue;
      emit_text(strip_before_tag(src_.substr(content, i - content), sign, true), content);
      line_starting_ = src_[*end - 1] == '\n';
      return *end;
    }
    return error_at(tag, "missing end of raw directive ({% endraw %})");
  }

  // The end of "+%}", "-%}\s*" or "%}\n?" (trim_blocks) at `p`.
  std::optional<size_t> match_block_end(size_t p) const {
    if (src_.substr(p, 3) == "+%}") return p + 3;
    if (src_.substr(p, 3) == "-%}") return p + 3 + whitespace_length(src_, p + 3);
    if (src_.substr(p, 2) == "%}") {
      size_t end = p + 2;
      if (options_.trim_blocks && end < src_.size() && src_[end] == '\n') ++end;
      return end;
    }
    return std::nullopt;
  }

  // A comment: skipped up to "+#}", "-#}\s*" or "#}\n?".
  Result<size_t> lex_comment(size_t tag, size_t p) {
    for (; p < src_.size(); ++p) {
      size_t end = 0;
      if (src_.substr(p, 3) == "+#}") {
        end = p + 3;
      } else if (src_.substr(p, 3) == "-#}") {
        end = p + 3 + whitespace_length(src_, p + 3);
      } else if (src_.substr(p, 2) == "#}") {
        end = p + 2;
        if (options_.trim_blocks && end < src_.size() && src_[end] == '\n') ++end;
      } else {
        continue;
      }
      line_starting_ = src_[end - 1] == '\n';
      return end;
    }
    return error_at(tag, "missing end of comment tag (#})");
  }

  // The tokens of a {{ }} or {% %} tag opened at `tag`, from `p`.
  Result<size_t> lex_tag(size_t tag, size_t p, bool block) {
    emit(block ? TokenKind::kBlockBegin : TokenKind::kVariableBegin, tag);
    std::vector<std::pair<char, size_t>> brackets;  // expected closer, offset of the opener
    while (p < src_.size()) {
      if (brackets.empty()) {
        std::optional<size_t> end;
        if (block) {
          end = match_block_end(p);
        } else if (src_.substr(p, 3) == "-}}") {
          end = p + 3 + whitespace_length(src_, p + 3);
        } else if (src_.substr(p, 2) == "}}") {
          end = p + 2;
        }
        if (end) {
          emit(block ? TokenKind::kBlockEnd : TokenKind::kVariableEnd, p);
          line_starting_ = src_[*end - 1] == '\n';
          return *end;
        }
      }
      if (const size_t space = whitespace_length(src_, p); space > 0) {
        p += space;
        continue;
      }
      auto next = lex_expression_token(p, brackets);
      if (!next.ok()) return next.error();
      p = *next;
    }
    if (!brackets.empty()) {
      return error_at(brackets.back().second,
                      str_cat("unclosed '", std::string(1, src_[brackets.back().second]), "'"));
    }
    return error_at(tag, block ? "unexpected end of template: the block tag {% is not closed"
                               : "unexpected end of template: the expression tag {{ is not closed");
  }

  // One name, number, string or operator at `p`.
  Result<size_t> lex_expression_token(size_t p, std::vector<std::pair<char, size_t>>& brackets) {
    const char c = src_[p];
    if (is_digit(c)) return lex_number(p);
    if (is_name_start(c)) {
      size_t end = p;
      while (end < src_.size() && is_name_char(src_[end])) ++end;
      emit(TokenKind::kName, p, std::string(src_.substr(p, end - p)));
      return end;
    }
    if (c == '\'' || c == '"') return lex_string(p);
    static constexpr std::string_view kTwoChar[] = {"//", "**", "==", "!=", ">=", "<="};
    for (std::string_view op : kTwoChar) {
      if (src_.substr(p, 2) == op) {
        emit(TokenKind::kOperator, p, std::string(op));
        return p + 2;
      }
    }
    static constexpr std::string_view kOneChar = "+-/*%~[](){}><=.:|,;";
    if (kOneChar.find(c) == std::string_view::npos) {
      size_t next = p;
      const char32_t cp = utf8_next(src_, next);
      std::string shown;
      utf8_append(shown, cp);
      return error_at(p, str_cat("unexpected character ", python_repr(shown)));
    }
    if (c == '(' || c == '[' || c == '{') {
      brackets.emplace_back(c == '(' ? ')' : (c == '[' ? ']' : '}'), p);
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets.empty()) return error_at(p, str_cat("unexpected '", std::string(1, c), "'"));
      if (brackets.back().first != c) {
        return error_at(p, str_cat("unexpected '", std::string(1, c), "', expected '",
                                   std::string(1, brackets.back().first), "'"));
      }
      brackets.pop_back();
    }
    emit(TokenKind::kOperator, p, std::string(1, c));
    return p + 1;
  }

  // Digits with single `_` separators ((\d+_)*\d+) at `p`: their end, or `p` when none.
  size_t digit_run(size_t p) const {
    size_t end = p;
    while (end < src_.size() && is_digit(src_[end])) {
      ++end;
      if (end + 1 < src_.size() && src_[end] == '_' && is_digit(src_[end + 1])) ++end;
    }
    return end;
  }

  // An integer or float literal at `p` (a digit), as jinja2's integer_re and float_re read them.
  Result<size_t> lex_number(size_t p) {
    // float_re: (\d+_)*\d+ ( (\.(\d+_)*\d+)? e[+-]?(\d+_)*\d+ | \.(\d+_)*\d+ ), not after a '.'.
    const bool after_dot = p > 0 && src_[p - 1] == '.';
    const size_t int_end = digit_run(p);
    size_t float_end = 0;
    if (!after_dot) {
      size_t q = int_end;
      bool fraction = false;
      if (q + 1 < src_.size() && src_[q] == '.' && is_digit(src_[q + 1])) {
        q = digit_run(q + 1);
        fraction = true;
      }
      size_t e = q;
      if (e < src_.size() && (src_[e] == 'e' || src_[e] == 'E')) {
        ++e;
        if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
        if (e < src_.size() && is_digit(src_[e])) {
          float_end = digit_run(e);
        } else if (fraction) {
          float_end = q;
        }
      } else if (fraction) {
        float_end = q;
      }
    }
    if (float_end > 0) {
      std::string digits;
      for (char ch : src_.substr(p, float_end - p)) {
        if (ch != '_') digits += ch;
      }
      Token token;
      token.kind = TokenKind::kFloat;
      token.pos = map_.at(p);
      token.text = std::string(src_.substr(p, float_end - p));
      const auto parsed =
          std::from_chars(digits.data(), digits.data() + digits.size(), token.number);
      if (parsed.ec == std::errc::result_out_of_range) {
        // Python's float() gives inf on overflow and 0.0 on underflow.
        const bool negative_exponent =
            digits.find("e-") != std::string::npos || digits.find("E-") != std::string::npos;
        token.number = negative_exponent ? 0.0 : HUGE_VAL;
      } else if (parsed.ec != std::errc()) {
        return error_at(p, "invalid float literal");
      }
      tokens_.push_back(std::move(token));
      return float_end;
    }
    // integer_re: 0b/0o/0x with `_` separators, [1-9](_?\d)*, or 0(_?0)*.
    int base = 10;
    size_t start = p;
    size_t end = p;
    if (src_[p] == '0' && p + 1 < src_.size()) {
      const char prefix = static_cast<char>(src_[p + 1] | 0x20);
      base = prefix == 'b' ? 2 : (prefix == 'o' ? 8 : (prefix == 'x' ? 16 : 10));
    }
    const auto is_base_digit = [&](char ch) {
      if (base == 2) return ch == '0' || ch == '1';
      if (base == 8) return ch >= '0' && ch <= '7';
      if (base == 16) return is_digit(ch) || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
      return is_digit(ch);
    };
    if (base != 10) {
      // (_?[digit])+ after the prefix; without one digit, the literal is just "0".
      end = p + 2;
      start = end;
      while (true) {
        size_t q = end;
        if (q < src_.size() && src_[q] == '_') ++q;
        if (q < src_.size() && is_base_digit(src_[q])) {
          end = q + 1;
        } else {
          break;
        }
      }
      if (end == p + 2) {
        base = 10;
        start = p;
        end = p + 1;
      }
    } else if (src_[p] == '0') {
      end = p + 1;
      while (true) {
        size_t q = end;
        if (q < src_.size() && src_[q] == '_') ++q;
        if (q < src_.size() && src_[q] == '0') {
          end = q + 1;
        } else {
          break;
        }
      }
    } else {
      end = int_end;
    }
    uint64_t value = 0;
    for (char ch : src_.substr(start, end - start)) {
      if (ch == '_') continue;
      const int digit = is_digit(ch) ? ch - '0' : (ch | 0x20) - 'a' + 10;
      if (value > (static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(digit)) /
                      static_cast<uint64_t>(base)) {
        return error_at(p, "integer literal too large (template integers are 64-bit)");
      }
      value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
    }
    Token token;
    token.kind = TokenKind::kInteger;
    token.pos = map_.at(p);
    token.text = std::string(src_.substr(p, end - p));
    token.integer = static_cast<int64_t>(value);
    tokens_.push_back(std::move(token));
    return end;
  }

  // `count` hex digits at `p` as a number, or nullopt.
  std::optional<uint32_t> hex_digits(size_t p, size_t count) const {
    if (p + count > src_.size()) return std::nullopt;
    uint32_t value = 0;
    for (size_t i = 0; i < count; ++i) {
      const char ch = src_[p + i];
      int digit;
      if (is_digit(ch)) {
        digit = ch - '0';
      } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
        digit = (ch | 0x20) - 'a' + 10;
      } else {
        return std::nullopt;
      }
      value = value * 16 + static_cast<uint32_t>(digit);
    }
    return value;
  }

  // A string literal at `p`, decoded as Python's "unicode-escape" codec does (after Jinja's
  // backslashreplace of non-ASCII characters, so "\é" reads as the four characters \xe9).
  Result<size_t> lex_string(size_t p) {
    const char quote = src_[p];
    std::string value;
    size_t i = p + 1;
    while (true) {
      if (i >= src_.size()) return error_at(p, "unterminated string literal");
      const char c = src_[i];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        ++i;
        continue;
      }
      if (i + 1 >= src_.size()) return error_at(p, "unterminated string literal");
      const char e = src_[i + 1];
      i += 2;
      switch (e) {
        case '\n':
          break;  // line continuation
        case '\\':
          value += '\\';
          break;
        case '\'':
          value += '\'';
          break;
        case '"':
          value += '"';
          break;
        case 'a':
          value += '\a';
          break;
        case 'b':
          value += '\b';
          break;
        case 'f':
          value += '\f';
          break;
        case 'n':
          value += '\n';
          break;
        case 'r':
          value += '\r';
          break;
        case 't':
          value += '\t';
          break;
        case 'v':
          value += '\v';
          break;
        case 'x':
        case 'u':
        case 'U': {
          const size_t count = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
          const std::optional<uint32_t> cp = hex_digits(i, count);
          if (!cp) {
            return error_at(i - 2, str_cat("truncated \\", std::string(1, e), " escape"));
          }
          if (*cp > 0x10FFFF) return error_at(i - 2, "illegal Unicode character in escape");
          if (*cp >= 0xD800 && *cp <= 0xDFFF) {
            return error_at(i - 2, "a surrogate code point escape is not supported");
          }
          utf8_append(value, *cp);
          i += count;
          break;
        }
        case 'N':
          return error_at(i - 2, "\\N{...} escapes are not supported");
        default:
          if (e >= '0' && e <= '7') {
            uint32_t cp = static_cast<uint32_t>(e - '0');
            for (int k = 0; k < 2 && i < src_.size() && src_[i] >= '0' && src_[i] <= '7'; ++k) {
              cp = cp * 8 + static_cast<uint32_t>(src_[i++] - '0');
            }
            utf8_append(value, cp);
          } else if (static_cast<unsigned char>(e) >= 0x80) {
            // A backslash before a non-ASCII character: Python sees "\\" + "xhh"/"uhhhh".
            size_t q = i - 1;
            const char32_t cp = utf8_next(src_, q);
            char buf[16];
            if (cp < 0x100) {
              std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
            } else if (cp < 0x10000) {
              std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            } else {
              std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
            }
            value += buf;
            i = q;
          } else {
            value += '\\';  // unknown escapes stay as written
            value += e;
          }
      }
    }
    Token token;
    token.kind = TokenKind::kString;
    token.pos = map_.at(p);
    token.text = std::move(value);
    tokens_.push_back(std::move(token));
    return i + 1;
  }

  std::string_view src_;
  SourceMap map_;
  const LexerOptions& options_;
  std::vector<Token> tokens_;
  bool line_starting_ = true;  // the previous tag's match ended with a newline (or none yet)
};

}  // namespace

std::string describe(SourcePos pos) {
  return str_cat("line ", pos.line, ", column ", pos.column);
}

Result<std::vector<Token>> tokenize(std::string_view source, const LexerOptions& options) {
  const std::string normalized = normalize_newlines(source);
  Lexer lexer(normalized, options);
  return lexer.run();
}

}  // namespace cppnn::llm::jinja
