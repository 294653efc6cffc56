// The in-memory document of a webnn-graph file (webnn-graph-format.md §1, §4.1): the GraphJson
// AST that both the .webnn text and the GraphJson encodings read into and print from. It records
// names only; formats/graph_convert.h turns it into a cppnn Graph and back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/descriptor.h"
#include "cppnn/graph_model.h"
#include "src/core/result.h"

namespace cppnn::formats {

// The GraphJson "format" value (§4.1).
inline constexpr std::string_view kGraphJsonFormat = "webnn-graph-json";

// A JSON value as the format carries it (option values, scalar inits). Numbers keep the
// integer/float distinction of §3.3 "Numbers": kInt (fits int64), kUint (a JSON integer above
// INT64_MAX), kFloat (anything with `.`/`e`, always finite). Objects keep their members in source
// order; a repeated key is kept once, with its last value (§4.1 reading rules).
struct DocValue {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUint, kFloat, kString, kArray, kObject };
  using Array = std::vector<DocValue>;
  using Object = std::vector<std::pair<std::string, DocValue>>;

  Kind kind = Kind::kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0.0;
  std::string s;   // kString
  Array items;     // kArray
  Object members;  // kObject

  static DocValue null() { return {}; }
  static DocValue boolean(bool v) {
    DocValue d;
    d.kind = Kind::kBool;
    d.b = v;
    return d;
  }
  static DocValue integer(int64_t v) {
    DocValue d;
    d.kind = Kind::kInt;
    d.i = v;
    return d;
  }
  static DocValue unsigned_integer(uint64_t v) {
    DocValue d;
    d.kind = Kind::kUint;
    d.u = v;
    return d;
  }
  static DocValue floating(double v) {
    DocValue d;
    d.kind = Kind::kFloat;
    d.f = v;
    return d;
  }
  static DocValue string(std::string v) {
    DocValue d;
    d.kind = Kind::kString;
    d.s = std::move(v);
    return d;
  }
  static DocValue array(Array v = {}) {
    DocValue d;
    d.kind = Kind::kArray;
    d.items = std::move(v);
    return d;
  }
  static DocValue object(Object v = {}) {
    DocValue d;
    d.kind = Kind::kObject;
    d.members = std::move(v);
    return d;
  }

  bool is_number() const {
    return kind == Kind::kInt || kind == Kind::kUint || kind == Kind::kFloat;
  }
  // The member `key` of an object, or nullptr.
  const DocValue* find(std::string_view key) const;
  // Sets member `key` of an object (replacing an existing one in place, so the last value wins).
  void set(std::string key, DocValue value);

  // Equal values; object members compare by key, in any order (keys are unique).
  friend bool operator==(const DocValue& a, const DocValue& b);
};

// Two objects with the same keys and equal values, in any order.
bool objects_equal(const DocValue::Object& a, const DocValue::Object& b);

// Sets member `key` of `object` (an existing one is replaced in place: the last value wins).
void set_member(DocValue::Object& object, std::string key, DocValue value);
// The member `key` of `object`, or nullptr.
const DocValue* find_member(const DocValue::Object& object, std::string_view key);

// One dimension of an input shape: static (`name` empty, `size` the extent) or dynamic
// (`dyn("batch", 8)`, format v2: `name` set, `size` the maximum, §3.2 `dim`).
struct DocDim {
  uint32_t size = 0;
  std::string name;

  bool is_dynamic() const { return !name.empty(); }
  friend bool operator==(const DocDim&, const DocDim&) = default;
};

// An input declaration (OperandDesc, §4.1).
struct DocInput {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  std::vector<DocDim> shape;

  friend bool operator==(const DocInput&, const DocInput&) = default;
};

// A constant initializer (ConstInit, §4.1): external weights by reference, a scalar that fills
// the declared shape, or raw little-endian element bytes (4-bit types packed, 2 per byte).
struct DocInit {
  enum class Kind : uint8_t { kWeights, kScalar, kInlineBytes };
  Kind kind = Kind::kWeights;
  std::string ref;             // kWeights
  DocValue value;              // kScalar (normally a number)
  std::vector<uint8_t> bytes;  // kInlineBytes

  friend bool operator==(const DocInit&, const DocInit&) = default;
};

// A constant declaration (ConstDecl, §4.1): static shape only.
struct DocConst {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  std::vector<uint32_t> shape;
  DocInit init;

  friend bool operator==(const DocConst&, const DocConst&) = default;
};

// A position in a text or JSON source, 1-based (0 = unknown, e.g. a document built in code).
struct DocPos {
  uint32_t line = 0;
  uint32_t column = 0;

  friend bool operator==(const DocPos&, const DocPos&) = default;
};

// A node (§4.1 Node, §3.3 Statements): `id = op(inputs..., options...)`; `outputs` set for the
// multi-output form `[a, b] = op(...)` (id is then outputs[0]); op "" is the alias `y = x;`.
struct DocNode {
  std::string id;
  std::string op;
  std::vector<std::string> inputs;
  DocValue::Object options;  // source order; printers sort the keys
  std::optional<std::vector<std::string>> outputs;
  DocPos pos;  // where the statement starts (not compared, not printed)

  // The value names this node defines: `outputs` when set, else `id`.
  std::vector<std::string> defined_names() const {
    return outputs ? *outputs : std::vector<std::string>{id};
  }
  friend bool operator==(const DocNode& a, const DocNode& b) {
    return a.id == b.id && a.op == b.op && a.inputs == b.inputs &&
           objects_equal(a.options, b.options) && a.outputs == b.outputs;
  }
};

// The whole document (§4.1 Graph). Maps are sorted by name (byte-wise), which is the canonical
// order of §4.2 and §5.1.
struct GraphDoc {
  std::string format = std::string(kGraphJsonFormat);
  uint32_t version = 1;
  std::optional<std::string> name;  // text always sets it (maybe to "")
  bool quantized = false;
  std::map<std::string, DocInput> inputs;
  std::map<std::string, DocConst> consts;
  std::vector<DocNode> nodes;
  std::map<std::string, std::string> outputs;  // output name -> value name

  friend bool operator==(const GraphDoc&, const GraphDoc&) = default;
};

// Non-fatal findings of a reader or printer (§10 rows 9, 14, 15, 24): "<file>:<line>:<col>: ..."
// or "<json path>: ...".
using Warnings = std::vector<std::string>;

// The element size in bytes of `t` for byte counts in the raw-weight tools (4-bit = 1, §2).
uint64_t doc_element_bytes(MLOperandDataType t);

// The source of external constant bytes (§7): F2's resolvers (SafeTensors, .weights + manifest)
// implement it. `load` returns the bytes of the tensor that `ref` names for constant `name`,
// declared as `descriptor` (authoritative; 4-bit data packed as ceil(n/2) bytes); the bytes may
// be a view into a mapped file. Errors: a DataError naming the ref and the constant.
class WeightsSource {
 public:
  virtual ~WeightsSource() = default;
  virtual Result<ConstantData> load(const std::string& name, const std::string& ref,
                                    const MLOperandDescriptor& descriptor) = 0;
};

// ErrorInfo{kDataError, message}.
template <class... A>
ErrorInfo data_error(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat(a...)};
}

}  // namespace cppnn::formats
