// Collection filters (see jinja_filters_collection.h).
#include "src/llm/jinja_filters_collection.h"

#include <functional>

#include "src/llm/jinja_access.h"
#include "src/llm/jinja_filters.h"
#include "src/llm/jinja_format.h"
#include "src/llm/jinja_is_tests.h"
#include "src/llm/jinja_operators.h"
#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// Jinja's make_attrgetter: `attribute` is a dotted path ("a.b.0") or an integer index; the item
// itself without one. A missing result becomes `fallback` when one is given.
Result<Value> get_attribute(const Value& item, const std::optional<Value>& attribute,
                            const std::optional<Value>& fallback, RenderState& state) {
  if (!attribute || attribute->is_none()) return item;
  Result<Value> value = attribute->is_string() ? get_attr_path(item, attribute->as_string(), state)
                                               : get_item(item, *attribute, state);
  if (!value.ok()) return value;
  if (fallback && !fallback->is_none() && value->is_undefined()) return *fallback;
  return value;
}

// Jinja's ignore_case postprocessing of sort keys: strings lower-cased.
Value ignore_case(const Value& value, bool case_sensitive) {
  if (case_sensitive || !value.is_string()) return value;
  return Value::string(python_lower(value.as_string()));
}

// The sort keys of `items` (attribute, then case folding).
Result<std::vector<Value>> sort_keys(const std::vector<Value>& items,
                                     const std::optional<Value>& attribute, bool case_sensitive,
                                     RenderState& state) {
  std::vector<Value> keys;
  keys.reserve(items.size());
  for (const Value& item : items) {
    auto key = get_attribute(item, attribute, std::nullopt, state);
    if (!key.ok()) return key.error();
    keys.push_back(ignore_case(*key, case_sensitive));
  }
  return keys;
}

// The shared part of select/reject/selectattr/rejectattr (jinja2 prepare_select_or_reject).
Result<Value> select_or_reject(const Value& input, const CallArgs& args, RenderState& state,
                               bool select, bool lookup_attribute) {
  if (!truthy(input)) return Value::list({});  // Jinja's `if value:` guard
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  size_t offset = 0;
  std::optional<Value> attribute;
  if (lookup_attribute) {
    if (args.positional.empty()) return template_error("Missing parameter for attribute name");
    attribute = args.positional[0];
    offset = 1;
  }
  std::optional<std::string> test;
  CallArgs test_args;
  if (args.positional.size() > offset) {
    if (!args.positional[offset].is_string()) {
      return template_error("the test name must be a string");
    }
    test = args.positional[offset].as_string();
    if (!is_test(*test)) return template_error("no test named '", *test, "'");
    test_args.positional.assign(args.positional.begin() + static_cast<long>(offset) + 1,
                                args.positional.end());
    test_args.keywords = args.keywords;
  }
  std::vector<Value> kept;
  for (const Value& item : *items) {
    auto subject = get_attribute(item, attribute, std::nullopt, state);
    if (!subject.ok()) return subject.error();
    bool pass;
    if (test) {
      auto result = apply_test(*test, *subject, test_args, state);
      if (!result.ok()) return result.error();
      pass = *result;
    } else {
      pass = truthy(*subject);
    }
    if (pass == select) kept.push_back(item);
  }
  return Value::list(std::move(kept));
}

// min/max (jinja2 _min_or_max): the first smallest or largest item by key.
Result<Value> min_or_max(const Value& input, const CallArgs& args, RenderState& state, bool max) {
  auto bound = bind_args(max ? "max" : "min", args, {"case_sensitive", "attribute"});
  if (!bound.ok()) return bound.error();
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  if (items->empty()) return Value::undefined("No aggregated item, sequence was empty.");
  auto keys = sort_keys(*items, (*bound)[1], bool_arg((*bound)[0], false), state);
  if (!keys.ok()) return keys.error();
  size_t best = 0;
  for (size_t i = 1; i < items->size(); ++i) {
    auto better =
        python_order(max ? Ordering::kGreater : Ordering::kLess, (*keys)[i], (*keys)[best], state);
    if (!better.ok()) return better.error();
    if (*better) best = i;
  }
  return (*items)[best];
}

}  // namespace

Result<Value> filter_length(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("length", args, {}));
  (void)state;
  switch (input.kind()) {
    case ValueKind::kUndefined:
      return Value::integer(0);
    case ValueKind::kString:
      return Value::integer(static_cast<int64_t>(code_point_count(input.as_string())));
    case ValueKind::kList:
    case ValueKind::kTuple:
      return Value::integer(static_cast<int64_t>(input.items().size()));
    case ValueKind::kDict:
      return Value::integer(static_cast<int64_t>(input.as_dict().size()));
    case ValueKind::kLoop:
      return Value::integer(static_cast<int64_t>(input.as_loop().items->size()));
    default:
      break;
  }
  return template_error("object of type '", type_name(input), "' has no len()");
}

Result<Value> filter_first(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("first", args, {}));
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  if (items->empty()) return Value::undefined("No first item, sequence was empty.");
  return items->front();
}

Result<Value> filter_last(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("last", args, {}));
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  if (items->empty()) return Value::undefined("No last item, sequence was empty.");
  return items->back();
}

Result<Value> filter_list(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("list", args, {}));
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  return Value::list(std::move(*items));
}

Result<Value> filter_items(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("items", args, {}));
  if (input.is_undefined()) return Value::list({});
  if (!input.is_dict()) return template_error("Can only get item pairs from a mapping.");
  CPPNN_RETURN_IF_ERROR(state.charge_container(input.as_dict().size()));
  std::vector<Value> pairs;
  for (const auto& [key, value] : input.as_dict().entries())
    pairs.push_back(Value::tuple({key, value}));
  return Value::list(std::move(pairs));
}

Result<Value> filter_join(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("join", args, {"d", "attribute"});
  if (!bound.ok()) return bound.error();
  std::string separator;
  if ((*bound)[0]) {
    auto text = to_str(*(*bound)[0], state);
    if (!text.ok()) return text.error();
    separator = std::move(*text);
  }
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  std::string out;
  for (size_t i = 0; i < items->size(); ++i) {
    auto item = get_attribute((*items)[i], (*bound)[1], std::nullopt, state);
    if (!item.ok()) return item.error();
    if (i > 0) CPPNN_RETURN_IF_ERROR(append_str(out, Value::string(separator), state));
    CPPNN_RETURN_IF_ERROR(append_str(out, *item, state));
  }
  return Value::string(std::move(out));
}

Result<Value> filter_reverse(const Value& input, const CallArgs& args, RenderState& state) {
  CPPNN_RETURN_IF_ERROR(bind_args("reverse", args, {}));
  if (input.is_string()) {
    std::u32string cps = utf8_decode(input.as_string());
    return Value::string(utf8_encode(std::u32string(cps.rbegin(), cps.rend())));
  }
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  return Value::list(std::vector<Value>(items->rbegin(), items->rend()));
}

Result<Value> filter_sort(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("sort", args, {"reverse", "case_sensitive", "attribute"});
  if (!bound.ok()) return bound.error();
  const std::optional<Value>& attribute = (*bound)[2];
  if (attribute && attribute->is_string() &&
      attribute->as_string().find(',') != std::string::npos) {
    return template_error("sort(): sorting by several attributes is not supported");
  }
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  auto keys = sort_keys(*items, attribute, bool_arg((*bound)[1], false), state);
  if (!keys.ok()) return keys.error();
  // Jinja sorts by the key list [key] (make_multi_attrgetter).
  auto order = sorted_order(*keys, state, bool_arg((*bound)[0], false), true);
  if (!order.ok()) return order.error();
  std::vector<Value> sorted;
  sorted.reserve(order->size());
  for (size_t i : *order) sorted.push_back((*items)[i]);
  return Value::list(std::move(sorted));
}

Result<Value> filter_unique(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("unique", args, {"case_sensitive", "attribute"});
  if (!bound.ok()) return bound.error();
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  auto keys = sort_keys(*items, (*bound)[1], bool_arg((*bound)[0], false), state);
  if (!keys.ok()) return keys.error();
  Dict seen;
  std::vector<Value> unique;
  for (size_t i = 0; i < items->size(); ++i) {
    const Value& key = (*keys)[i];
    if (!Dict::hashable(key)) return template_error("unhashable type: '", type_name(key), "'");
    if (seen.find(key)) continue;
    seen.set(key, Value::none());
    unique.push_back((*items)[i]);
  }
  return Value::list(std::move(unique));
}

Result<Value> filter_dictsort(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("dictsort", args, {"case_sensitive", "by", "reverse"});
  if (!bound.ok()) return bound.error();
  auto by = string_arg((*bound)[1], "by", std::string("key"));
  if (!by.ok()) return by.error();
  if (**by != "key" && **by != "value") {
    return template_error("You can only sort by either \"key\" or \"value\"");
  }
  if (!input.is_dict()) return template_error("dictsort needs a mapping");
  const bool case_sensitive = bool_arg((*bound)[0], false);
  std::vector<Value> pairs;
  std::vector<Value> keys;
  for (const auto& [key, value] : input.as_dict().entries()) {
    pairs.push_back(Value::tuple({key, value}));
    keys.push_back(ignore_case(**by == "key" ? key : value, case_sensitive));
  }
  auto order = sorted_order(keys, state, bool_arg((*bound)[2], false));
  if (!order.ok()) return order.error();
  std::vector<Value> sorted;
  for (size_t i : *order) sorted.push_back(pairs[i]);
  return Value::list(std::move(sorted));
}

Result<Value> filter_sum(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("sum", args, {"attribute", "start"});
  if (!bound.ok()) return bound.error();
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  Value total = (*bound)[1] ? *(*bound)[1] : Value::integer(0);
  if (total.is_string())
    return template_error("sum() can't sum strings [use ''.join(seq) instead]");
  for (const Value& item : *items) {
    auto value = get_attribute(item, (*bound)[0], std::nullopt, state);
    if (!value.ok()) return value.error();
    auto sum = binary_op(BinaryOp::kAdd, total, *value, state);
    if (!sum.ok()) return sum.error();
    total = std::move(*sum);
  }
  return total;
}

Result<Value> filter_min(const Value& input, const CallArgs& args, RenderState& state) {
  return min_or_max(input, args, state, false);
}

Result<Value> filter_max(const Value& input, const CallArgs& args, RenderState& state) {
  return min_or_max(input, args, state, true);
}

Result<Value> filter_map(const Value& input, const CallArgs& args, RenderState& state) {
  if (!truthy(input)) return Value::list({});  // Jinja's `if value:` guard
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  std::vector<Value> mapped;
  mapped.reserve(items->size());
  const bool by_attribute = args.positional.empty() && !args.keywords.empty() &&
                            std::any_of(args.keywords.begin(), args.keywords.end(),
                                        [](const auto& kw) { return kw.first == "attribute"; });
  if (by_attribute) {
    auto bound = bind_args("map", args, {"attribute", "default"});
    if (!bound.ok()) return bound.error();
    for (const Value& item : *items) {
      auto value = get_attribute(item, (*bound)[0], (*bound)[1], state);
      if (!value.ok()) return value.error();
      mapped.push_back(std::move(*value));
    }
    return Value::list(std::move(mapped));
  }
  if (args.positional.empty()) return template_error("map requires a filter argument");
  if (!args.positional[0].is_string())
    return template_error("map(): the filter name must be a string");
  const std::string name = args.positional[0].as_string();
  if (!is_filter(name)) return template_error("no filter named '", name, "'");
  CallArgs rest;
  rest.positional.assign(args.positional.begin() + 1, args.positional.end());
  rest.keywords = args.keywords;
  for (const Value& item : *items) {
    auto value = apply_filter(name, item, rest, state);
    if (!value.ok()) return value.error();
    mapped.push_back(std::move(*value));
  }
  return Value::list(std::move(mapped));
}

Result<Value> filter_select(const Value& input, const CallArgs& args, RenderState& state) {
  return select_or_reject(input, args, state, true, false);
}

Result<Value> filter_reject(const Value& input, const CallArgs& args, RenderState& state) {
  return select_or_reject(input, args, state, false, false);
}

Result<Value> filter_selectattr(const Value& input, const CallArgs& args, RenderState& state) {
  return select_or_reject(input, args, state, true, true);
}

Result<Value> filter_rejectattr(const Value& input, const CallArgs& args, RenderState& state) {
  return select_or_reject(input, args, state, false, true);
}

Result<Value> filter_batch(const Value& input, const CallArgs& args, RenderState& state) {
  auto bound = bind_args("batch", args, {"linecount", "fill_with"});
  if (!bound.ok()) return bound.error();
  auto count = int_arg((*bound)[0], "linecount", 0);
  if (!count.ok()) return count.error();
  if (*count <= 0) return template_error("batch(): linecount must be a positive integer");
  auto items = python_iterate(input, state);
  if (!items.ok()) return items.error();
  const auto size = static_cast<size_t>(*count);
  std::vector<Value> batches;
  std::vector<Value> current;
  for (const Value& item : *items) {
    if (current.size() == size) {
      batches.push_back(Value::list(std::move(current)));
      current.clear();
    }
    current.push_back(item);
  }
  if (!current.empty()) {
    if ((*bound)[1] && !(*bound)[1]->is_none()) {
      CPPNN_RETURN_IF_ERROR(state.charge_container(size));
      while (current.size() < size) current.push_back(*(*bound)[1]);
    }
    batches.push_back(Value::list(std::move(current)));
  }
  return Value::list(std::move(batches));
}

}  // namespace cppnn::llm::jinja
