// The chat-template parser's expressions, in jinja2/parser.py's precedence order: conditional,
// or, and, not, comparisons, + -, ~, * / // %, **, unary - +, primary with postfix . [] () and
// filters | and tests `is` (see jinja_parser_impl.h).
#include <algorithm>

#include "src/llm/jinja_parser.h"
#include "src/llm/jinja_parser_impl.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_try.h"

namespace cppnn::llm::jinja {

bool Parser::is_tuple_end(EndNames extra_end) const {
  const Token& t = cur();
  if (t.kind == TokenKind::kVariableEnd || t.kind == TokenKind::kBlockEnd || is_op(t, ")")) {
    return true;
  }
  return t.kind == TokenKind::kName &&
         std::find(extra_end.begin(), extra_end.end(), t.text) != extra_end.end();
}

// Expressions separated by commas: one expression, or a tuple when a comma appears.
Result<ExprPtr> Parser::parse_tuple(bool with_condexpr, EndNames extra_end,
                                    bool explicit_parentheses) {
  const SourcePos pos = cur().pos;
  std::vector<ExprPtr> items;
  bool is_tuple = false;
  while (true) {
    if (!items.empty()) CPPNN_RETURN_IF_ERROR(expect_op(","));
    if (is_tuple_end(extra_end)) break;
    JINJA_TRY(ExprPtr item, parse_expression(with_condexpr));
    items.push_back(std::move(item));
    if (is_op(cur(), ",")) {
      is_tuple = true;
    } else {
      break;
    }
  }
  if (!is_tuple) {
    if (!items.empty()) return std::move(items.front());
    if (!explicit_parentheses) {
      return fail(cur().pos, str_cat("expected an expression, got '", describe_token(cur()), "'"));
    }
  }
  return make(ExprKind::kTuple, pos, std::move(items));
}

Result<ExprPtr> Parser::parse_expression(bool with_condexpr) {
  Nesting nesting(*this);
  CPPNN_RETURN_IF_ERROR(check_nesting(cur().pos));
  return with_condexpr ? parse_condexpr() : parse_or();
}

Result<ExprPtr> Parser::parse_condexpr() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr expr, parse_or());
  while (is_name(cur(), "if")) {
    advance();
    JINJA_TRY(ExprPtr test, parse_or());
    ExprPtr otherwise;
    if (skip_name("else")) {
      JINJA_TRY(otherwise, parse_condexpr());
    }
    std::vector<ExprPtr> children;
    children.push_back(std::move(expr));
    children.push_back(std::move(test));
    children.push_back(std::move(otherwise));
    JINJA_TRY(expr, make(ExprKind::kCondition, pos, std::move(children)));
  }
  return expr;
}

Result<ExprPtr> Parser::binary(ExprKind kind, SourcePos pos, ExprPtr left, ExprPtr right) {
  std::vector<ExprPtr> children;
  children.push_back(std::move(left));
  children.push_back(std::move(right));
  return make(kind, pos, std::move(children));
}

Result<ExprPtr> Parser::parse_or() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr left, parse_and());
  while (skip_name("or")) {
    JINJA_TRY(ExprPtr right, parse_and());
    JINJA_TRY(left, binary(ExprKind::kOr, pos, std::move(left), std::move(right)));
  }
  return left;
}

Result<ExprPtr> Parser::parse_and() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr left, parse_not());
  while (skip_name("and")) {
    JINJA_TRY(ExprPtr right, parse_not());
    JINJA_TRY(left, binary(ExprKind::kAnd, pos, std::move(left), std::move(right)));
  }
  return left;
}

Result<ExprPtr> Parser::parse_not() {
  if (is_name(cur(), "not")) {
    const SourcePos pos = cur().pos;
    advance();
    Nesting nesting(*this);
    CPPNN_RETURN_IF_ERROR(check_nesting(pos));
    JINJA_TRY(ExprPtr operand, parse_not());
    std::vector<ExprPtr> children;
    children.push_back(std::move(operand));
    return make(ExprKind::kNot, pos, std::move(children));
  }
  return parse_compare();
}

Result<ExprPtr> Parser::parse_compare() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr first, parse_math1());
  std::vector<ExprPtr> children;
  std::vector<CompareOp> ops;
  children.push_back(std::move(first));
  while (true) {
    const Token& t = cur();
    CompareOp op;
    if (is_op(t, "==")) {
      op = CompareOp::kEq;
    } else if (is_op(t, "!=")) {
      op = CompareOp::kNe;
    } else if (is_op(t, "<")) {
      op = CompareOp::kLt;
    } else if (is_op(t, "<=")) {
      op = CompareOp::kLe;
    } else if (is_op(t, ">")) {
      op = CompareOp::kGt;
    } else if (is_op(t, ">=")) {
      op = CompareOp::kGe;
    } else if (is_name(t, "in")) {
      op = CompareOp::kIn;
    } else if (is_name(t, "not") && is_name(look(), "in")) {
      advance();
      op = CompareOp::kNotIn;
    } else {
      break;
    }
    advance();
    JINJA_TRY(ExprPtr operand, parse_math1());
    children.push_back(std::move(operand));
    ops.push_back(op);
  }
  if (ops.empty()) return std::move(children.front());
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kCompare;
  e->pos = pos;
  e->children = std::move(children);
  e->compare_ops = std::move(ops);
  return finish(std::move(e));
}

Result<ExprPtr> Parser::arithmetic(BinaryOp op, SourcePos pos, ExprPtr left, ExprPtr right) {
  JINJA_TRY(ExprPtr e, binary(ExprKind::kBinary, pos, std::move(left), std::move(right)));
  e->binary_op = op;
  return e;
}

Result<ExprPtr> Parser::parse_math1() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr left, parse_concat());
  while (is_op(cur(), "+") || is_op(cur(), "-")) {
    const BinaryOp op = cur().text == "+" ? BinaryOp::kAdd : BinaryOp::kSub;
    advance();
    JINJA_TRY(ExprPtr right, parse_concat());
    JINJA_TRY(left, arithmetic(op, pos, std::move(left), std::move(right)));
  }
  return left;
}

Result<ExprPtr> Parser::parse_concat() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr left, parse_math2());
  while (skip_op("~")) {
    JINJA_TRY(ExprPtr right, parse_math2());
    JINJA_TRY(left, binary(ExprKind::kConcat, pos, std::move(left), std::move(right)));
  }
  return left;
}

Result<ExprPtr> Parser::parse_math2() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr left, parse_pow());
  while (true) {
    BinaryOp op;
    if (is_op(cur(), "*")) {
      op = BinaryOp::kMul;
    } else if (is_op(cur(), "/")) {
      op = BinaryOp::kDiv;
    } else if (is_op(cur(), "//")) {
      op = BinaryOp::kFloorDiv;
    } else if (is_op(cur(), "%")) {
      op = BinaryOp::kMod;
    } else {
      break;
    }
    advance();
    JINJA_TRY(ExprPtr right, parse_pow());
    JINJA_TRY(left, arithmetic(op, pos, std::move(left), std::move(right)));
  }
  return left;
}

Result<ExprPtr> Parser::parse_pow() {
  const SourcePos pos = cur().pos;
  JINJA_TRY(ExprPtr left, parse_unary(true));
  while (skip_op("**")) {
    JINJA_TRY(ExprPtr right, parse_unary(true));
    JINJA_TRY(left, arithmetic(BinaryOp::kPow, pos, std::move(left), std::move(right)));
  }
  return left;
}

Result<ExprPtr> Parser::parse_unary(bool with_filter) {
  const SourcePos pos = cur().pos;
  ExprPtr node;
  if (is_op(cur(), "-") || is_op(cur(), "+")) {
    const ExprKind kind = cur().text == "-" ? ExprKind::kNegate : ExprKind::kPlus;
    advance();
    Nesting nesting(*this);
    CPPNN_RETURN_IF_ERROR(check_nesting(pos));
    JINJA_TRY(ExprPtr operand, parse_unary(false));
    std::vector<ExprPtr> children;
    children.push_back(std::move(operand));
    JINJA_TRY(node, make(kind, pos, std::move(children)));
  } else {
    JINJA_TRY(node, parse_primary());
  }
  JINJA_TRY(node, parse_postfix(std::move(node)));
  if (with_filter) {
    JINJA_TRY(node, parse_filter_expr(std::move(node)));
  }
  return node;
}

Result<ExprPtr> Parser::literal(SourcePos pos, Value value) {
  JINJA_TRY(ExprPtr e, make(ExprKind::kLiteral, pos));
  e->literal = std::move(value);
  return e;
}

Result<ExprPtr> Parser::parse_primary() {
  const Token& t = cur();
  const SourcePos pos = t.pos;
  switch (t.kind) {
    case TokenKind::kName: {
      const std::string name = t.text;
      advance();
      if (name == "true" || name == "True") return literal(pos, Value::boolean(true));
      if (name == "false" || name == "False") return literal(pos, Value::boolean(false));
      if (name == "none" || name == "None") return literal(pos, Value::none());
      if (macro_ && name == "varargs") macro_->uses_varargs = true;
      if (macro_ && name == "kwargs") macro_->uses_kwargs = true;
      JINJA_TRY(ExprPtr e, make(ExprKind::kName, pos));
      e->name = name;
      return e;
    }
    case TokenKind::kString: {
      std::string text;
      while (cur().kind == TokenKind::kString) {  // adjacent literals join
        text += cur().text;
        advance();
      }
      return literal(pos, Value::string(std::move(text)));
    }
    case TokenKind::kInteger: {
      const int64_t value = t.integer;
      advance();
      return literal(pos, Value::integer(value));
    }
    case TokenKind::kFloat: {
      const double value = t.number;
      advance();
      return literal(pos, Value::number(value));
    }
    case TokenKind::kOperator: {
      Nesting nesting(*this);
      CPPNN_RETURN_IF_ERROR(check_nesting(pos));
      if (t.text == "(") {
        advance();
        JINJA_TRY(ExprPtr inner, parse_tuple(true, {}, true));
        CPPNN_RETURN_IF_ERROR(expect_op(")"));
        return inner;
      }
      if (t.text == "[") return parse_list();
      if (t.text == "{") return parse_dict();
      break;
    }
    default:
      break;
  }
  return unexpected(t);
}

Result<ExprPtr> Parser::parse_list() {
  const SourcePos pos = cur().pos;
  advance();
  std::vector<ExprPtr> items;
  while (!is_op(cur(), "]")) {
    if (!items.empty()) CPPNN_RETURN_IF_ERROR(expect_op(","));
    if (is_op(cur(), "]")) break;
    JINJA_TRY(ExprPtr item, parse_expression(true));
    items.push_back(std::move(item));
  }
  CPPNN_RETURN_IF_ERROR(expect_op("]"));
  return make(ExprKind::kList, pos, std::move(items));
}

Result<ExprPtr> Parser::parse_dict() {
  const SourcePos pos = cur().pos;
  advance();
  std::vector<ExprPtr> items;
  while (!is_op(cur(), "}")) {
    if (!items.empty()) CPPNN_RETURN_IF_ERROR(expect_op(","));
    if (is_op(cur(), "}")) break;
    JINJA_TRY(ExprPtr key, parse_expression(true));
    CPPNN_RETURN_IF_ERROR(expect_op(":"));
    JINJA_TRY(ExprPtr value, parse_expression(true));
    items.push_back(std::move(key));
    items.push_back(std::move(value));
  }
  CPPNN_RETURN_IF_ERROR(expect_op("}"));
  return make(ExprKind::kDict, pos, std::move(items));
}

Result<ExprPtr> Parser::parse_postfix(ExprPtr node) {
  while (true) {
    if (is_op(cur(), ".") || is_op(cur(), "[")) {
      JINJA_TRY(node, parse_subscript(std::move(node)));
    } else if (is_op(cur(), "(")) {
      JINJA_TRY(node, parse_call(std::move(node)));
    } else {
      return node;
    }
  }
}

Result<ExprPtr> Parser::parse_filter_expr(ExprPtr node) {
  while (true) {
    if (is_op(cur(), "|")) {
      JINJA_TRY(node, parse_filter(std::move(node), false));
    } else if (is_name(cur(), "is")) {
      JINJA_TRY(node, parse_test(std::move(node)));
    } else if (is_op(cur(), "(")) {
      JINJA_TRY(node, parse_call(std::move(node)));
    } else {
      return node;
    }
  }
}

Result<ExprPtr> Parser::parse_subscript(ExprPtr node) {
  const Token& t = cur();
  const SourcePos pos = t.pos;
  if (t.text == ".") {
    advance();
    const Token& attr = cur();
    if (attr.kind == TokenKind::kName) {
      const std::string name = attr.text;
      advance();
      std::vector<ExprPtr> children;
      children.push_back(std::move(node));
      JINJA_TRY(ExprPtr e, make(ExprKind::kGetAttr, pos, std::move(children)));
      e->name = name;
      return e;
    }
    if (attr.kind != TokenKind::kInteger) return fail(attr.pos, "expected name or number");
    JINJA_TRY(ExprPtr index, literal(attr.pos, Value::integer(attr.integer)));
    advance();
    std::vector<ExprPtr> children;
    children.push_back(std::move(node));
    children.push_back(std::move(index));
    return make(ExprKind::kGetItem, pos, std::move(children));
  }
  // '[' subscripts ']': one index, one slice, or several indices making a tuple key.
  advance();
  Nesting nesting(*this);
  CPPNN_RETURN_IF_ERROR(check_nesting(pos));
  std::vector<ExprPtr> indices;
  std::vector<ExprPtr> slice_parts;
  size_t count = 0;
  while (!is_op(cur(), "]")) {
    if (count > 0) CPPNN_RETURN_IF_ERROR(expect_op(","));
    bool is_slice = false;
    JINJA_TRY(auto parts, parse_subscribed(is_slice));
    ++count;
    if (is_slice) {
      slice_parts = std::move(parts);
    } else {
      indices.push_back(std::move(parts.front()));
    }
  }
  CPPNN_RETURN_IF_ERROR(expect_op("]"));
  std::vector<ExprPtr> children;
  children.push_back(std::move(node));
  if (!slice_parts.empty()) {
    if (count != 1) return fail(pos, "slices inside a tuple subscript are not supported");
    for (auto& part : slice_parts) children.push_back(std::move(part));
    return make(ExprKind::kSlice, pos, std::move(children));
  }
  if (count == 1) {
    children.push_back(std::move(indices.front()));
  } else {
    JINJA_TRY(ExprPtr key, make(ExprKind::kTuple, pos, std::move(indices)));
    children.push_back(std::move(key));
  }
  return make(ExprKind::kGetItem, pos, std::move(children));
}

// One subscript: an index (one part) or a slice start:stop:step (three parts, null when
// absent; `slice` set).
Result<std::vector<ExprPtr>> Parser::parse_subscribed(bool& slice) {
  std::vector<ExprPtr> parts;
  if (is_op(cur(), ":")) {
    advance();
    parts.push_back(nullptr);
  } else {
    JINJA_TRY(ExprPtr index, parse_expression(true));
    if (!is_op(cur(), ":")) {
      parts.push_back(std::move(index));
      return parts;
    }
    advance();
    parts.push_back(std::move(index));
  }
  slice = true;
  if (is_op(cur(), ":") || is_op(cur(), "]") || is_op(cur(), ",")) {
    parts.push_back(nullptr);
  } else {
    JINJA_TRY(ExprPtr stop, parse_expression(true));
    parts.push_back(std::move(stop));
  }
  if (skip_op(":")) {
    if (is_op(cur(), "]") || is_op(cur(), ",")) {
      parts.push_back(nullptr);
    } else {
      JINJA_TRY(ExprPtr step, parse_expression(true));
      parts.push_back(std::move(step));
    }
  } else {
    parts.push_back(nullptr);
  }
  return parts;
}

Status Parser::parse_call_args(ArgsAst& args) {
  const SourcePos pos = cur().pos;
  CPPNN_RETURN_IF_ERROR(expect_op("("));
  Nesting nesting(*this);
  CPPNN_RETURN_IF_ERROR(check_nesting(pos));
  bool require_comma = false;
  while (!is_op(cur(), ")")) {
    if (require_comma) {
      CPPNN_RETURN_IF_ERROR(expect_op(","));
      if (is_op(cur(), ")")) break;
    }
    if (is_op(cur(), "*") || is_op(cur(), "**")) {
      return fail(cur().pos, "*args and **kwargs in calls are not supported");
    }
    if (cur().kind == TokenKind::kName && is_op(look(), "=")) {
      std::string key = cur().text;
      advance();
      advance();
      JINJA_TRY(ExprPtr value, parse_expression(true));
      args.keywords.emplace_back(std::move(key), std::move(value));
    } else {
      if (!args.keywords.empty()) {
        return fail(cur().pos, "invalid syntax for function call expression");
      }
      JINJA_TRY(ExprPtr value, parse_expression(true));
      args.positional.push_back(std::move(value));
    }
    require_comma = true;
  }
  advance();
  return Ok{};
}

Result<ExprPtr> Parser::parse_call(ExprPtr callee) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kCall;
  e->pos = cur().pos;
  e->children.push_back(std::move(callee));
  CPPNN_RETURN_IF_ERROR(parse_call_args(e->args));
  return finish(std::move(e));
}

// A dotted filter or test name.
Result<std::string> Parser::parse_dotted_name() {
  JINJA_TRY(std::string name, expect_name());
  while (skip_op(".")) {
    JINJA_TRY(std::string part, expect_name());
    name += "." + part;
  }
  return name;
}

// `| name(args)` filters applied to `node` (null in filter blocks); with `start_inline` the
// first filter has no leading '|'.
Result<ExprPtr> Parser::parse_filter(ExprPtr node, bool start_inline) {
  while (is_op(cur(), "|") || start_inline) {
    if (!start_inline) advance();
    start_inline = false;
    const SourcePos pos = cur().pos;
    JINJA_TRY(std::string name, parse_dotted_name());
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kFilter;
    e->pos = pos;
    e->name = std::move(name);
    e->children.push_back(std::move(node));
    if (is_op(cur(), "(")) CPPNN_RETURN_IF_ERROR(parse_call_args(e->args));
    JINJA_TRY(node, finish(std::move(e)));
  }
  return node;
}

Result<ExprPtr> Parser::parse_test(ExprPtr node) {
  advance();  // 'is'
  const bool negated = skip_name("not");
  const SourcePos pos = cur().pos;
  JINJA_TRY(std::string name, parse_dotted_name());
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kTest;
  e->pos = pos;
  e->name = std::move(name);
  e->negated = negated;
  e->children.push_back(std::move(node));
  const Token& t = cur();
  if (is_op(t, "(")) {
    CPPNN_RETURN_IF_ERROR(parse_call_args(e->args));
  } else if ((t.kind == TokenKind::kName || t.kind == TokenKind::kString ||
              t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat || is_op(t, "[") ||
              is_op(t, "{")) &&
             !is_name(t, "else") && !is_name(t, "or") && !is_name(t, "and")) {
    // `is divisibleby 3`, `is sameas none`: one argument without parentheses.
    if (is_name(t, "is")) return fail(t.pos, "you cannot chain multiple tests with is");
    JINJA_TRY(ExprPtr arg, parse_primary());
    JINJA_TRY(arg, parse_postfix(std::move(arg)));
    e->args.positional.push_back(std::move(arg));
  }
  return finish(std::move(e));
}

}  // namespace cppnn::llm::jinja
