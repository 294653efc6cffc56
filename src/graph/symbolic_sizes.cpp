// Symbolic attribute sizes: expression text, evaluation, and attribute element access through the
// params' parameter names (src/formats/op_params.h) and the options' reflection.
#include "src/graph/symbolic_sizes.h"

#include <charconv>
#include <limits>
#include <type_traits>
#include <variant>

#include "cppnn/reflect.h"
#include "src/formats/op_params.h"

namespace cppnn {
namespace {

ErrorInfo bad_expression(std::string_view text, std::string_view why) {
  return ErrorInfo{ErrorKind::kDataError, str_cat("symbolic size \"", text, "\": ", why,
                                                  " (expected [scale*]name[+offset|-offset])")};
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool parse_i64(std::string_view s, int64_t& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

template <class T>
struct IsOptionalList : std::false_type {};
template <class T>
struct IsOptionalList<OptionalList<T>> : std::true_type {
  using Element = T;
};

// Calls f(element&) for element `index` of an integer slot (list or scalar); false if the slot is
// not an integer slot or has no such element.
template <class Slot, class F>
bool with_element(Slot& slot, uint32_t index, F&& f) {
  using S = std::remove_const_t<Slot>;
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
    if (index != 0) return false;
    f(slot);
    return true;
  } else if constexpr (std::is_same_v<S, std::vector<uint32_t>> ||
                       std::is_same_v<S, std::vector<int32_t>> ||
                       std::is_same_v<S, std::vector<int64_t>>) {
    if (index >= slot.size()) return false;
    f(slot[index]);
    return true;
  } else if constexpr (IsOptionalList<S>::value) {
    using E = typename IsOptionalList<S>::Element;
    if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>) {
      if (!slot.has_value() || index >= slot.value().size()) return false;
      f(slot.value()[index]);
      return true;
    } else {
      return false;
    }
  } else if constexpr (std::is_same_v<S, std::variant<uint32_t, std::vector<uint32_t>>>) {
    if (auto* list = std::get_if<std::vector<uint32_t>>(&slot))
      return with_element(*list, index, f);
    return false;
  } else {
    return false;
  }
}

// Finds attribute `field` of an op (params by their spec names, then the options' fields) and
// calls f on element `index`; false when absent.
template <class Attrs, class F>
bool with_attribute(OpType type, Attrs& attrs, std::string_view field, uint32_t index, F&& f) {
  const std::vector<std::string_view> params = formats::positional_param_names(type);
  bool found = false;
  std::visit(
      [&](auto& a) {
        if constexpr (requires { a.options; }) {
          using P = std::decay_t<decltype(a.params)>;
          if constexpr (std::is_same_v<P, ShapeParams>) {
            if (params.size() >= 1 && params[0] == field)
              found = with_element(a.params.shape, index, f);
          } else if constexpr (std::is_same_v<P, TwoListParams>) {
            if (params.size() >= 2 && params[0] == field)
              found = with_element(a.params.first, index, f);
            if (params.size() >= 2 && params[1] == field)
              found = with_element(a.params.second, index, f);
          } else if constexpr (std::is_same_v<P, SplitParams>) {
            if (params.size() >= 1 && params[0] == field)
              found = with_element(a.params.splits, index, f);
          }
          if (found) return;
          using Options = std::decay_t<decltype(a.options)>;
          reflect::for_each_field<Options>([&](auto fd) {
            if (found || fd.name != field) return;
            found = with_element(a.options.*fd.member, index, f);
          });
        }
      },
      attrs);
  return found;
}

ErrorInfo no_element(OpType type, std::string_view field, uint32_t index) {
  return type_error(op_name(type), ": no integer size '", field, "[", index, "]'");
}

// The number of integer elements of a slot (-1: not an integer slot; absent lists have none).
template <class Slot>
int64_t element_count_of(const Slot& slot) {
  using S = std::remove_const_t<Slot>;
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
    return 1;
  } else if constexpr (std::is_same_v<S, std::vector<uint32_t>> ||
                       std::is_same_v<S, std::vector<int32_t>> ||
                       std::is_same_v<S, std::vector<int64_t>>) {
    return static_cast<int64_t>(slot.size());
  } else if constexpr (IsOptionalList<S>::value) {
    using E = typename IsOptionalList<S>::Element;
    if constexpr (std::is_integral_v<E> && !std::is_same_v<E, bool>)
      return slot.has_value() ? static_cast<int64_t>(slot.value().size()) : 0;
    else
      return -1;
  } else if constexpr (std::is_same_v<S, std::variant<uint32_t, std::vector<uint32_t>>>) {
    if (auto* list = std::get_if<std::vector<uint32_t>>(&slot)) return element_count_of(*list);
    return 1;
  } else {
    return -1;
  }
}

}  // namespace

std::vector<std::pair<std::string, std::vector<int64_t>>> integer_attributes(
    OpType type, const OpAttributes& attrs) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  const std::vector<std::string_view> params = formats::positional_param_names(type);
  auto add = [&](std::string_view name, const auto& slot) {
    const int64_t n = element_count_of(slot);
    if (n < 0) return;
    std::vector<int64_t> values;
    for (int64_t i = 0; i < n; ++i) {
      Result<int64_t> v = size_attribute(type, attrs, name, static_cast<uint32_t>(i));
      values.push_back(v ? *v : 0);
    }
    out.emplace_back(std::string(name), std::move(values));
  };
  std::visit(
      [&](const auto& a) {
        if constexpr (requires { a.options; }) {
          using P = std::decay_t<decltype(a.params)>;
          if constexpr (std::is_same_v<P, ShapeParams>) {
            if (!params.empty()) add(params[0], a.params.shape);
          } else if constexpr (std::is_same_v<P, TwoListParams>) {
            if (params.size() >= 2) {
              add(params[0], a.params.first);
              add(params[1], a.params.second);
            }
          } else if constexpr (std::is_same_v<P, SplitParams>) {
            if (!params.empty()) add(params[0], a.params.splits);
          }
          using Options = std::decay_t<decltype(a.options)>;
          reflect::for_each_field<Options>([&](auto fd) { add(fd.name, a.options.*fd.member); });
        }
      },
      attrs);
  return out;
}

std::string symbolic_expression(const SymbolicSize& s) {
  std::string out;
  if (s.scale != 1) out += std::to_string(s.scale) + "*";
  out += s.symbol;
  if (s.offset > 0) out += "+" + std::to_string(s.offset);
  if (s.offset < 0) out += std::to_string(s.offset);  // "-3"
  return out;
}

Result<SymbolicSize> parse_symbolic_expression(std::string_view text) {
  SymbolicSize s;
  std::string_view rest = text;
  if (auto star = rest.find('*'); star != std::string_view::npos) {
    const std::string_view k = rest.substr(0, star);
    if (!all_digits(k) || !parse_i64(k, s.scale) || s.scale < 1)
      return bad_expression(text, "the scale must be a positive integer");
    rest = rest.substr(star + 1);
  }
  if (auto sign = rest.find_last_of("+-");
      sign != std::string_view::npos && sign > 0 && all_digits(rest.substr(sign + 1))) {
    if (!parse_i64(rest.substr(sign + 1), s.offset))
      return bad_expression(text, "the offset is too large");
    if (rest[sign] == '-') s.offset = -s.offset;
    rest = rest.substr(0, sign);
  }
  if (rest.empty()) return bad_expression(text, "no dimension name");
  if (rest.find('*') != std::string_view::npos) return bad_expression(text, "more than one '*'");
  s.symbol = std::string(rest);
  return s;
}

Result<int64_t> evaluate_symbolic(const SymbolicSize& s, int64_t value) {
  int64_t r = 0;
  if (__builtin_mul_overflow(s.scale, value, &r) || __builtin_add_overflow(r, s.offset, &r))
    return ErrorInfo{ErrorKind::kDataError, str_cat("symbolic size ", symbolic_expression(s),
                                                    " overflows at ", s.symbol, " = ", value)};
  return r;
}

Result<int64_t> size_attribute(OpType type, const OpAttributes& attrs, std::string_view field,
                               uint32_t index) {
  int64_t out = 0;
  if (!with_attribute(type, attrs, field, index,
                      [&](const auto& e) { out = static_cast<int64_t>(e); }))
    return no_element(type, field, index);
  return out;
}

Status set_size_attribute(OpType type, OpAttributes& attrs, std::string_view field, uint32_t index,
                          int64_t value) {
  bool fits = true;
  if (!with_attribute(type, attrs, field, index, [&](auto& e) {
        using E = std::remove_reference_t<decltype(e)>;
        if (value < static_cast<int64_t>(std::numeric_limits<E>::min()) ||
            static_cast<uint64_t>(value) > static_cast<uint64_t>(std::numeric_limits<E>::max()) ||
            (value < 0 && std::is_unsigned_v<E>)) {
          fits = false;
          return;
        }
        e = static_cast<E>(value);
      }))
    return no_element(type, field, index);
  if (!fits)
    return type_error(op_name(type), ": ", field, "[", index, "] = ", value,
                      " does not fit the attribute");
  return Ok{};
}

}  // namespace cppnn
