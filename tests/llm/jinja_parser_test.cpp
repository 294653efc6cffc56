// The chat-template parser (src/llm/jinja_parser.h): Jinja's precedence and statement
// structure, and syntax errors that name line and column, with bounded nesting.
#include "src/llm/jinja_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/llm/jinja_lexer.h"

namespace cppnn::llm::jinja {
namespace {

Result<std::vector<Node>> parse(const std::string& source) {
  auto tokens = tokenize(source, {});
  if (!tokens.ok()) return tokens.error();
  return parse_template(*tokens);
}

std::string error_of(const std::string& source) {
  auto nodes = parse(source);
  return nodes.ok() ? "(no error)" : nodes.error().message;
}

// An S-expression of an expression tree, to check its shape.
std::string dump(const Expr* e) {
  if (!e) return "_";
  std::string out;
  switch (e->kind) {
    case ExprKind::kLiteral:
      if (e->literal.is_string()) return "'" + e->literal.as_string() + "'";
      if (e->literal.is_integer()) return std::to_string(e->literal.as_int());
      return "lit";
    case ExprKind::kName:
      return e->name;
    case ExprKind::kList:
      out = "(list";
      break;
    case ExprKind::kTuple:
      out = "(tuple";
      break;
    case ExprKind::kDict:
      out = "(dict";
      break;
    case ExprKind::kGetAttr:
      out = "(. " + e->name;
      break;
    case ExprKind::kGetItem:
      out = "([]";
      break;
    case ExprKind::kSlice:
      out = "(slice";
      break;
    case ExprKind::kCall:
      out = "(call";
      break;
    case ExprKind::kFilter:
      out = "(| " + e->name;
      break;
    case ExprKind::kTest:
      out = std::string(e->negated ? "(is-not " : "(is ") + e->name;
      break;
    case ExprKind::kNegate:
      out = "(neg";
      break;
    case ExprKind::kPlus:
      out = "(pos";
      break;
    case ExprKind::kNot:
      out = "(not";
      break;
    case ExprKind::kBinary:
      out = std::string("(") + binary_op_symbol(e->binary_op);
      break;
    case ExprKind::kConcat:
      out = "(~";
      break;
    case ExprKind::kAnd:
      out = "(and";
      break;
    case ExprKind::kOr:
      out = "(or";
      break;
    case ExprKind::kCompare:
      out = "(cmp";
      break;
    case ExprKind::kCondition:
      out = "(if";
      break;
  }
  for (const ExprPtr& child : e->children) out += " " + dump(child.get());
  for (const ExprPtr& arg : e->args.positional) out += " " + dump(arg.get());
  for (const auto& [name, arg] : e->args.keywords) out += " " + name + "=" + dump(arg.get());
  return out + ")";
}

// The tree of the expression in "{{ expr }}".
std::string tree(const std::string& expr) {
  auto nodes = parse("{{ " + expr + " }}");
  if (!nodes.ok()) return nodes.error().message;
  if (nodes->size() != 1 || (*nodes)[0].kind != NodeKind::kOutput) return "(not one output)";
  return dump((*nodes)[0].expr.get());
}

TEST(JinjaParser, Precedence) {
  EXPECT_EQ(tree("1 + 2 * 3"), "(+ 1 (* 2 3))");
  EXPECT_EQ(tree("1 - 2 - 3"), "(- (- 1 2) 3)");
  EXPECT_EQ(tree("2 ** 3 ** 2"), "(** (** 2 3) 2)");  // left-associative in Jinja
  EXPECT_EQ(tree("-2 ** 2"), "(** (neg 2) 2)");
  EXPECT_EQ(tree("a ~ b + c"), "(+ (~ a b) c)");
  EXPECT_EQ(tree("a or b and not c"), "(or a (and b (not c)))");
  EXPECT_EQ(tree("not a in b"), "(not (cmp a b))");
  EXPECT_EQ(tree("a < b < c"), "(cmp a b c)");
  EXPECT_EQ(tree("a if b else c if d"), "(if a b (if c d _))");
}

TEST(JinjaParser, FiltersTestsAndPostfix) {
  EXPECT_EQ(tree("-x | abs"), "(| abs (neg x))");  // the filter takes the negation
  EXPECT_EQ(tree("m['content'] | trim + 'x'"), "(+ (| trim ([] m 'content')) 'x')");
  EXPECT_EQ(tree("xs | join(', ') | upper"), "(| upper (| join xs ', '))");
  EXPECT_EQ(tree("xs | map(attribute='role')"), "(| map xs attribute='role')");
  EXPECT_EQ(tree("x is not defined"), "(is-not defined x)");
  EXPECT_EQ(tree("x is divisibleby 3"), "(is divisibleby x 3)");
  EXPECT_EQ(tree("a.b[0].c(1, k=2)"), "(call (. c ([] (. b a) 0)) 1 k=2)");
  EXPECT_EQ(tree("s[1:]"), "(slice s 1 _ _)");
  EXPECT_EQ(tree("s[::-1]"), "(slice s _ _ (neg 1))");
  EXPECT_EQ(tree("d[1, 2]"), "([] d (tuple 1 2))");
  EXPECT_EQ(tree("foo.0"), "([] foo 0)");
  EXPECT_EQ(tree("'a' 'b'"), "'ab'");
  EXPECT_EQ(tree("[1, (2,), {'k': 3}]"), "(list 1 (tuple 2) (dict 'k' 3))");
}

TEST(JinjaParser, Statements) {
  auto nodes = parse("{% for k, v in d.items() if v %}{{ k }}{% else %}none{% endfor %}");
  ASSERT_TRUE(nodes.ok()) << nodes.error().message;
  ASSERT_EQ(nodes->size(), 1u);
  const Node& loop = (*nodes)[0];
  EXPECT_EQ(loop.kind, NodeKind::kFor);
  EXPECT_EQ(loop.targets, (std::vector<std::string>{"k", "v"}));
  EXPECT_EQ(dump(loop.condition.get()), "v");
  EXPECT_EQ(loop.body.size(), 1u);
  EXPECT_EQ(loop.else_body.size(), 1u);

  nodes = parse("{% if a %}1{% elif b %}2{% elif c %}3{% else %}4{% endif %}");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ((*nodes)[0].branches.size(), 3u);
  EXPECT_EQ((*nodes)[0].else_body.size(), 1u);

  nodes = parse("{% set ns.found = true %}{% set a, b = 1, 2 %}{% set x | upper %}t{% endset %}");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ((*nodes)[0].attribute, "found");
  EXPECT_EQ((*nodes)[1].targets.size(), 2u);
  EXPECT_EQ((*nodes)[2].kind, NodeKind::kSetBlock);

  nodes = parse("{% macro m(a, b=1, c='x') %}{{ varargs }}{% endmacro %}");
  ASSERT_TRUE(nodes.ok());
  const MacroDef& macro = *(*nodes)[0].macro;
  EXPECT_EQ(macro.params, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(macro.defaults.size(), 2u);
  EXPECT_TRUE(macro.uses_varargs);
  EXPECT_FALSE(macro.uses_kwargs);

  EXPECT_TRUE(
      parse("{% for i in x %}{% if i %}{% break %}{% endif %}{% continue %}{% endfor %}").ok());
  EXPECT_TRUE(parse("{% with a = 1 %}{{ a }}{% endwith %}{% filter upper %}x{% endfilter %}").ok());
  EXPECT_TRUE(parse("{% generation %}x{% endgeneration %}{% print 1, 2 %}").ok());
}

TEST(JinjaParser, SyntaxErrorsNameLineAndColumn) {
  EXPECT_EQ(error_of("{% if true %}x"),
            "line 1, column 15: unexpected end of template: Jinja was looking for the following "
            "tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is "
            "'if'");
  EXPECT_EQ(error_of("a\n{% endif %}"), "line 2, column 4: encountered unknown tag 'endif'");
  EXPECT_EQ(error_of("{{ 1 + }}"), "line 1, column 8: unexpected 'end of print statement'");
  EXPECT_EQ(error_of("{% for %}"), "line 1, column 8: can't assign to 'end of statement block'");
  EXPECT_EQ(error_of("{% for x of y %}"), "line 1, column 10: expected 'in', got 'of'");
  EXPECT_EQ(error_of("{{ x y }}"), "line 1, column 6: expected '}}', got 'y'");
  EXPECT_EQ(error_of("{% include 'a.html' %}"),
            "line 1, column 4: the {% include %} tag is not supported in chat templates");
  EXPECT_EQ(error_of("{% break %}"), "line 1, column 4: 'break' outside of a loop");
  EXPECT_EQ(error_of("{% macro m(a=1, b) %}{% endmacro %}"),
            "line 1, column 18: non-default argument follows default argument");
  EXPECT_EQ(error_of("{% set true = 1 %}"), "line 1, column 8: can't assign to a constant");
  EXPECT_EQ(error_of("{% for x in y recursive %}{% endfor %}"),
            "line 1, column 15: recursive loops are not supported in chat templates");
}

TEST(JinjaParser, UnknownFiltersAndTestsFailOutsideConditionals) {
  EXPECT_EQ(error_of("x\n{{ y | nosuch }}"), "line 2, column 8: no filter named 'nosuch'");
  EXPECT_EQ(error_of("{{ y is nosuch }}"), "line 1, column 9: no test named 'nosuch'");
  EXPECT_EQ(error_of("{% if a %}{% for i in b %}{{ i | nosuch }}{% endfor %}{% endif %}"),
            "line 1, column 34: no filter named 'nosuch'");
  // In {% if %} and conditional expressions, as in Jinja, only evaluating them fails.
  EXPECT_TRUE(parse("{% if a %}{{ y | nosuch }}{% endif %}").ok());
  EXPECT_TRUE(parse("{{ y | nosuch if a }}{% if y is nosuch %}{% endif %}").ok());
}

TEST(JinjaParser, NestingAndExpressionSizeAreBounded) {
  const std::string deep_parens = std::string(200, '(') + "1" + std::string(200, ')');
  EXPECT_NE(error_of("{{ " + deep_parens + " }}").find("nests deeper than 128 levels"),
            std::string::npos);
  std::string deep_ifs;
  for (int i = 0; i < 200; ++i) deep_ifs += "{% if x %}";
  EXPECT_NE(error_of(deep_ifs).find("nests deeper than 128 levels"), std::string::npos);
  std::string chain = "{{ 1";
  for (int i = 0; i < 300; ++i) chain += " + 1";
  EXPECT_NE(error_of(chain + " }}").find("more than 256 levels deep"), std::string::npos);
  std::string filters = "{{ x";
  for (int i = 0; i < 300; ++i) filters += " | trim";
  EXPECT_NE(error_of(filters + " }}").find("more than 256 levels deep"), std::string::npos);
  std::string unary = "{{ " + std::string(300, '-') + "1 }}";
  EXPECT_NE(error_of(unary).find("nests deeper"), std::string::npos);
  // A long but shallow template is fine.
  std::string wide;
  for (int i = 0; i < 5000; ++i) wide += "{% if x %}{{ x }}{% endif %}";
  EXPECT_TRUE(parse(wide).ok());
}

}  // namespace
}  // namespace cppnn::llm::jinja
