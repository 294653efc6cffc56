// The chat-template lexer (src/llm/jinja_lexer.h): tokens, Jinja's whitespace rules with
// trim_blocks and lstrip_blocks, raw sections, literals, and errors that name line and column.
#include "src/llm/jinja_lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cppnn::llm::jinja {
namespace {

std::vector<Token> lex(const std::string& source, LexerOptions options = {}) {
  auto tokens = tokenize(source, options);
  EXPECT_TRUE(tokens.ok()) << (tokens.ok() ? "" : tokens.error().message);
  return tokens.ok() ? *tokens : std::vector<Token>{};
}

// The text tokens of `source`, concatenated: what the template prints with no tags evaluated.
std::string texts(const std::string& source, LexerOptions options = {}) {
  std::string out;
  for (const Token& t : lex(source, options)) {
    if (t.kind == TokenKind::kText) out += t.text;
  }
  return out;
}

std::string error_of(const std::string& source) {
  auto tokens = tokenize(source, {});
  return tokens.ok() ? "(no error)" : tokens.error().message;
}

TEST(JinjaLexer, TokenKindsAndPositions) {
  const auto tokens = lex("Hé {{ name }}!\n{% if x %}");
  ASSERT_EQ(tokens.size(), 10u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kText);
  EXPECT_EQ(tokens[0].text, "Hé ");
  EXPECT_EQ(tokens[1].kind, TokenKind::kVariableBegin);
  EXPECT_EQ(tokens[1].pos.line, 1u);
  EXPECT_EQ(tokens[1].pos.column, 4u);  // columns count characters, not bytes
  EXPECT_EQ(tokens[2].kind, TokenKind::kName);
  EXPECT_EQ(tokens[2].text, "name");
  EXPECT_EQ(tokens[3].kind, TokenKind::kVariableEnd);
  EXPECT_EQ(tokens[4].text, "!\n");
  EXPECT_EQ(tokens[5].kind, TokenKind::kBlockBegin);
  EXPECT_EQ(tokens[5].pos.line, 2u);
  EXPECT_EQ(tokens[5].pos.column, 1u);
  EXPECT_EQ(tokens[6].text, "if");
  EXPECT_EQ(tokens[7].text, "x");
  EXPECT_EQ(tokens[8].kind, TokenKind::kBlockEnd);
  EXPECT_EQ(tokens[9].kind, TokenKind::kEnd);
}

TEST(JinjaLexer, DashStripsAllWhitespaceOnItsSide) {
  EXPECT_EQ(texts("a \n\t {%- if x -%} \n b"), "ab");
  EXPECT_EQ(texts("a  {{- x -}}  b"), "ab");
  EXPECT_EQ(texts("a  {#- note -#}  b"), "ab");
  EXPECT_EQ(texts("a\u3000{{- x }}"), "a");  // Python's whitespace includes U+3000
}

TEST(JinjaLexer, TrimBlocksRemovesTheFirstNewlineAfterABlockOrComment) {
  EXPECT_EQ(texts("{% if x %}\nA\n{% endif %}\nB"), "A\nB");
  EXPECT_EQ(texts("{# c #}\nA"), "A");
  EXPECT_EQ(texts("{{ x }}\nA"), "\nA");      // not after an expression
  EXPECT_EQ(texts("{% if x +%}\nA"), "\nA");  // '+' keeps it
  EXPECT_EQ(texts("{% if x %}\nA", {.trim_blocks = false, .lstrip_blocks = true}), "\nA");
}

TEST(JinjaLexer, LstripBlocksRemovesIndentBeforeBlocksOnTheirOwnLine) {
  EXPECT_EQ(texts("x\n  {% if y %}\n  z\n  {% endif %}\n"), "x\n  z\n");
  EXPECT_EQ(texts("  {% if y %}A"), "A");           // at the start of the template
  EXPECT_EQ(texts("x  {% if y %}A"), "x  A");       // text before it on the line
  EXPECT_EQ(texts("x\n  {{ y }}"), "x\n  ");        // not before an expression
  EXPECT_EQ(texts("x\n  {%+ if y %}A"), "x\n  A");  // '+' keeps it
  EXPECT_EQ(texts("x\n\t {# c #}A"), "x\nA");
  EXPECT_EQ(texts("x\n  {% if y %}A", {.trim_blocks = true, .lstrip_blocks = false}), "x\n  A");
}

TEST(JinjaLexer, RawSectionsAreText) {
  EXPECT_EQ(texts("{% raw %}{{ x }} {% if %}{% endraw %}!"), "{{ x }} {% if %}!");
  EXPECT_EQ(texts("  {% raw %}\n{{ x }}\n  {% endraw %}\nq"), "\n{{ x }}\nq");
  EXPECT_EQ(texts("a {%- raw -%} b {%- endraw -%} c"), "abc");
}

TEST(JinjaLexer, NewlinesAreNormalizedAndOneTrailingNewlineDropped) {
  EXPECT_EQ(texts("a\r\nb\rc\n"), "a\nb\nc");
  EXPECT_EQ(texts("a\n\n"), "a\n");
}

TEST(JinjaLexer, StringLiteralsDecodePythonEscapes) {
  const auto tokens = lex(R"({{ 'it\'s' "a\tb\n" '\u00e9\x41\101' '\d' '\é' }})");
  ASSERT_GE(tokens.size(), 7u);
  EXPECT_EQ(tokens[1].text, "it's");
  EXPECT_EQ(tokens[2].text, "a\tb\n");
  EXPECT_EQ(tokens[3].text,
            "\xC3\xA9"
            "AA");
  EXPECT_EQ(tokens[4].text, "\\d");    // an unknown escape stays as written
  EXPECT_EQ(tokens[5].text, "\\xe9");  // Jinja's backslashreplace quirk
  EXPECT_EQ(lex("{{ 'multi\nline' }}")[1].text, "multi\nline");
}

TEST(JinjaLexer, NumberLiterals) {
  const auto tokens = lex("{{ 1_000 0x1F 0o17 0b101 1.5e3 2.0 1e-7 007 }}");
  ASSERT_GE(tokens.size(), 10u);
  EXPECT_EQ(tokens[1].integer, 1000);
  EXPECT_EQ(tokens[2].integer, 31);
  EXPECT_EQ(tokens[3].integer, 15);
  EXPECT_EQ(tokens[4].integer, 5);
  EXPECT_EQ(tokens[5].kind, TokenKind::kFloat);
  EXPECT_DOUBLE_EQ(tokens[5].number, 1500.0);
  EXPECT_DOUBLE_EQ(tokens[6].number, 2.0);
  EXPECT_DOUBLE_EQ(tokens[7].number, 1e-7);
  // "007" is "00" then "7", as Jinja's integer rule reads it.
  EXPECT_EQ(tokens[8].integer, 0);
  EXPECT_EQ(tokens[9].integer, 7);
  // After a '.', digits are an index (foo.0.1), never a float.
  const auto attr = lex("{{ foo.0.1 }}");
  ASSERT_GE(attr.size(), 7u);
  EXPECT_EQ(attr[3].kind, TokenKind::kInteger);
  EXPECT_EQ(attr[5].kind, TokenKind::kInteger);
}

TEST(JinjaLexer, OperatorsAndBracketsInsideTags) {
  std::vector<std::string> ops;
  for (const Token& t : lex("{{ a // b ** c != d <= e ~ {'k': [1]} }}")) {
    if (t.kind == TokenKind::kOperator) ops.push_back(t.text);
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"//", "**", "!=", "<=", "~", "{", ":", "[", "]", "}"}));
  // "}}" inside open brackets closes the dict, not the tag.
  const auto tokens = lex("{{ {'a': {'b': 1}}}}");
  EXPECT_EQ(tokens[tokens.size() - 2].kind, TokenKind::kVariableEnd);
}

TEST(JinjaLexer, ErrorsNameLineAndColumn) {
  EXPECT_EQ(error_of("ok\n  {{ x"),
            "line 2, column 3: unexpected end of template: the expression tag {{ is not closed");
  EXPECT_EQ(error_of("{% if x"),
            "line 1, column 1: unexpected end of template: the block tag {% is not closed");
  EXPECT_EQ(error_of("a {# never closed"), "line 1, column 3: missing end of comment tag (#})");
  EXPECT_EQ(error_of("{% raw %}x"),
            "line 1, column 1: missing end of raw directive ({% endraw %})");
  EXPECT_EQ(error_of("\n\n{{ 'abc }}"), "line 3, column 4: unterminated string literal");
  EXPECT_EQ(error_of("{{ a $ b }}"), "line 1, column 6: unexpected character '$'");
  EXPECT_EQ(error_of("{{ a) }}"), "line 1, column 5: unexpected ')'");
  EXPECT_EQ(error_of("{{ [a) }}"), "line 1, column 6: unexpected ')', expected ']'");
  // Inside an open bracket "}}" does not close the tag (as in Jinja).
  EXPECT_EQ(error_of("{{ (a }}"), "line 1, column 7: unexpected '}', expected ')'");
  EXPECT_EQ(error_of("{{ (a"), "line 1, column 4: unclosed '('");
  EXPECT_EQ(error_of("{{ 99999999999999999999 }}"),
            "line 1, column 4: integer literal too large (template integers are 64-bit)");
  EXPECT_EQ(error_of("{{ '\\x4' }}"), "line 1, column 5: truncated \\x escape");
  EXPECT_EQ(error_of("{{ '\\ud800' }}"),
            "line 1, column 5: a surrogate code point escape is not supported");
}

}  // namespace
}  // namespace cppnn::llm::jinja
