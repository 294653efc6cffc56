// The chat-template parser: the token stream, statements, the check of filter and test names,
// and the entry point (see jinja_parser.h and jinja_parser_impl.h).
#include "src/llm/jinja_parser.h"

#include <algorithm>

#include "src/llm/jinja_filters.h"
#include "src/llm/jinja_is_tests.h"
#include "src/llm/jinja_parser_impl.h"
#include "src/llm/jinja_state.h"
#include "src/llm/jinja_try.h"

namespace cppnn::llm::jinja {

namespace {

// Tags Jinja knows that chat templates have no use for (they need other templates or a loader).
constexpr std::string_view kUnsupportedTags[] = {"block", "extends",    "include", "import",
                                                 "from",  "autoescape", "call"};

// Jinja checks filter and test names when it compiles a template, except inside {% if %} and
// conditional expressions ("soft" frames), where an unknown name only fails when evaluated.
// Loops, macros and blocks open hard frames again (jinja2/compiler.py, Frame.soft/inner).
class NameChecker {
 public:
  Status check(const std::vector<Node>& nodes, bool soft) {
    for (const Node& node : nodes) CPPNN_RETURN_IF_ERROR(check(node, soft));
    return Ok{};
  }

 private:
  Status check(const Node& node, bool soft) {
    switch (node.kind) {
      case NodeKind::kText:
      case NodeKind::kBreak:
      case NodeKind::kContinue:
        return Ok{};
      case NodeKind::kOutput:
      case NodeKind::kSet:
        return check(node.expr.get(), soft);
      case NodeKind::kPrint:
        return check(node.body, soft);
      case NodeKind::kIf:
        for (const IfBranch& branch : node.branches) {
          CPPNN_RETURN_IF_ERROR(check(branch.test.get(), true));
          CPPNN_RETURN_IF_ERROR(check(branch.body, true));
        }
        return check(node.else_body, true);
      case NodeKind::kFor:
        CPPNN_RETURN_IF_ERROR(check(node.expr.get(), soft));
        CPPNN_RETURN_IF_ERROR(check(node.condition.get(), false));
        CPPNN_RETURN_IF_ERROR(check(node.body, false));
        return check(node.else_body, false);
      case NodeKind::kSetBlock:
      case NodeKind::kFilterBlock:
        CPPNN_RETURN_IF_ERROR(check(node.expr.get(), false));
        return check(node.body, false);
      case NodeKind::kMacro:
        for (const ExprPtr& value : node.macro->defaults) {
          CPPNN_RETURN_IF_ERROR(check(value.get(), false));
        }
        return check(node.macro->body, false);
      case NodeKind::kWith:
        for (const auto& [name, value] : node.bindings) {
          CPPNN_RETURN_IF_ERROR(check(value.get(), soft));
        }
        return check(node.body, false);
      case NodeKind::kScope:
        return check(node.body, false);
    }
    return Ok{};
  }

  Status check(const Expr* e, bool soft) {
    if (!e) return Ok{};
    if (e->kind == ExprKind::kCondition) soft = true;
    if (!soft && e->kind == ExprKind::kFilter && !is_filter(e->name)) {
      return template_error(describe(e->pos), ": no filter named '", e->name, "'");
    }
    if (!soft && e->kind == ExprKind::kTest && !is_test(e->name)) {
      return template_error(describe(e->pos), ": no test named '", e->name, "'");
    }
    for (const ExprPtr& child : e->children) CPPNN_RETURN_IF_ERROR(check(child.get(), soft));
    for (const ExprPtr& arg : e->args.positional) CPPNN_RETURN_IF_ERROR(check(arg.get(), soft));
    for (const auto& [name, arg] : e->args.keywords) CPPNN_RETURN_IF_ERROR(check(arg.get(), soft));
    return Ok{};
  }
};

}  // namespace

Result<std::vector<Node>> Parser::parse() {
  JINJA_TRY(std::vector<Node> body, subparse({}));
  return body;
}

void Parser::advance() {
  if (index_ + 1 < tokens_.size()) ++index_;
}

bool Parser::is_op(const Token& t, std::string_view op) {
  return t.kind == TokenKind::kOperator && t.text == op;
}

bool Parser::is_name(const Token& t, std::string_view name) {
  return t.kind == TokenKind::kName && t.text == name;
}

bool Parser::skip_op(std::string_view op) {
  if (!is_op(cur(), op)) return false;
  advance();
  return true;
}

bool Parser::skip_name(std::string_view name) {
  if (!is_name(cur(), name)) return false;
  advance();
  return true;
}

// How Jinja describes a token in messages.
std::string Parser::describe_token(const Token& t) {
  switch (t.kind) {
    case TokenKind::kText:
      return "template data";
    case TokenKind::kVariableBegin:
      return "begin of print statement";
    case TokenKind::kVariableEnd:
      return "end of print statement";
    case TokenKind::kBlockBegin:
      return "begin of statement block";
    case TokenKind::kBlockEnd:
      return "end of statement block";
    case TokenKind::kName:
      return t.text;
    case TokenKind::kString:
      return "string";
    case TokenKind::kInteger:
      return "integer";
    case TokenKind::kFloat:
      return "float";
    case TokenKind::kOperator:
      return t.text;
    case TokenKind::kEnd:
      return "end of template";
  }
  return "token";
}

ErrorInfo Parser::fail(SourcePos pos, const std::string& message) const {
  return template_error(describe(pos), ": ", message);
}

ErrorInfo Parser::unexpected(const Token& t) const {
  return fail(t.pos, str_cat("unexpected '", describe_token(t), "'"));
}

Status Parser::expect_op(std::string_view op) {
  if (!skip_op(op)) {
    return fail(cur().pos, str_cat("expected '", op, "', got '", describe_token(cur()), "'"));
  }
  return Ok{};
}

Status Parser::expect_kind(TokenKind kind, std::string_view what) {
  if (cur().kind != kind) {
    return fail(cur().pos, str_cat("expected ", what, ", got '", describe_token(cur()), "'"));
  }
  advance();
  return Ok{};
}

Result<std::string> Parser::expect_name() {
  if (cur().kind != TokenKind::kName) {
    return fail(cur().pos, str_cat("expected a name, got '", describe_token(cur()), "'"));
  }
  std::string name = cur().text;
  advance();
  return name;
}

Status Parser::check_nesting(SourcePos pos) const {
  if (nesting_ > kMaxParseNesting) {
    return fail(pos, str_cat("the template nests deeper than ", kMaxParseNesting, " levels"));
  }
  return Ok{};
}

// Makes an expression node; an error when it would be taller than kMaxExprHeight.
Result<ExprPtr> Parser::make(ExprKind kind, SourcePos pos, std::vector<ExprPtr> children) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  e->children = std::move(children);
  return finish(std::move(e));
}

Result<ExprPtr> Parser::finish(ExprPtr e) {
  uint32_t height = 0;
  for (const auto& c : e->children) {
    if (c) height = std::max(height, c->height);
  }
  for (const auto& c : e->args.positional) height = std::max(height, c->height);
  for (const auto& [name, c] : e->args.keywords) height = std::max(height, c->height);
  e->height = height + 1;
  if (e->height > kMaxExprHeight) {
    return fail(e->pos, str_cat("the expression is more than ", kMaxExprHeight,
                                " levels deep (a chain of operators or filters too long)"));
  }
  return e;
}

// Statements until one of `end_names` starts a block tag (left as the current token).
Result<std::vector<Node>> Parser::subparse(EndNames end_names) {
  std::vector<Node> body;
  while (true) {
    const Token& t = cur();
    switch (t.kind) {
      case TokenKind::kText: {
        Node node;
        node.kind = NodeKind::kText;
        node.pos = t.pos;
        node.text = t.text;
        body.push_back(std::move(node));
        advance();
        break;
      }
      case TokenKind::kVariableBegin: {
        Node node;
        node.kind = NodeKind::kOutput;
        node.pos = t.pos;
        advance();
        JINJA_TRY(node.expr, parse_tuple(true, {}, false));
        CPPNN_RETURN_IF_ERROR(expect_kind(TokenKind::kVariableEnd, "'}}'"));
        body.push_back(std::move(node));
        break;
      }
      case TokenKind::kBlockBegin: {
        advance();
        if (cur().kind == TokenKind::kName &&
            std::find(end_names.begin(), end_names.end(), cur().text) != end_names.end()) {
          return body;
        }
        JINJA_TRY(Node node, parse_statement());
        CPPNN_RETURN_IF_ERROR(expect_kind(TokenKind::kBlockEnd, "'%}'"));
        body.push_back(std::move(node));
        break;
      }
      case TokenKind::kEnd:
        if (end_names.size() != 0) return fail_eof(end_names);
        return body;
      default:
        return unexpected(t);
    }
  }
}

ErrorInfo Parser::fail_eof(EndNames end_names) const {
  std::string looking;
  for (std::string_view name : end_names) {
    looking += looking.empty() ? "" : " or ";
    looking += str_cat("'", name, "'");
  }
  return fail(cur().pos,
              str_cat("unexpected end of template: Jinja was looking for the "
                      "following tags: ",
                      looking,
                      (open_tags_.empty() ? ""
                                          : ". The innermost block that "
                                            "needs to be closed is '"),
                      open_tags_.empty() ? "" : open_tags_.back(), open_tags_.empty() ? "" : "'"));
}

// A block body up to one of `end_names`; with `drop_needle` the end name is consumed.
Result<std::vector<Node>> Parser::parse_statements(EndNames end_names, bool drop_needle) {
  skip_op(":");
  CPPNN_RETURN_IF_ERROR(expect_kind(TokenKind::kBlockEnd, "'%}'"));
  JINJA_TRY(std::vector<Node> body, subparse(end_names));
  if (cur().kind == TokenKind::kEnd) return fail_eof(end_names);
  if (drop_needle) advance();
  return body;
}

Result<Node> Parser::parse_statement() {
  Nesting nesting(*this);
  const Token& t = cur();
  CPPNN_RETURN_IF_ERROR(check_nesting(t.pos));
  if (t.kind != TokenKind::kName) return fail(t.pos, "tag name expected");
  const std::string tag = t.text;
  open_tags_.push_back(tag);
  Result<Node> node = parse_tag(tag);
  open_tags_.pop_back();
  return node;
}

Result<Node> Parser::parse_tag(const std::string& tag) {
  const SourcePos pos = cur().pos;
  if (tag == "for") return parse_for();
  if (tag == "if") return parse_if();
  if (tag == "set") return parse_set();
  if (tag == "macro") return parse_macro();
  if (tag == "filter") return parse_filter_block();
  if (tag == "with") return parse_with();
  if (tag == "print") return parse_print();
  if (tag == "generation") return parse_scope("endgeneration");
  if (tag == "break" || tag == "continue") {
    advance();
    if (loop_depth_ == 0) return fail(pos, str_cat("'", tag, "' outside of a loop"));
    Node node;
    node.kind = tag == "break" ? NodeKind::kBreak : NodeKind::kContinue;
    node.pos = pos;
    return node;
  }
  for (std::string_view unsupported : kUnsupportedTags) {
    if (tag == unsupported) {
      return fail(pos, str_cat("the {% ", tag, " %} tag is not supported in chat templates"));
    }
  }
  return fail(pos, str_cat("encountered unknown tag '", tag, "'"));
}

Result<Parser::Target> Parser::parse_assign_target(EndNames extra_end, bool with_namespace) {
  Target target;
  const SourcePos pos = cur().pos;
  const bool parenthesized = skip_op("(");
  while (true) {
    if (!target.names.empty()) {
      if (!skip_op(",")) break;
      if (is_tuple_end(extra_end) || is_op(cur(), ")") || is_op(cur(), "=")) break;
    }
    if (cur().kind != TokenKind::kName) {
      return fail(cur().pos, str_cat("can't assign to '", describe_token(cur()), "'"));
    }
    const std::string name = cur().text;
    if (name == "true" || name == "false" || name == "none" || name == "True" || name == "False" ||
        name == "None") {
      return fail(cur().pos, "can't assign to a constant");
    }
    advance();
    target.names.push_back(name);
    if (with_namespace && target.names.size() == 1 && !parenthesized && is_op(cur(), ".")) {
      advance();
      JINJA_TRY(target.attribute, expect_name());
      return target;
    }
  }
  if (parenthesized) CPPNN_RETURN_IF_ERROR(expect_op(")"));
  if (target.names.empty()) return fail(pos, "expected an assignment target");
  return target;
}

Result<Node> Parser::parse_for() {
  Node node;
  node.kind = NodeKind::kFor;
  node.pos = cur().pos;
  advance();
  JINJA_TRY(Target target, parse_assign_target({"in"}, false));
  node.targets = std::move(target.names);
  if (!skip_name("in")) {
    return fail(cur().pos, str_cat("expected 'in', got '", describe_token(cur()), "'"));
  }
  JINJA_TRY(node.expr, parse_tuple(false, {"recursive"}, false));
  {
    if (skip_name("if")) {
      JINJA_TRY(node.condition, parse_expression(true));
    }
    if (is_name(cur(), "recursive")) {
      return fail(cur().pos, "recursive loops are not supported in chat templates");
    }
    ++loop_depth_;
    auto body = parse_statements({"endfor", "else"}, false);
    --loop_depth_;
    if (!body.ok()) return body.error();
    node.body = std::move(*body);
    const bool has_else = is_name(cur(), "else");
    advance();
    if (has_else) {
      JINJA_TRY(node.else_body, parse_statements({"endfor"}, true));
    }
  }
  return node;
}

Result<Node> Parser::parse_if() {
  Node node;
  node.kind = NodeKind::kIf;
  node.pos = cur().pos;
  advance();
  while (true) {
    IfBranch branch;
    JINJA_TRY(branch.test, parse_tuple(false, {}, false));
    JINJA_TRY(branch.body, parse_statements({"elif", "else", "endif"}, false));
    node.branches.push_back(std::move(branch));
    const std::string end = cur().text;
    advance();
    if (end == "elif") continue;
    if (end == "else") {
      JINJA_TRY(node.else_body, parse_statements({"endif"}, true));
    }
    break;
  }
  return node;
}

Result<Node> Parser::parse_set() {
  Node node;
  node.pos = cur().pos;
  advance();
  JINJA_TRY(Target target, parse_assign_target({}, true));
  node.targets = std::move(target.names);
  node.attribute = std::move(target.attribute);
  if (skip_op("=")) {
    node.kind = NodeKind::kSet;
    JINJA_TRY(node.expr, parse_tuple(true, {}, false));
    return node;
  }
  node.kind = NodeKind::kSetBlock;
  if (node.targets.size() != 1) return fail(node.pos, "a {% set %} block assigns one name");
  if (is_op(cur(), "|")) {
    JINJA_TRY(node.expr, parse_filter(nullptr, false));
  }
  JINJA_TRY(node.body, parse_statements({"endset"}, true));
  return node;
}

Result<Node> Parser::parse_macro() {
  Node node;
  node.kind = NodeKind::kMacro;
  node.pos = cur().pos;
  advance();
  auto macro = std::make_unique<MacroDef>();
  macro->pos = node.pos;
  JINJA_TRY(macro->name, expect_name());
  MacroDef* const outer_macro = macro_;
  const int outer_loops = loop_depth_;
  macro_ = macro.get();
  loop_depth_ = 0;
  auto body = parse_macro_rest(*macro);
  macro_ = outer_macro;
  loop_depth_ = outer_loops;
  CPPNN_RETURN_IF_ERROR(body);
  node.macro = std::move(macro);
  return node;
}

Status Parser::parse_macro_rest(MacroDef& macro) {
  CPPNN_RETURN_IF_ERROR(expect_op("("));
  while (!is_op(cur(), ")")) {
    if (!macro.params.empty()) CPPNN_RETURN_IF_ERROR(expect_op(","));
    if (is_op(cur(), ")")) break;
    JINJA_TRY(std::string param, expect_name());
    if (skip_op("=")) {
      JINJA_TRY(ExprPtr value, parse_expression(true));
      macro.defaults.push_back(std::move(value));
    } else if (!macro.defaults.empty()) {
      return fail(cur().pos, "non-default argument follows default argument");
    }
    macro.params.push_back(std::move(param));
  }
  advance();
  JINJA_TRY(macro.body, parse_statements({"endmacro"}, true));
  return Ok{};
}

Result<Node> Parser::parse_filter_block() {
  Node node;
  node.kind = NodeKind::kFilterBlock;
  node.pos = cur().pos;
  advance();
  JINJA_TRY(node.expr, parse_filter(nullptr, true));
  JINJA_TRY(node.body, parse_statements({"endfilter"}, true));
  return node;
}

Result<Node> Parser::parse_with() {
  Node node;
  node.kind = NodeKind::kWith;
  node.pos = cur().pos;
  advance();
  while (cur().kind != TokenKind::kBlockEnd) {
    if (!node.bindings.empty()) CPPNN_RETURN_IF_ERROR(expect_op(","));
    JINJA_TRY(std::string name, expect_name());
    CPPNN_RETURN_IF_ERROR(expect_op("="));
    JINJA_TRY(ExprPtr value, parse_expression(true));
    node.bindings.emplace_back(std::move(name), std::move(value));
  }
  JINJA_TRY(node.body, parse_statements({"endwith"}, true));
  return node;
}

Result<Node> Parser::parse_print() {
  Node node;
  node.kind = NodeKind::kPrint;
  node.pos = cur().pos;
  advance();
  while (cur().kind != TokenKind::kBlockEnd) {
    if (!node.body.empty()) CPPNN_RETURN_IF_ERROR(expect_op(","));
    Node output;
    output.kind = NodeKind::kOutput;
    output.pos = cur().pos;
    JINJA_TRY(output.expr, parse_expression(true));
    node.body.push_back(std::move(output));
  }
  return node;
}

Result<Node> Parser::parse_scope(std::string_view end_name) {
  Node node;
  node.kind = NodeKind::kScope;
  node.pos = cur().pos;
  advance();
  JINJA_TRY(node.body, parse_statements({end_name}, true));
  return node;
}

Result<std::vector<Node>> parse_template(const std::vector<Token>& tokens) {
  if (tokens.empty()) return std::vector<Node>();
  Parser parser(tokens);
  JINJA_TRY(std::vector<Node> nodes, parser.parse());
  CPPNN_RETURN_IF_ERROR(NameChecker().check(nodes, false));
  return nodes;
}

}  // namespace cppnn::llm::jinja
