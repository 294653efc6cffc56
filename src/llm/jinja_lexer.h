// The chat-template lexer: Jinja2's tokenizer (jinja2/lexer.py) for the default delimiters
// {{ }}, {% %}, {# #}, with the whitespace rules Hugging Face transformers renders chat templates
// with: trim_blocks (the first newline after a block or comment tag is removed), lstrip_blocks
// (spaces and tabs before a block or comment tag on its own line are removed), `-` to strip all
// whitespace on that side of a tag, `+` to keep it, and {% raw %} sections. Like Jinja, it
// normalizes \r\n and \r to \n and drops one trailing newline of the template.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace cppnn::llm::jinja {

// A 1-based line and column (in characters) of the template text.
struct SourcePos {
  uint32_t line = 1;
  uint32_t column = 1;
};

// "line 3, column 7" for error messages.
std::string describe(SourcePos pos);

// The kinds of tokens.
enum class TokenKind : uint8_t {
  kText,           // template data between tags, whitespace control applied
  kVariableBegin,  // {{
  kVariableEnd,    // }}
  kBlockBegin,     // {%
  kBlockEnd,       // %}
  kName,           // an identifier (keywords such as `and` or `if` are names too, as in Jinja)
  kString,         // a string literal, escapes decoded
  kInteger,        // an integer literal (decimal, 0x, 0o, 0b, `_` separators)
  kFloat,          // a float literal
  kOperator,       // + - * / // % ** ~ == != < <= > >= = . : | , ; ( ) [ ] { }
  kEnd,            // end of the template
};

// One token. `text` is the data, name, decoded string or operator symbol.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  SourcePos pos;
  std::string text;
  int64_t integer = 0;
  double number = 0;
};

// The whitespace options of Jinja's Environment (transformers turns both on).
struct LexerOptions {
  bool trim_blocks = true;
  bool lstrip_blocks = true;
};

// The tokens of `source` (valid UTF-8), ending with kEnd; a DataError naming the line and column
// of an unterminated tag, comment, raw block or string, an unknown character, an unbalanced
// bracket or a bad literal.
Result<std::vector<Token>> tokenize(std::string_view source, const LexerOptions& options);

}  // namespace cppnn::llm::jinja
