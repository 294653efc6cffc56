// Python operators on template values (see jinja_operators.h).
#include "src/llm/jinja_operators.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/core/checked_math.h"
#include "src/llm/jinja_printf.h"

namespace cppnn::llm::jinja {

namespace {

ErrorInfo overflow_error() {
  return template_error("integer overflow (template integers are 64-bit)");
}

ErrorInfo unsupported(BinaryOp op, const Value& a, const Value& b) {
  return template_error("unsupported operand type(s) for ", binary_op_symbol(op), ": '",
                        type_name(a), "' and '", type_name(b), "'");
}

// text * count (count <= 0 gives '').
Result<Value> repeat_string(const std::string& text, int64_t count, RenderState& state) {
  if (count <= 0 || text.empty()) return Value::string("");
  const auto bytes = checked_mul(text.size(), static_cast<uint64_t>(count));
  if (!bytes) return template_error("a repeated string is too large");
  CPPNN_RETURN_IF_ERROR(state.charge_string(*bytes));
  std::string out;
  out.reserve(*bytes);
  for (int64_t i = 0; i < count; ++i) out += text;
  return Value::string(std::move(out));
}

// items * count for a list or tuple.
Result<Value> repeat_items(const Value& seq, int64_t count, RenderState& state) {
  std::vector<Value> out;
  if (count > 0 && !seq.items().empty()) {
    const auto total = checked_mul(seq.items().size(), static_cast<uint64_t>(count));
    if (!total) return template_error("a repeated list is too large");
    CPPNN_RETURN_IF_ERROR(state.charge_container(*total));
    out.reserve(*total);
    for (int64_t i = 0; i < count; ++i)
      out.insert(out.end(), seq.items().begin(), seq.items().end());
  }
  return seq.kind() == ValueKind::kTuple ? Value::tuple(std::move(out))
                                         : Value::list(std::move(out));
}

// Python's float floor division and modulo (Objects/floatobject.c float_divmod).
std::pair<double, double> float_divmod(double vx, double wx) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return {floordiv, mod};
}

// int ** int for a non-negative exponent, or nullopt on overflow.
std::optional<int64_t> int_pow(int64_t base, int64_t exponent) {
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) {
      if (__builtin_mul_overflow(result, base, &result)) return std::nullopt;
    }
    exponent >>= 1;
    if (exponent > 0 && __builtin_mul_overflow(base, base, &base)) return std::nullopt;
  }
  return result;
}

Result<Value> integer_op(BinaryOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return overflow_error();
      return Value::integer(r);
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return overflow_error();
      return Value::integer(r);
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return overflow_error();
      return Value::integer(r);
    case BinaryOp::kDiv:
      if (b == 0) return template_error("division by zero");
      return Value::number(static_cast<double>(a) / static_cast<double>(b));
    case BinaryOp::kFloorDiv: {
      if (b == 0) return template_error("integer division or modulo by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return overflow_error();
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
      return Value::integer(q);
    }
    case BinaryOp::kMod: {
      if (b == 0) return template_error("integer division or modulo by zero");
      if (b == -1) return Value::integer(0);
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return Value::integer(m);
    }
    case BinaryOp::kPow: {
      if (b < 0) {
        if (a == 0) return template_error("0.0 cannot be raised to a negative power");
        return Value::number(std::pow(static_cast<double>(a), static_cast<double>(b)));
      }
      const auto p = int_pow(a, b);
      if (!p) return overflow_error();
      return Value::integer(*p);
    }
  }
  return overflow_error();
}

Result<Value> float_op(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::kAdd:
      return Value::number(a + b);
    case BinaryOp::kSub:
      return Value::number(a - b);
    case BinaryOp::kMul:
      return Value::number(a * b);
    case BinaryOp::kDiv:
      if (b == 0.0) return template_error("float division by zero");
      return Value::number(a / b);
    case BinaryOp::kFloorDiv:
      if (b == 0.0) return template_error("float floor division by zero");
      return Value::number(float_divmod(a, b).first);
    case BinaryOp::kMod:
      if (b == 0.0) return template_error("float modulo");
      return Value::number(float_divmod(a, b).second);
    case BinaryOp::kPow: {
      if (a == 0.0 && b < 0.0) return template_error("0.0 cannot be raised to a negative power");
      if (a < 0.0 && b != std::floor(b) && std::isfinite(b)) {
        return template_error("a negative number to a fractional power is complex");
      }
      const double r = std::pow(a, b);
      if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) {
        return template_error("numerical result out of range");
      }
      return Value::number(r);
    }
  }
  return Value::number(0);
}

// Lexicographic Python comparison of two sequences: -1, 0 or 1.
Result<int> compare_sequences(const Value& a, const Value& b, RenderState& state);

// Three-way comparison of two values Python can order: -1, 0, 1.
Result<int> compare3(const Value& a, const Value& b, Ordering op, RenderState& state) {
  if (a.is_undefined()) return template_error(a.undefined_message());
  if (b.is_undefined()) return template_error(b.undefined_message());
  if (a.is_number() && b.is_number()) {
    if (a.is_integer() && b.is_integer()) {
      return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
    }
    const double x = a.as_double();
    const double y = b.as_double();
    if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every comparison is false
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.as_string().compare(b.as_string());  // UTF-8 keeps code point order
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.kind() == b.kind() && a.is_sequence()) return compare_sequences(a, b, state);
  return template_error("'", ordering_symbol(op), "' not supported between instances of '",
                        type_name(a), "' and '", type_name(b), "'");
}

Result<int> compare_sequences(const Value& a, const Value& b, RenderState& state) {
  const auto& x = a.items();
  const auto& y = b.items();
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    CPPNN_RETURN_IF_ERROR(state.charge(1));
    auto equal = python_equal(x[i], y[i], state);
    if (!equal.ok()) return equal.error();
    if (!*equal) return compare3(x[i], y[i], Ordering::kLess, state);
  }
  return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
}

}  // namespace

const char* binary_op_symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kPow:
      return "**";
  }
  return "?";
}

const char* ordering_symbol(Ordering op) {
  switch (op) {
    case Ordering::kLess:
      return "<";
    case Ordering::kLessEqual:
      return "<=";
    case Ordering::kGreater:
      return ">";
    case Ordering::kGreaterEqual:
      return ">=";
  }
  return "?";
}

Result<Value> binary_op(BinaryOp op, const Value& a, const Value& b, RenderState& state) {
  // str % args: printf-style formatting (an undefined argument is formatted, as in Python).
  if (op == BinaryOp::kMod && a.is_string()) return printf_format(a.as_string(), b, state);
  if (a.is_undefined()) return template_error(a.undefined_message());
  if (b.is_undefined()) return template_error(b.undefined_message());
  if (a.is_integer() && b.is_integer()) return integer_op(op, a.as_int(), b.as_int());
  if (a.is_number() && b.is_number()) return float_op(op, a.as_double(), b.as_double());
  if (op == BinaryOp::kAdd) {
    if (a.is_string() && b.is_string()) {
      CPPNN_RETURN_IF_ERROR(state.charge_string(a.as_string().size() + b.as_string().size()));
      return Value::string(a.as_string() + b.as_string());
    }
    if (a.is_sequence() && a.kind() == b.kind()) {
      CPPNN_RETURN_IF_ERROR(state.charge_container(a.items().size() + b.items().size()));
      std::vector<Value> items = a.items();
      items.insert(items.end(), b.items().begin(), b.items().end());
      return a.kind() == ValueKind::kTuple ? Value::tuple(std::move(items))
                                           : Value::list(std::move(items));
    }
    if (a.is_string() || a.kind() == ValueKind::kList || a.kind() == ValueKind::kTuple) {
      return template_error("can only concatenate ", type_name(a), " (not \"", type_name(b),
                            "\") to ", type_name(a));
    }
  }
  if (op == BinaryOp::kMul) {
    if (a.is_string() && b.is_integer()) return repeat_string(a.as_string(), b.as_int(), state);
    if (b.is_string() && a.is_integer()) return repeat_string(b.as_string(), a.as_int(), state);
    if (a.is_sequence() && b.is_integer()) return repeat_items(a, b.as_int(), state);
    if (b.is_sequence() && a.is_integer()) return repeat_items(b, a.as_int(), state);
  }
  return unsupported(op, a, b);
}

Result<Value> negate(const Value& a) {
  if (a.is_undefined()) return template_error(a.undefined_message());
  if (a.is_integer()) {
    if (a.as_int() == std::numeric_limits<int64_t>::min()) return overflow_error();
    return Value::integer(-a.as_int());
  }
  if (a.kind() == ValueKind::kFloat) return Value::number(-a.as_double());
  return template_error("bad operand type for unary -: '", type_name(a), "'");
}

Result<Value> unary_plus(const Value& a) {
  if (a.is_undefined()) return template_error(a.undefined_message());
  if (a.is_integer()) return Value::integer(a.as_int());
  if (a.kind() == ValueKind::kFloat) return a;
  return template_error("bad operand type for unary +: '", type_name(a), "'");
}

Result<bool> python_equal(const Value& a, const Value& b, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(state.charge(1));
  if (a.is_number() && b.is_number()) {
    if (a.is_integer() && b.is_integer()) return a.as_int() == b.as_int();
    if (a.is_integer() || b.is_integer()) {
      // int == float exactly (not through a rounded conversion of the int).
      const int64_t i = a.is_integer() ? a.as_int() : b.as_int();
      const double d = a.is_integer() ? b.as_double() : a.as_double();
      if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.2233720368547758e18) {
        return false;
      }
      return static_cast<int64_t>(d) == i;
    }
    return a.as_double() == b.as_double();
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kUndefined:
    case ValueKind::kNone:
      return true;
    case ValueKind::kString:
      return a.as_string() == b.as_string();
    case ValueKind::kList:
    case ValueKind::kTuple: {
      if (a.items().size() != b.items().size()) return false;
      for (size_t i = 0; i < a.items().size(); ++i) {
        auto equal = python_equal(a.items()[i], b.items()[i], state);
        if (!equal.ok() || !*equal) return equal;
      }
      return true;
    }
    case ValueKind::kDict: {
      const Dict& x = a.as_dict();
      const Dict& y = b.as_dict();
      if (x.size() != y.size()) return false;
      for (const auto& [key, value] : x.entries()) {
        const Value* other = y.find(key);
        if (!other) return false;
        auto equal = python_equal(value, *other, state);
        if (!equal.ok() || !*equal) return equal;
      }
      return true;
    }
    case ValueKind::kNamespace:
    case ValueKind::kLoop:
    case ValueKind::kCallable:
      return a.identity() == b.identity();
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
      break;  // numbers handled above
  }
  return false;
}

Result<bool> python_order(Ordering op, const Value& a, const Value& b, RenderState& state) {
  auto c = compare3(a, b, op, state);
  if (!c.ok()) return c.error();
  if (*c == 2) return false;  // NaN
  switch (op) {
    case Ordering::kLess:
      return *c < 0;
    case Ordering::kLessEqual:
      return *c <= 0;
    case Ordering::kGreater:
      return *c > 0;
    case Ordering::kGreaterEqual:
      return *c >= 0;
  }
  return false;
}

Result<bool> python_contains(const Value& container, const Value& item, RenderState& state) {
  switch (container.kind()) {
    case ValueKind::kUndefined:
      return false;  // iterating an Undefined yields nothing
    case ValueKind::kString:
      if (!item.is_string()) {
        return template_error("'in <string>' requires string as left operand, not ",
                              type_name(item));
      }
      CPPNN_RETURN_IF_ERROR(state.charge(1 + container.as_string().size() / 16));
      return container.as_string().find(item.as_string()) != std::string::npos;
    case ValueKind::kList:
    case ValueKind::kTuple:
      for (const Value& element : container.items()) {
        auto equal = python_equal(element, item, state);
        if (!equal.ok() || *equal) return equal;
      }
      return false;
    case ValueKind::kDict:
      if (!Dict::hashable(item)) return template_error("unhashable type: '", type_name(item), "'");
      return container.as_dict().find(item) != nullptr;
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kNamespace:
    case ValueKind::kLoop:
    case ValueKind::kCallable:
      break;
  }
  return template_error("argument of type '", type_name(container), "' is not iterable");
}

Result<std::vector<size_t>> sorted_order(const std::vector<Value>& keys, RenderState& state,
                                         bool reverse, bool keys_in_lists) {
  CPPNN_RETURN_IF_ERROR(state.charge_container(keys.size()));
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // A stable bottom-up merge sort that only asks Python's `<` (as sorted() does), so that an
  // error of an incomparable pair is reported and no comparison property is assumed.
  std::vector<size_t> merged(order.size());
  for (size_t width = 1; width < order.size(); width *= 2) {
    for (size_t left = 0; left < order.size(); left += 2 * width) {
      const size_t mid = std::min(left + width, order.size());
      const size_t right = std::min(left + 2 * width, order.size());
      size_t i = left;
      size_t j = mid;
      size_t k = left;
      while (i < mid && j < right) {
        const Value& right_key = keys[order[j]];
        const Value& left_key = keys[order[i]];
        bool take_right = false;
        auto equal = keys_in_lists ? python_equal(left_key, right_key, state) : Result<bool>(false);
        if (!equal.ok()) return equal.error();
        if (!*equal) {
          auto less = reverse ? python_order(Ordering::kLess, left_key, right_key, state)
                              : python_order(Ordering::kLess, right_key, left_key, state);
          if (!less.ok()) return less.error();
          take_right = *less;
        }
        merged[k++] = take_right ? order[j++] : order[i++];
      }
      while (i < mid) merged[k++] = order[i++];
      while (j < right) merged[k++] = order[j++];
    }
    order.swap(merged);
  }
  return order;
}

}  // namespace cppnn::llm::jinja
