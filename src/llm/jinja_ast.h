// The syntax tree of a chat template: expressions and statements as jinja2/nodes.py models them,
// reduced to what the interpreter supports. Every node keeps its line and column for errors.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/llm/jinja_lexer.h"
#include "src/llm/jinja_operators.h"
#include "src/llm/jinja_value.h"

namespace cppnn::llm::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// The kinds of expressions.
enum class ExprKind : uint8_t {
  kLiteral,    // `literal`
  kName,       // a variable `name`
  kList,       // [children...]
  kTuple,      // (children...)
  kDict,       // {children[0]: children[1], ...}
  kGetAttr,    // children[0].name
  kGetItem,    // children[0][children[1]]
  kSlice,      // children[0][children[1]:children[2]:children[3]] (null parts are absent)
  kCall,       // children[0](args)
  kFilter,     // children[0] | name(args); children[0] is null in {% filter %} and {% set %} blocks
  kTest,       // children[0] is [not] name(args)
  kNegate,     // -children[0]
  kPlus,       // +children[0]
  kNot,        // not children[0]
  kBinary,     // children[0] binary_op children[1]
  kConcat,     // children[0] ~ children[1]
  kAnd,        // children[0] and children[1]
  kOr,         // children[0] or children[1]
  kCompare,    // children[0] compare_ops[0] children[1] compare_ops[1] children[2] ...
  kCondition,  // children[0] if children[1] else children[2] (children[2] may be null)
};

// The comparison operators of a (chained) comparison.
enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };

// Positional and keyword arguments of a call, filter or test.
struct ArgsAst {
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> keywords;
};

// An expression node.
struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  SourcePos pos;
  Value literal;
  std::string name;
  std::vector<ExprPtr> children;
  ArgsAst args;
  std::vector<CompareOp> compare_ops;
  BinaryOp binary_op = BinaryOp::kAdd;
  bool negated = false;  // kTest: `is not`
  uint32_t height = 1;   // 1 + the largest height of the children (bounded by the parser)
};

struct Node;

// A {% macro name(params) %}: its parameters, their defaults (aligned to the last parameters)
// and body.
struct MacroDef {
  std::string name;
  SourcePos pos;
  std::vector<std::string> params;
  std::vector<ExprPtr>
      defaults;  // defaults[i] belongs to params[params.size() - defaults.size() + i]
  std::vector<Node> body;
  bool uses_varargs = false;  // the body reads `varargs` (extra positional arguments allowed)
  bool uses_kwargs = false;   // the body reads `kwargs` (extra keyword arguments allowed)
};

// The kinds of statements.
enum class NodeKind : uint8_t {
  kText,         // template data
  kOutput,       // {{ expr }} (or {% print expr %})
  kIf,           // {% if %}{% elif %}{% else %}{% endif %}
  kFor,          // {% for targets in expr [if condition] %}body{% else %}else_body{% endfor %}
  kSet,          // {% set targets = expr %} or {% set targets[0].attribute = expr %}
  kSetBlock,     // {% set targets[0] [| filter] %}body{% endset %}
  kMacro,        // {% macro %}
  kFilterBlock,  // {% filter expr %}body{% endfilter %}
  kWith,         // {% with name = expr, ... %}body{% endwith %} (a new scope)
  kScope,        // {% generation %}body{% endgeneration %} (transformers' tag: a new scope)
  kPrint,        // {% print a, b %}: the kOutput nodes in `body`, in the current scope
  kBreak,        // {% break %}
  kContinue,     // {% continue %}
};

// An {% if %} or {% elif %} branch.
struct IfBranch {
  ExprPtr test;
  std::vector<Node> body;
};

// A statement node.
struct Node {
  NodeKind kind = NodeKind::kText;
  SourcePos pos;
  std::string text;                  // kText
  ExprPtr expr;                      // kOutput, kFor (iterable), kSet (value), filters of blocks
  std::vector<std::string> targets;  // kFor, kSet, kSetBlock: the assigned names
  std::string attribute;             // kSet, kSetBlock: `ns.attribute` when not empty
  ExprPtr condition;                 // kFor: the inline `if` filter
  std::vector<IfBranch> branches;    // kIf
  std::vector<Node> body;
  std::vector<Node> else_body;                            // kIf, kFor
  std::unique_ptr<MacroDef> macro;                        // kMacro
  std::vector<std::pair<std::string, ExprPtr>> bindings;  // kWith
};

}  // namespace cppnn::llm::jinja
