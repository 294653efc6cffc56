// The chat-template evaluator (see jinja_evaluator.h).
#include "src/llm/jinja_evaluator.h"

#include <memory>

#include "src/llm/jinja_access.h"
#include "src/llm/jinja_builtins.h"
#include "src/llm/jinja_filters.h"
#include "src/llm/jinja_format.h"
#include "src/llm/jinja_globals.h"
#include "src/llm/jinja_is_tests.h"
#include "src/llm/jinja_methods.h"
#include "src/llm/jinja_operators.h"
#include "src/llm/jinja_text.h"
#include "src/llm/jinja_try.h"

namespace cppnn::llm::jinja {

const Value* Scope::lookup(std::string_view name) const {
  for (const Scope* scope = this; scope; scope = scope->parent) {
    for (const auto& [key, value] : scope->variables) {
      if (key == name) return &value;
    }
  }
  return nullptr;
}

void Scope::set(std::string_view name, Value value) {
  for (auto& [key, existing] : variables) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  variables.emplace_back(std::string(name), std::move(value));
}

namespace {

// Keeps a function out of its callers (small stack frames on the evaluator's recursive path).
#define JINJA_NOINLINE [[gnu::noinline]]

// What a statement asks of the enclosing loop.
enum class Flow : uint8_t { kNormal, kBreak, kContinue };

// `error` located at `pos` (errors from the builtins carry no position).
ErrorInfo located(SourcePos pos, const ErrorInfo& error) {
  return ErrorInfo{error.kind, str_cat(describe(pos), ": ", error.message)};
}

// Locates the error of a builtin's Result at `pos`.
template <class T>
Result<T> at(SourcePos pos, Result<T> result) {
  if (!result.ok()) return located(pos, result.error());
  return result;
}

class Evaluator {
 public:
  explicit Evaluator(RenderState& state) : state_(state) {}

  Result<std::string> render(const std::vector<Node>& nodes, const Context& context) {
    Scope globals;
    for (const auto& [name, value] : context) globals.set(name, value);
    Scope top{&globals, {}};
    std::string out;
    JINJA_TRY(Flow flow, exec(nodes, top, out));
    (void)flow;
    return out;
  }

 private:
  // Counts one level of evaluation nesting for the scope of an object.
  class Depth {
   public:
    explicit Depth(Evaluator& e) : e_(e) { ++e_.depth_; }
    ~Depth() { --e_.depth_; }
    Depth(const Depth&) = delete;
    Depth& operator=(const Depth&) = delete;

   private:
    Evaluator& e_;
  };

  // One step of work at `pos`: an error when the budget or the nesting limit is exceeded.
  Status step(SourcePos pos) {
    if (depth_ > state_.limits().max_eval_depth) {
      return template_error(describe(pos), ": the template nests deeper than ",
                            state_.limits().max_eval_depth,
                            " levels of evaluation (recursive macros?)");
    }
    if (auto charged = state_.charge(1); !charged.ok()) return located(pos, charged.error());
    return Ok{};
  }

  Status append(std::string& out, std::string_view text, SourcePos pos) {
    if (out.size() + text.size() > state_.limits().max_output_bytes) {
      return template_error(describe(pos), ": the output exceeds the limit of ",
                            state_.limits().max_output_bytes, " bytes");
    }
    if (auto charged = state_.charge(text.size() / 16); !charged.ok()) {
      return located(pos, charged.error());
    }
    out.append(text);
    return Ok{};
  }

  // ---- Statements ----

  Result<Flow> exec(const std::vector<Node>& nodes, Scope& scope, std::string& out) {
    for (const Node& node : nodes) {
      JINJA_TRY(Flow flow, exec(node, scope, out));
      if (flow != Flow::kNormal) return flow;
    }
    return Flow::kNormal;
  }

  // One statement (its cases, like eval's, in never-inlined functions).
  Result<Flow> exec(const Node& node, Scope& scope, std::string& out) {
    Depth depth(*this);
    CPPNN_RETURN_IF_ERROR(step(node.pos));
    switch (node.kind) {
      case NodeKind::kText:
        CPPNN_RETURN_IF_ERROR(append(out, node.text, node.pos));
        break;
      case NodeKind::kOutput:
        CPPNN_RETURN_IF_ERROR(exec_output(node, scope, out));
        break;
      case NodeKind::kPrint:
        return exec(node.body, scope, out);
      case NodeKind::kIf:
        return exec_if(node, scope, out);
      case NodeKind::kFor:
        return exec_for(node, scope, out);
      case NodeKind::kSet:
      case NodeKind::kSetBlock:
        CPPNN_RETURN_IF_ERROR(exec_set(node, scope));
        break;
      case NodeKind::kMacro:
        define_macro(node, scope);
        break;
      case NodeKind::kFilterBlock:
        CPPNN_RETURN_IF_ERROR(exec_filter_block(node, scope, out));
        break;
      case NodeKind::kWith:
      case NodeKind::kScope:
        return exec_scoped(node, scope, out);
      case NodeKind::kBreak:
        return Flow::kBreak;
      case NodeKind::kContinue:
        return Flow::kContinue;
    }
    return Flow::kNormal;
  }

  // {{ expr }}
  JINJA_NOINLINE Status exec_output(const Node& node, Scope& scope, std::string& out) {
    JINJA_TRY(Value value, eval(*node.expr, scope));
    if (auto printed = append_str(out, value, state_); !printed.ok()) {
      return located(node.pos, printed.error());
    }
    return Ok{};
  }

  // {% set target = expr %} and {% set target %}...{% endset %}
  JINJA_NOINLINE Status exec_set(const Node& node, Scope& scope) {
    Value value;
    if (node.kind == NodeKind::kSet) {
      JINJA_TRY(value, eval(*node.expr, scope));
    } else {
      JINJA_TRY(value, render_block(node.body, scope));
      if (node.expr) {
        JINJA_TRY(value, eval_filter(*node.expr, scope, &value));
      }
    }
    return assign(node, std::move(value), scope);
  }

  // {% macro %}: binds the macro in the current scope, which it reads when called.
  void define_macro(const Node& node, Scope& scope) {
    auto callable = std::make_shared<Callable>();
    callable->kind = CallableKind::kMacro;
    callable->name = node.macro->name;
    callable->macro = node.macro.get();
    callable->closure = &scope;
    scope.set(node.macro->name, Value::callable(std::move(callable)));
  }

  // {% filter f %}...{% endfilter %}
  JINJA_NOINLINE Status exec_filter_block(const Node& node, Scope& scope, std::string& out) {
    JINJA_TRY(Value body, render_block(node.body, scope));
    JINJA_TRY(Value filtered, eval_filter(*node.expr, scope, &body));
    if (auto printed = append_str(out, filtered, state_); !printed.ok()) {
      return located(node.pos, printed.error());
    }
    return Ok{};
  }

  // {% with %} and {% generation %}: the body in a new scope (with's values computed outside).
  JINJA_NOINLINE Result<Flow> exec_scoped(const Node& node, Scope& scope, std::string& out) {
    Scope inner{&scope, {}};
    for (const auto& [name, expr] : node.bindings) {
      JINJA_TRY(Value value, eval(*expr, scope));
      inner.set(name, std::move(value));
    }
    return exec(node.body, inner, out);
  }

  JINJA_NOINLINE Result<Flow> exec_if(const Node& node, Scope& scope, std::string& out) {
    for (const IfBranch& branch : node.branches) {
      JINJA_TRY(Value test, eval(*branch.test, scope));
      if (truthy(test)) return exec(branch.body, scope, out);
    }
    return exec(node.else_body, scope, out);
  }

  // The items a {% for %} iterates (python_iterate), the error located at `pos`.
  Result<std::vector<Value>> iterate(const Value& value, SourcePos pos) {
    return at(pos, python_iterate(value, state_));
  }

  // Binds loop or assignment targets: one name takes the value, several unpack it.
  Status bind_targets(const std::vector<std::string>& targets, const Value& value, Scope& scope,
                      SourcePos pos) {
    if (targets.size() == 1) {
      scope.set(targets.front(), value);
      return Ok{};
    }
    if (value.is_undefined()) return template_error(describe(pos), ": ", value.undefined_message());
    JINJA_TRY(std::vector<Value> parts, iterate(value, pos));
    if (parts.size() < targets.size()) {
      return template_error(describe(pos), ": not enough values to unpack (expected ",
                            targets.size(), ", got ", parts.size(), ")");
    }
    if (parts.size() > targets.size()) {
      return template_error(describe(pos), ": too many values to unpack (expected ", targets.size(),
                            ")");
    }
    for (size_t i = 0; i < targets.size(); ++i) scope.set(targets[i], parts[i]);
    return Ok{};
  }

  JINJA_NOINLINE Result<Flow> exec_for(const Node& node, Scope& scope, std::string& out) {
    JINJA_TRY(Value iterable, eval(*node.expr, scope));
    JINJA_TRY(std::vector<Value> all, iterate(iterable, node.expr->pos));
    auto items = std::make_shared<std::vector<Value>>();
    if (node.condition) {
      for (Value& item : all) {
        if (auto counted = state_.count_iteration(); !counted.ok()) {
          return located(node.pos, counted.error());
        }
        Scope test_scope{&scope, {}};
        CPPNN_RETURN_IF_ERROR(bind_targets(node.targets, item, test_scope, node.pos));
        JINJA_TRY(Value keep, eval(*node.condition, test_scope));
        if (truthy(keep)) items->push_back(std::move(item));
      }
    } else {
      *items = std::move(all);
    }
    if (items->empty()) {
      Scope else_scope{&scope, {}};
      return exec(node.else_body, else_scope, out);
    }
    std::shared_ptr<const std::vector<Value>> shared = items;
    for (size_t i = 0; i < shared->size(); ++i) {
      if (auto counted = state_.count_iteration(); !counted.ok()) {
        return located(node.pos, counted.error());
      }
      Scope iteration{&scope, {}};
      CPPNN_RETURN_IF_ERROR(bind_targets(node.targets, (*shared)[i], iteration, node.pos));
      auto loop = std::make_shared<LoopInfo>();
      loop->items = shared;
      loop->index0 = i;
      iteration.set("loop", Value::loop(std::move(loop)));
      JINJA_TRY(Flow flow, exec(node.body, iteration, out));
      if (flow == Flow::kBreak) break;
    }
    return Flow::kNormal;
  }

  // {% set %}: a name, several names (unpacking) or a namespace attribute.
  Status assign(const Node& node, Value value, Scope& scope) {
    if (node.attribute.empty()) return bind_targets(node.targets, value, scope, node.pos);
    const Value* target = scope.lookup(node.targets.front());
    if (!target || target->kind() != ValueKind::kNamespace) {
      return template_error(describe(node.pos),
                            ": cannot assign attribute on non-namespace object");
    }
    if (value.depth() > state_.limits().max_value_depth) {
      return template_error(describe(node.pos), ": a value nested deeper than ",
                            state_.limits().max_value_depth,
                            " levels cannot be stored in a namespace");
    }
    if (holds_reference(value)) {
      return template_error(describe(node.pos),
                            ": a namespace, loop or macro cannot be stored in a namespace");
    }
    target->as_namespace()->attributes.set(Value::string(node.attribute), std::move(value));
    return Ok{};
  }

  // The text a block renders, in a new scope.
  Result<Value> render_block(const std::vector<Node>& body, Scope& scope) {
    Scope inner{&scope, {}};
    std::string text;
    JINJA_TRY(Flow flow, exec(body, inner, text));
    (void)flow;
    return Value::string(std::move(text));
  }

  // ---- Expressions ----

  // One expression. The cases live in separate, never-inlined functions so that the frame on
  // the recursive path stays small (deep templates under ASan run on ordinary stacks).
  Result<Value> eval(const Expr& e, Scope& scope) {
    Depth depth(*this);
    CPPNN_RETURN_IF_ERROR(step(e.pos));
    switch (e.kind) {
      case ExprKind::kLiteral:
        return e.literal;
      case ExprKind::kName:
        return lookup(e.name, scope);
      case ExprKind::kList:
      case ExprKind::kTuple:
        return eval_sequence(e, scope);
      case ExprKind::kDict:
        return eval_dict(e, scope);
      case ExprKind::kGetAttr:
      case ExprKind::kGetItem:
        return eval_access(e, scope);
      case ExprKind::kSlice:
        return eval_slice(e, scope);
      case ExprKind::kCall:
        return eval_call(e, scope);
      case ExprKind::kFilter:
        return eval_filter(e, scope, nullptr);
      case ExprKind::kTest:
        return eval_test(e, scope);
      case ExprKind::kNegate:
      case ExprKind::kPlus:
      case ExprKind::kNot:
        return eval_unary(e, scope);
      case ExprKind::kBinary:
      case ExprKind::kConcat:
        return eval_binary(e, scope);
      case ExprKind::kAnd:
      case ExprKind::kOr:
        return eval_logical(e, scope);
      case ExprKind::kCompare:
        return eval_compare(e, scope);
      case ExprKind::kCondition:
        return eval_condition(e, scope);
    }
    return Value();
  }

  // [a, b] and (a, b).
  JINJA_NOINLINE Result<Value> eval_sequence(const Expr& e, Scope& scope) {
    std::vector<Value> items;
    items.reserve(e.children.size());
    for (const ExprPtr& child : e.children) {
      JINJA_TRY(Value item, eval(*child, scope));
      items.push_back(std::move(item));
    }
    return e.kind == ExprKind::kList ? Value::list(std::move(items))
                                     : Value::tuple(std::move(items));
  }

  // {key: value, ...}
  JINJA_NOINLINE Result<Value> eval_dict(const Expr& e, Scope& scope) {
    Dict dict;
    for (size_t i = 0; i + 1 < e.children.size(); i += 2) {
      JINJA_TRY(Value key, eval(*e.children[i], scope));
      JINJA_TRY(Value value, eval(*e.children[i + 1], scope));
      if (!Dict::hashable(key)) {
        return template_error(describe(e.children[i]->pos), ": unhashable type: '", type_name(key),
                              "'");
      }
      dict.set(key, std::move(value));
    }
    return Value::dict(std::move(dict));
  }

  // obj.name and obj[key].
  JINJA_NOINLINE Result<Value> eval_access(const Expr& e, Scope& scope) {
    JINJA_TRY(Value object, eval(*e.children[0], scope));
    if (e.kind == ExprKind::kGetAttr) return at(e.pos, get_attr(object, e.name, state_));
    JINJA_TRY(Value key, eval(*e.children[1], scope));
    return at(e.pos, get_item(object, key, state_));
  }

  // value is [not] test(args).
  JINJA_NOINLINE Result<Value> eval_test(const Expr& e, Scope& scope) {
    JINJA_TRY(Value input, eval(*e.children[0], scope));
    JINJA_TRY(CallArgs args, eval_args(e.args, scope));
    if (!is_test(e.name)) {
      return template_error(describe(e.pos), ": no test named '", e.name, "'");
    }
    JINJA_TRY(bool result, at(e.pos, apply_test(e.name, input, args, state_)));
    return Value::boolean(result != e.negated);
  }

  // -a, +a, not a.
  JINJA_NOINLINE Result<Value> eval_unary(const Expr& e, Scope& scope) {
    JINJA_TRY(Value operand, eval(*e.children[0], scope));
    if (e.kind == ExprKind::kNot) return Value::boolean(!truthy(operand));
    return at(e.pos, e.kind == ExprKind::kNegate ? negate(operand) : unary_plus(operand));
  }

  // a <op> b and a ~ b.
  JINJA_NOINLINE Result<Value> eval_binary(const Expr& e, Scope& scope) {
    JINJA_TRY(Value left, eval(*e.children[0], scope));
    JINJA_TRY(Value right, eval(*e.children[1], scope));
    if (e.kind == ExprKind::kBinary) return at(e.pos, binary_op(e.binary_op, left, right, state_));
    std::string text;
    if (auto printed = append_str(text, left, state_); !printed.ok()) {
      return located(e.pos, printed.error());
    }
    if (auto printed = append_str(text, right, state_); !printed.ok()) {
      return located(e.pos, printed.error());
    }
    return Value::string(std::move(text));
  }

  // a and b, a or b: Python's short-circuit, giving an operand.
  JINJA_NOINLINE Result<Value> eval_logical(const Expr& e, Scope& scope) {
    JINJA_TRY(Value left, eval(*e.children[0], scope));
    if (truthy(left) == (e.kind == ExprKind::kOr)) return left;
    return eval(*e.children[1], scope);
  }

  // a if test else b (undefined without an else).
  JINJA_NOINLINE Result<Value> eval_condition(const Expr& e, Scope& scope) {
    JINJA_TRY(Value test, eval(*e.children[1], scope));
    if (truthy(test)) return eval(*e.children[0], scope);
    if (e.children[2]) return eval(*e.children[2], scope);
    return Value::undefined(str_cat("the inline if-expression on ", describe(e.pos),
                                    " evaluated to false and no else section was defined."));
  }

  // A variable: the innermost scope that has it, else a global function, else undefined.
  Result<Value> lookup(const std::string& name, const Scope& scope) {
    if (const Value* value = scope.lookup(name)) return *value;
    if (is_global(name)) {
      auto callable = std::make_shared<Callable>();
      callable->kind = CallableKind::kGlobal;
      callable->name = name;
      return Value::callable(std::move(callable));
    }
    return Value::undefined(str_cat("'", name, "' is undefined"));
  }

  JINJA_NOINLINE Result<Value> eval_slice(const Expr& e, Scope& scope) {
    JINJA_TRY(Value object, eval(*e.children[0], scope));
    std::optional<int64_t> parts[3];
    for (size_t i = 0; i < 3; ++i) {
      const ExprPtr& part = e.children[i + 1];
      if (!part) continue;
      JINJA_TRY(Value value, eval(*part, scope));
      if (value.is_none()) continue;
      if (!value.is_integer()) {
        return template_error(describe(part->pos), ": slice indices must be integers or None, not ",
                              type_name(value));
      }
      parts[i] = value.as_int();
    }
    return at(e.pos, get_slice(object, parts[0], parts[1], parts[2], state_));
  }

  JINJA_NOINLINE Result<CallArgs> eval_args(const ArgsAst& ast, Scope& scope) {
    CallArgs args;
    for (const ExprPtr& arg : ast.positional) {
      JINJA_TRY(Value value, eval(*arg, scope));
      args.positional.push_back(std::move(value));
    }
    for (const auto& [name, arg] : ast.keywords) {
      JINJA_TRY(Value value, eval(*arg, scope));
      args.keywords.emplace_back(name, std::move(value));
    }
    return args;
  }

  // A filter (chain); in a filter or set block the innermost input is `block_input`.
  JINJA_NOINLINE Result<Value> eval_filter(const Expr& e, Scope& scope, const Value* block_input) {
    Value input;
    if (e.children[0] == nullptr) {
      if (block_input) input = *block_input;
    } else if (e.children[0]->kind == ExprKind::kFilter) {
      JINJA_TRY(input, eval_filter(*e.children[0], scope, block_input));
    } else {
      JINJA_TRY(input, eval(*e.children[0], scope));
    }
    JINJA_TRY(CallArgs args, eval_args(e.args, scope));
    if (!is_filter(e.name)) {
      return template_error(describe(e.pos), ": no filter named '", e.name, "'");
    }
    return at(e.pos, apply_filter(e.name, input, args, state_));
  }

  JINJA_NOINLINE Result<Value> eval_compare(const Expr& e, Scope& scope) {
    JINJA_TRY(Value left, eval(*e.children[0], scope));
    for (size_t i = 0; i < e.compare_ops.size(); ++i) {
      JINJA_TRY(Value right, eval(*e.children[i + 1], scope));
      bool result = false;
      switch (e.compare_ops[i]) {
        case CompareOp::kEq: {
          JINJA_TRY(result, at(e.pos, python_equal(left, right, state_)));
          break;
        }
        case CompareOp::kNe: {
          JINJA_TRY(result, at(e.pos, python_equal(left, right, state_)));
          result = !result;
          break;
        }
        case CompareOp::kLt: {
          JINJA_TRY(result, at(e.pos, python_order(Ordering::kLess, left, right, state_)));
          break;
        }
        case CompareOp::kLe: {
          JINJA_TRY(result, at(e.pos, python_order(Ordering::kLessEqual, left, right, state_)));
          break;
        }
        case CompareOp::kGt: {
          JINJA_TRY(result, at(e.pos, python_order(Ordering::kGreater, left, right, state_)));
          break;
        }
        case CompareOp::kGe: {
          JINJA_TRY(result, at(e.pos, python_order(Ordering::kGreaterEqual, left, right, state_)));
          break;
        }
        case CompareOp::kIn: {
          JINJA_TRY(result, at(e.pos, python_contains(right, left, state_)));
          break;
        }
        case CompareOp::kNotIn: {
          JINJA_TRY(result, at(e.pos, python_contains(right, left, state_)));
          result = !result;
          break;
        }
      }
      if (!result) return Value::boolean(false);
      left = std::move(right);
    }
    return Value::boolean(true);
  }

  JINJA_NOINLINE Result<Value> eval_call(const Expr& e, Scope& scope) {
    JINJA_TRY(Value callee, eval(*e.children[0], scope));
    JINJA_TRY(CallArgs args, eval_args(e.args, scope));
    if (callee.is_undefined()) {
      return template_error(describe(e.pos), ": ", callee.undefined_message());
    }
    if (callee.kind() != ValueKind::kCallable) {
      return template_error(describe(e.pos), ": '", type_name(callee), "' object is not callable");
    }
    const Callable& callable = callee.as_callable();
    switch (callable.kind) {
      case CallableKind::kGlobal:
        return at(e.pos, call_global(callable.name, args, state_));
      case CallableKind::kMethod:
        return at(e.pos, call_method(callable.self, callable.name, args, state_));
      case CallableKind::kMacro:
        return call_macro(callable, std::move(args), e.pos);
    }
    return Value();
  }

  JINJA_NOINLINE Result<Value> call_macro(const Callable& callable, CallArgs args, SourcePos pos) {
    const MacroDef& macro = *callable.macro;
    Scope scope{callable.closure, {}};
    std::vector<bool> bound(macro.params.size(), false);
    std::vector<Value> extra_positional;
    for (size_t i = 0; i < args.positional.size(); ++i) {
      if (i < macro.params.size()) {
        scope.set(macro.params[i], std::move(args.positional[i]));
        bound[i] = true;
      } else if (macro.uses_varargs) {
        extra_positional.push_back(std::move(args.positional[i]));
      } else {
        return template_error(describe(pos), ": macro '", macro.name, "' takes not more than ",
                              macro.params.size(), " argument(s)");
      }
    }
    Dict extra_keywords;
    for (auto& [name, value] : args.keywords) {
      size_t index = 0;
      while (index < macro.params.size() && macro.params[index] != name) ++index;
      if (index < macro.params.size()) {
        if (bound[index]) {
          return template_error(describe(pos), ": macro '", macro.name,
                                "' got multiple values for argument '", name, "'");
        }
        scope.set(name, std::move(value));
        bound[index] = true;
      } else if (macro.uses_kwargs) {
        extra_keywords.set(Value::string(name), std::move(value));
      } else {
        return template_error(describe(pos), ": macro '", macro.name,
                              "' takes no keyword argument '", name, "'");
      }
    }
    const size_t first_default = macro.params.size() - macro.defaults.size();
    for (size_t i = 0; i < macro.params.size(); ++i) {
      if (bound[i]) continue;
      if (i >= first_default) {
        JINJA_TRY(Value value, eval(*macro.defaults[i - first_default], scope));
        scope.set(macro.params[i], std::move(value));
      } else {
        scope.set(macro.params[i],
                  Value::undefined(str_cat("parameter '", macro.params[i], "' was not provided")));
      }
    }
    if (macro.uses_varargs) scope.set("varargs", Value::tuple(std::move(extra_positional)));
    if (macro.uses_kwargs) scope.set("kwargs", Value::dict(std::move(extra_keywords)));
    std::string text;
    JINJA_TRY(Flow flow, exec(macro.body, scope, text));
    (void)flow;
    return Value::string(std::move(text));
  }

  RenderState& state_;
  uint32_t depth_ = 0;
};

}  // namespace

Result<std::string> render_nodes(const std::vector<Node>& nodes, const Context& context,
                                 RenderState& state) {
  Evaluator evaluator(state);
  return evaluator.render(nodes, context);
}

}  // namespace cppnn::llm::jinja
