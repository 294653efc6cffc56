// The values of the chat-template interpreter: Python's objects as Jinja2 templates see them
// (None, bool, int, float, str, list, tuple, dict, Jinja's Undefined, namespace(), the loop
// object, and callables). Strings, lists and dicts are immutable and shared (the template runs in
// Jinja's ImmutableSandboxedEnvironment, where they cannot be modified); a namespace is the one
// mutable object, owned by the render's arena (jinja_state.h) so that no reference cycle can leak.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace cppnn::llm::jinja {

class Value;
class Dict;
struct Namespace;
struct LoopInfo;
struct Callable;

// The Python type of a value.
enum class ValueKind : uint8_t {
  kUndefined,  // jinja2.Undefined: a missing variable, attribute or item
  kNone,
  kBool,
  kInt,  // 64-bit; arithmetic that overflows is an error (Python would grow the integer)
  kFloat,
  kString,  // UTF-8
  kList,
  kTuple,
  kDict,
  kNamespace,  // jinja2's namespace(): attributes assignable with {% set ns.x = ... %}
  kLoop,       // the `loop` variable of a {% for %}
  kCallable,   // a global function, a bound method or a macro
};

// A template value. Copying is cheap (shared, immutable storage).
class Value {
 public:
  // Undefined (with no name).
  Value() = default;

  // Undefined; `message` is the error that using it raises, e.g. "'x' is undefined".
  static Value undefined(std::string message);
  static Value none();
  static Value boolean(bool value);
  static Value integer(int64_t value);
  static Value number(double value);
  static Value string(std::string value);
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);
  static Value dict(Dict entries);
  static Value namespace_ref(Namespace* ns);
  static Value loop(std::shared_ptr<const LoopInfo> loop);
  static Value callable(std::shared_ptr<const Callable> callable);

  ValueKind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == ValueKind::kUndefined; }
  bool is_none() const { return kind_ == ValueKind::kNone; }
  bool is_string() const { return kind_ == ValueKind::kString; }
  // int or bool (Python's bool is an int).
  bool is_integer() const { return kind_ == ValueKind::kInt || kind_ == ValueKind::kBool; }
  // int, bool or float.
  bool is_number() const { return is_integer() || kind_ == ValueKind::kFloat; }
  // list or tuple.
  bool is_sequence() const { return kind_ == ValueKind::kList || kind_ == ValueKind::kTuple; }
  bool is_dict() const { return kind_ == ValueKind::kDict; }

  bool as_bool() const { return std::get<bool>(data_); }
  // The integer value of an int or bool.
  int64_t as_int() const;
  // The value of a number as a double.
  double as_double() const;
  const std::string& as_string() const { return *std::get<StringPtr>(data_); }
  const std::vector<Value>& items() const { return *std::get<ListPtr>(data_); }
  const std::shared_ptr<const std::vector<Value>>& items_ptr() const {
    return std::get<ListPtr>(data_);
  }
  const Dict& as_dict() const { return *std::get<DictPtr>(data_); }
  Namespace* as_namespace() const { return std::get<Namespace*>(data_); }
  const LoopInfo& as_loop() const { return *std::get<LoopPtr>(data_); }
  const Callable& as_callable() const { return *std::get<CallablePtr>(data_); }
  // Identity of shared objects (namespace, loop, callable, list, dict), for `is sameas`.
  const void* identity() const;
  // The error an undefined value raises when it is used ("'x' is undefined").
  std::string undefined_message() const;
  // How deeply lists, tuples and dicts nest inside this value (0 for scalars).
  uint32_t depth() const { return depth_; }

 private:
  using StringPtr = std::shared_ptr<const std::string>;
  using ListPtr = std::shared_ptr<const std::vector<Value>>;
  using DictPtr = std::shared_ptr<const Dict>;
  using LoopPtr = std::shared_ptr<const LoopInfo>;
  using CallablePtr = std::shared_ptr<const Callable>;

  ValueKind kind_ = ValueKind::kUndefined;
  uint32_t depth_ = 0;
  std::variant<std::monostate, bool, int64_t, double, StringPtr, ListPtr, DictPtr, Namespace*,
               LoopPtr, CallablePtr>
      data_;
};

// A Python dict: entries in insertion order, looked up by Python equality of hashable keys
// (str, int, float, bool, None, Undefined and tuples of those; 1, 1.0 and True are the same key).
class Dict {
 public:
  // True when `key` can be a dict key (Python's hashable types).
  static bool hashable(const Value& key);
  // Sets `key` (hashable) to `value`, keeping the position of an existing key.
  void set(const Value& key, Value value);
  // The value of `key`, or nullptr.
  const Value* find(const Value& key) const;
  const Value* find(std::string_view key) const;
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  std::vector<std::pair<Value, Value>> entries_;
  std::unordered_map<std::string, size_t> index_;  // hash_key(key) -> position in entries_
};

// jinja2's namespace(): a mutable set of named attributes.
struct Namespace {
  Dict attributes;  // string keys
};

// The state of one {% for %} iteration, as the `loop` variable shows it.
struct LoopInfo {
  std::shared_ptr<const std::vector<Value>> items;  // the iterated (filtered) items
  size_t index0 = 0;
  uint32_t depth0 = 0;  // nesting of `loop(...)` recursion (always 0: recursive loops unsupported)
};

// What a call of a callable value runs.
enum class CallableKind : uint8_t {
  kGlobal,  // a global function: range, namespace, dict, raise_exception, strftime_now
  kMethod,  // a method bound to `self`: 'text'.strip, mapping.items, loop.cycle, ...
  kMacro,   // a {% macro %}
};

struct MacroDef;
struct Scope;

// A callable value.
struct Callable {
  CallableKind kind = CallableKind::kGlobal;
  std::string name;                 // the function, method or macro name
  Value self;                       // kMethod: the bound object
  const MacroDef* macro = nullptr;  // kMacro: its definition in the template
  Scope* closure = nullptr;         // kMacro: the scope it was defined in (alive while callable)
};

// Python's truth value: false for undefined, None, False, 0, 0.0, '' and empty containers.
bool truthy(const Value& value);

// True when `value` is or holds (in a list, tuple or dict) a namespace, loop or callable. Such
// values may not be stored in a namespace: a namespace cycle, or a macro outliving the scope it
// reads, would follow.
bool holds_reference(const Value& value);

// The Python type name used in error messages: "int", "str", "list", "dict", "NoneType", ...
std::string_view type_name(const Value& value);

}  // namespace cppnn::llm::jinja
