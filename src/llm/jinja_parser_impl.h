// The chat-template parser's state and grammar functions (private to jinja_parser.cpp, which
// parses statements, and jinja_parse_expression.cpp, which parses expressions). The function
// names follow jinja2/parser.py, whose structure this mirrors so that precedence and the odd
// corners (a filter binding after a unary minus, left-associative **, adjacent string literals
// joining) come out the same.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/llm/jinja_ast.h"
#include "src/llm/jinja_lexer.h"

namespace cppnn::llm::jinja {

// Tag names that end a block ("endfor", "else", ...).
using EndNames = std::initializer_list<std::string_view>;

// A recursive-descent parser over the lexer's tokens.
class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens) : tokens_(tokens) {}

  // The whole template.
  Result<std::vector<Node>> parse();

 private:
  // ---- Token stream ----

  const Token& cur() const { return tokens_[std::min(index_, tokens_.size() - 1)]; }
  const Token& look() const { return tokens_[std::min(index_ + 1, tokens_.size() - 1)]; }
  // Moves to the next token (staying on kEnd).
  void advance();
  // True when `t` is the operator `op` / the name `name`.
  static bool is_op(const Token& t, std::string_view op);
  static bool is_name(const Token& t, std::string_view name);
  // Consumes the operator `op` / the name `name` when it is current.
  bool skip_op(std::string_view op);
  bool skip_name(std::string_view name);

  // How Jinja describes a token in messages.
  static std::string describe_token(const Token& t);

  // A DataError "line L, column C: message"; "unexpected 'x'" for a token.
  ErrorInfo fail(SourcePos pos, const std::string& message) const;
  ErrorInfo unexpected(const Token& t) const;

  // Consumes the expected operator, token kind or name, else an error naming what came.
  Status expect_op(std::string_view op);
  Status expect_kind(TokenKind kind, std::string_view what);
  Result<std::string> expect_name();

  // ---- Bounds ----

  // Counts one level of parser recursion for the scope of an object.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) { ++p_.nesting_; }
    ~Nesting() { --p_.nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };
  // An error once the nesting exceeds kMaxParseNesting.
  Status check_nesting(SourcePos pos) const;

  // Makes an expression node; an error when it would be taller than kMaxExprHeight.
  Result<ExprPtr> make(ExprKind kind, SourcePos pos, std::vector<ExprPtr> children = {});
  Result<ExprPtr> finish(ExprPtr e);

  // ---- Statements ----

  // Statements until one of `end_names` starts a block tag (left as the current token).
  Result<std::vector<Node>> subparse(EndNames end_names);

  // "unexpected end of template", naming the tags that would have closed the block.
  ErrorInfo fail_eof(EndNames end_names) const;

  // A block body up to one of `end_names`; with `drop_needle` the end name is consumed.
  Result<std::vector<Node>> parse_statements(EndNames end_names, bool drop_needle);

  // One {% tag %} (the current token is its name) and its body.
  Result<Node> parse_statement();

  // The statement of `tag`, or an error for an unknown or unsupported tag.
  Result<Node> parse_tag(const std::string& tag);

  // Assignment targets: a name, `ns.attr` (with_namespace), or a tuple of names.
  struct Target {
    std::vector<std::string> names;
    std::string attribute;
  };
  Result<Target> parse_assign_target(EndNames extra_end, bool with_namespace);

  // {% for %}, {% if %}, {% set %}, {% macro %} (with the rest of its signature and body),
  // {% filter %}, {% with %}, {% print %}, and a new-scope body ({% generation %}).
  Result<Node> parse_for();

  Result<Node> parse_if();

  Result<Node> parse_set();

  Result<Node> parse_macro();

  Status parse_macro_rest(MacroDef& macro);

  Result<Node> parse_filter_block();

  Result<Node> parse_with();

  Result<Node> parse_print();

  Result<Node> parse_scope(std::string_view end_name);

  // ---- Expressions ----

  bool is_tuple_end(EndNames extra_end) const;

  // Expressions separated by commas: one expression, or a tuple when a comma appears.
  Result<ExprPtr> parse_tuple(bool with_condexpr, EndNames extra_end, bool explicit_parentheses);

  // One expression (with `a if b else c` when with_condexpr).
  Result<ExprPtr> parse_expression(bool with_condexpr);

  // The precedence levels, loosest first.
  Result<ExprPtr> parse_condexpr();

  // A two-operand node; an arithmetic node.
  Result<ExprPtr> binary(ExprKind kind, SourcePos pos, ExprPtr left, ExprPtr right);

  Result<ExprPtr> parse_or();

  Result<ExprPtr> parse_and();

  Result<ExprPtr> parse_not();

  Result<ExprPtr> parse_compare();

  Result<ExprPtr> arithmetic(BinaryOp op, SourcePos pos, ExprPtr left, ExprPtr right);

  Result<ExprPtr> parse_math1();

  Result<ExprPtr> parse_concat();

  Result<ExprPtr> parse_math2();

  Result<ExprPtr> parse_pow();

  Result<ExprPtr> parse_unary(bool with_filter);

  // A literal node.
  Result<ExprPtr> literal(SourcePos pos, Value value);

  // A name, literal, parenthesized expression or tuple, list or dict.
  Result<ExprPtr> parse_primary();

  Result<ExprPtr> parse_list();

  Result<ExprPtr> parse_dict();

  // `.name`, `[...]` and calls after a primary; then filters, tests and calls.
  Result<ExprPtr> parse_postfix(ExprPtr node);

  Result<ExprPtr> parse_filter_expr(ExprPtr node);

  // `.name`, `.0` or `[index]` / `[start:stop:step]`.
  Result<ExprPtr> parse_subscript(ExprPtr node);

  // One subscript: an index (one part) or a slice start:stop:step (three parts, null when
  // absent; `slice` set).
  Result<std::vector<ExprPtr>> parse_subscribed(bool& slice);

  // `(positional, keyword=value)`; a call node.
  Status parse_call_args(ArgsAst& args);

  Result<ExprPtr> parse_call(ExprPtr callee);

  // A dotted filter or test name.
  Result<std::string> parse_dotted_name();

  // `| name(args)` filters applied to `node` (null in filter blocks); with `start_inline` the
  // first filter has no leading '|'.
  Result<ExprPtr> parse_filter(ExprPtr node, bool start_inline);

  // `is [not] name`, with arguments in parentheses or one bare argument.
  Result<ExprPtr> parse_test(ExprPtr node);

  const std::vector<Token>& tokens_;
  size_t index_ = 0;
  uint32_t nesting_ = 0;
  int loop_depth_ = 0;
  MacroDef* macro_ = nullptr;
  std::vector<std::string> open_tags_;
};

}  // namespace cppnn::llm::jinja
