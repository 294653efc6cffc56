// Template values (see jinja_value.h).
#include "src/llm/jinja_value.h"

#include <algorithm>
#include <cmath>

#include "src/llm/jinja_text.h"

namespace cppnn::llm::jinja {

namespace {

// The nesting depth of a container holding `items`.
uint32_t depth_of(const std::vector<Value>& items) {
  uint32_t depth = 0;
  for (const Value& item : items) depth = std::max(depth, item.depth());
  return depth + 1;
}

// A string that equal hashable keys share and unequal keys do not (Python's hash/eq contract):
// integral numbers (bool, int, float) by their integer value, other floats by their repr.
std::string hash_key(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kNone:
      return "N";
    case ValueKind::kBool:
    case ValueKind::kInt:
      return "n" + std::to_string(key.as_int());
    case ValueKind::kFloat: {
      const double d = key.as_double();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
        return "n" + std::to_string(static_cast<int64_t>(d));
      }
      return "f" + python_float_repr(d);
    }
    case ValueKind::kString:
      return "s" + key.as_string();
    case ValueKind::kTuple: {
      std::string out = "t" + std::to_string(key.items().size());
      for (const Value& item : key.items()) {
        const std::string part = hash_key(item);
        out += std::to_string(part.size()) + ":" + part;
      }
      return out;
    }
    case ValueKind::kUndefined:
    case ValueKind::kList:
    case ValueKind::kDict:
    case ValueKind::kNamespace:
    case ValueKind::kLoop:
    case ValueKind::kCallable:
      break;
  }
  return "?";  // unhashable: callers check Dict::hashable first
}

}  // namespace

Value Value::undefined(std::string message) {
  Value v;
  v.data_ = std::make_shared<const std::string>(std::move(message));
  return v;
}

Value Value::none() {
  Value v;
  v.kind_ = ValueKind::kNone;
  return v;
}

Value Value::boolean(bool value) {
  Value v;
  v.kind_ = ValueKind::kBool;
  v.data_ = value;
  return v;
}

Value Value::integer(int64_t value) {
  Value v;
  v.kind_ = ValueKind::kInt;
  v.data_ = value;
  return v;
}

Value Value::number(double value) {
  Value v;
  v.kind_ = ValueKind::kFloat;
  v.data_ = value;
  return v;
}

Value Value::string(std::string value) {
  Value v;
  v.kind_ = ValueKind::kString;
  v.data_ = std::make_shared<const std::string>(std::move(value));
  return v;
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.kind_ = ValueKind::kList;
  v.depth_ = depth_of(items);
  v.data_ = std::make_shared<const std::vector<Value>>(std::move(items));
  return v;
}

Value Value::tuple(std::vector<Value> items) {
  Value v = list(std::move(items));
  v.kind_ = ValueKind::kTuple;
  return v;
}

Value Value::dict(Dict entries) {
  Value v;
  v.kind_ = ValueKind::kDict;
  uint32_t depth = 0;
  for (const auto& [key, value] : entries.entries()) {
    depth = std::max({depth, key.depth(), value.depth()});
  }
  v.depth_ = depth + 1;
  v.data_ = std::make_shared<const Dict>(std::move(entries));
  return v;
}

Value Value::namespace_ref(Namespace* ns) {
  Value v;
  v.kind_ = ValueKind::kNamespace;
  v.depth_ = 1;
  v.data_ = ns;
  return v;
}

Value Value::loop(std::shared_ptr<const LoopInfo> loop) {
  Value v;
  v.kind_ = ValueKind::kLoop;
  v.depth_ = 1;
  v.data_ = std::move(loop);
  return v;
}

Value Value::callable(std::shared_ptr<const Callable> callable) {
  Value v;
  v.kind_ = ValueKind::kCallable;
  v.depth_ = callable->self.depth() + 1;
  v.data_ = std::move(callable);
  return v;
}

int64_t Value::as_int() const {
  if (kind_ == ValueKind::kBool) return std::get<bool>(data_) ? 1 : 0;
  return std::get<int64_t>(data_);
}

double Value::as_double() const {
  if (kind_ == ValueKind::kFloat) return std::get<double>(data_);
  return static_cast<double>(as_int());
}

const void* Value::identity() const {
  switch (kind_) {
    case ValueKind::kList:
    case ValueKind::kTuple:
      return std::get<ListPtr>(data_).get();
    case ValueKind::kDict:
      return std::get<DictPtr>(data_).get();
    case ValueKind::kNamespace:
      return std::get<Namespace*>(data_);
    case ValueKind::kLoop:
      return std::get<LoopPtr>(data_).get();
    case ValueKind::kCallable:
      return std::get<CallablePtr>(data_).get();
    case ValueKind::kString:
      return std::get<StringPtr>(data_).get();
    case ValueKind::kUndefined:
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
      break;
  }
  return nullptr;
}

std::string Value::undefined_message() const {
  if (const auto* message = std::get_if<StringPtr>(&data_); message && *message) {
    if (!(*message)->empty()) return **message;
  }
  return "undefined value";
}

bool Dict::hashable(const Value& key) {
  switch (key.kind()) {
    case ValueKind::kUndefined:
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kString:
      return true;
    case ValueKind::kTuple:
      return std::all_of(key.items().begin(), key.items().end(), hashable);
    case ValueKind::kList:
    case ValueKind::kDict:
    case ValueKind::kNamespace:
    case ValueKind::kLoop:
    case ValueKind::kCallable:
      break;
  }
  return false;
}

void Dict::set(const Value& key, Value value) {
  std::string hashed = hash_key(key);
  auto [it, inserted] = index_.try_emplace(std::move(hashed), entries_.size());
  if (inserted) {
    entries_.emplace_back(key, std::move(value));
  } else {
    entries_[it->second].second = std::move(value);
  }
}

const Value* Dict::find(const Value& key) const {
  if (!hashable(key)) return nullptr;
  auto it = index_.find(hash_key(key));
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

const Value* Dict::find(std::string_view key) const {
  std::string hashed = "s";
  hashed += key;
  auto it = index_.find(hashed);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

bool truthy(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kUndefined:
    case ValueKind::kNone:
      return false;
    case ValueKind::kBool:
      return value.as_bool();
    case ValueKind::kInt:
      return value.as_int() != 0;
    case ValueKind::kFloat:
      return value.as_double() != 0.0;
    case ValueKind::kString:
      return !value.as_string().empty();
    case ValueKind::kList:
    case ValueKind::kTuple:
      return !value.items().empty();
    case ValueKind::kDict:
      return value.as_dict().size() != 0;
    case ValueKind::kNamespace:
    case ValueKind::kLoop:
    case ValueKind::kCallable:
      return true;
  }
  return false;
}

bool holds_reference(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kNamespace:
    case ValueKind::kCallable:
    case ValueKind::kLoop:
      return true;
    case ValueKind::kList:
    case ValueKind::kTuple:
      return std::any_of(value.items().begin(), value.items().end(), holds_reference);
    case ValueKind::kDict:
      for (const auto& [key, item] : value.as_dict().entries()) {
        if (holds_reference(item)) return true;
      }
      return false;
    case ValueKind::kUndefined:
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kString:
      return false;
  }
  return false;
}

std::string_view type_name(const Value& value) {
  switch (value.kind()) {
    case ValueKind::kUndefined:
      return "Undefined";
    case ValueKind::kNone:
      return "NoneType";
    case ValueKind::kBool:
      return "bool";
    case ValueKind::kInt:
      return "int";
    case ValueKind::kFloat:
      return "float";
    case ValueKind::kString:
      return "str";
    case ValueKind::kList:
      return "list";
    case ValueKind::kTuple:
      return "tuple";
    case ValueKind::kDict:
      return "dict";
    case ValueKind::kNamespace:
      return "Namespace";
    case ValueKind::kLoop:
      return "LoopContext";
    case ValueKind::kCallable:
      return value.as_callable().kind == CallableKind::kMacro ? "Macro"
                                                              : "builtin_function_or_method";
  }
  return "object";
}

}  // namespace cppnn::llm::jinja
