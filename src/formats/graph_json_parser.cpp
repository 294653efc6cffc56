// The GraphJson reader (webnn-graph-format.md §4.1): a single pass of the JSON pull reader
// (json_reader.h) that walks the schema and reads straight into the document. No tree of the
// whole file is built: inline bytes go into their std::vector<uint8_t>, shapes into their
// vectors, names into their strings; only option objects and scalar values become DocValues.
//
// Errors keep the order of a tree-first reader: a syntax error anywhere wins (the whole text is
// always read), then the root kind, then a repeated top-level field, then the fields in schema
// order (format, version, name, quantized, inputs, consts, nodes, outputs; inside an object its
// fields in the same fixed order, of a repeated key the last), inside arrays and maps the first
// element in source order. So each schema error is recorded where it is found (as a Fault, its
// JSON path formatted from a stack of path segments only then) and the first of them by that
// order is reported once the text has been read; the rest of a value that failed is only
// checked for syntax.
#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include "src/formats/doc_strings.h"
#include "src/formats/graph_json.h"
#include "src/formats/json_reader.h"

namespace cppnn::formats {
namespace {

using Kind = DocValue::Kind;

std::string kind_name(Kind k) {
  switch (k) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "a boolean";
    case Kind::kInt:
    case Kind::kUint:
      return "an integer";
    case Kind::kFloat:
      return "a float";
    case Kind::kString:
      return "a string";
    case Kind::kArray:
      return "an array";
    case Kind::kObject:
      return "an object";
  }
  return "a value";
}

// A schema error: the JSON path ("" = the root) and what is wrong.
struct Fault {
  std::string path;
  std::string message;
};
// The first schema error of a value, if any.
using Err = std::optional<Fault>;

// The state of one schema field of an object while it is read: present (its last occurrence)
// and that occurrence's error.
struct Slot {
  bool seen = false;
  Err err;

  // A new occurrence of the key: the previous one no longer counts.
  void reset() {
    seen = true;
    err.reset();
  }
};

class GraphJsonParser {
 public:
  explicit GraphJsonParser(std::string_view json) : r_(json) {}

  // Reads the whole text into `doc`; returns the first schema error. Syntax errors throw.
  Err graph(GraphDoc& doc);
  const JsonPull& reader() const { return r_; }

 private:
  // A path segment: a member name (a view that outlives the segment) or an array index.
  struct Segment {
    std::string_view key;
    size_t index = 0;
    bool is_index = false;
  };
  // Pushes a segment for the extent of a scope.
  class Scope {
   public:
    Scope(GraphJsonParser& p, std::string_view key) : p_(p) { p_.push(key, 0, false); }
    Scope(GraphJsonParser& p, size_t index) : p_(p) { p_.push({}, index, true); }
    ~Scope() { --p_.depth_; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    GraphJsonParser& p_;
  };

  // The nesting depth of the value at the current path (the root is 0).
  int depth() const { return static_cast<int>(depth_); }
  // The current path: "nodes[3].options.strides[1]".
  std::string path() const {
    std::string s;
    for (size_t d = 0; d < depth_; ++d) {
      const Segment& g = path_[d];
      if (g.is_index) {
        s += '[';
        s += std::to_string(g.index);
        s += ']';
      } else {
        if (!s.empty()) s += '.';
        s += g.key;
      }
    }
    return s;
  }
  // A fault at the current path.
  Err fault(std::string message) const { return Fault{path(), std::move(message)}; }
  // The value here is not `what`: skips it and records "must be <what>, got <kind>".
  bool mismatch(Err& err, std::string_view what) {
    const Kind k = r_.skip(depth());
    err = fault("must be " + std::string(what) + ", got " + kind_name(k));
    return false;
  }
  // The fault of a required field of the object at the current path (missing, or its own);
  // false (with `err`) when there is one.
  bool required(const Slot& s, std::string_view key, Err& err) const {
    if (!s.seen) {
      err = fault("missing field '" + std::string(key) + "'");
      return false;
    }
    return take(s, err);
  }
  static bool take(const Slot& s, Err& err) {
    if (!s.err) return true;
    err = s.err;
    return false;
  }

  // Skips the member value after a key (unknown fields).
  void skip_member() { r_.skip(depth() + 1); }
  // Skips the remaining elements (at nesting `item_depth`) of an array after a fault in one.
  void skip_rest_of_array(int item_depth) {
    while (r_.next_item()) {
      r_.ws();
      r_.skip(item_depth);
    }
  }

  bool string(std::string& out, Err& err) {
    if (r_.peek() == '"') {
      out.assign(r_.string());
      return true;
    }
    return mismatch(err, "a string");
  }
  bool unsigned_value(uint64_t max, std::string_view what, uint64_t& out, Err& err) {
    const char c = r_.peek();
    if (c == '-' || (c >= '0' && c <= '9')) {
      const JsonNumber n = r_.number();
      if (n.kind == Kind::kInt && n.i >= 0 && static_cast<uint64_t>(n.i) <= max) {
        out = static_cast<uint64_t>(n.i);
        return true;
      }
      if (n.kind == Kind::kUint && n.u <= max) {
        out = n.u;
        return true;
      }
      if (n.kind == Kind::kFloat) {
        err = fault("must be " + std::string(what) + ", got a float");
      } else {
        err = fault("is out of range for " + std::string(what));
      }
      return false;
    }
    return mismatch(err, what);
  }
  bool u32(uint32_t& out, Err& err) {
    r_.ws();
    if (r_.small_uint(UINT32_MAX, out)) return true;
    uint64_t v = 0;
    if (!unsigned_value(UINT32_MAX, "an unsigned 32-bit integer", v, err)) return false;
    out = static_cast<uint32_t>(v);
    return true;
  }
  bool data_type(MLOperandDataType& out, Err& err) {
    if (r_.peek() != '"') return mismatch(err, "a string");
    const std::string_view s = r_.string();
    if (auto t = parse_data_type(s)) {
      out = *t;
      return true;
    }
    err = fault("unknown data type \"" + std::string(s) +
                "\" (expected float32, float16, int32, uint32, int64, uint64, int8, uint8, "
                "int4 or uint4)");
    return false;
  }
  bool string_list(std::vector<std::string>& out, Err& err);
  bool input_shape(std::vector<DocDim>& out, Err& err);
  bool dimension(DocDim& out, Err& err);
  bool input_decl(DocInput& out, Err& err);
  bool const_shape(std::vector<uint32_t>& out, Err& err);
  bool byte_array(std::vector<uint8_t>& out, Err& err);
  bool const_init(DocInit& out, Err& err);
  bool const_decl(DocConst& out, Err& err);
  bool node(DocNode& out, Err& err);
  bool nodes(std::vector<DocNode>& out, Err& err);
  template <class T, class F>
  bool map(std::map<std::string, T>& out, Err& err, F read_entry);

  JsonPull r_;
  // The path as a fixed stack: the schema nests at most 6 deep (consts.NAME.init.bytes[i]).
  static constexpr size_t kMaxDepth = 16;
  std::array<Segment, kMaxDepth> path_;
  size_t depth_ = 0;
  // Field by field: copying a just-built Segment as a whole stalls on store forwarding.
  void push(std::string_view key, size_t index, bool is_index) {
    if (depth_ == kMaxDepth) throw std::logic_error("GraphJson schema path too deep");
    Segment& s = path_[depth_++];
    s.key = key;
    s.index = index;
    s.is_index = is_index;
  }
};

bool GraphJsonParser::string_list(std::vector<std::string>& out, Err& err) {
  if (r_.peek() != '[') return mismatch(err, "an array of strings");
  out.clear();
  size_t i = 0;
  const int item_depth = depth() + 1;
  if (r_.begin_array()) {
    do {
      Scope s(*this, i++);
      if (!string(out.emplace_back(), err)) {
        skip_rest_of_array(item_depth);
        return false;
      }
    } while (r_.next_item());
  }
  return true;
}

bool GraphJsonParser::dimension(DocDim& out, Err& err) {
  Slot name, max_size;
  if (r_.begin_object()) {
    do {
      const std::string_view k = r_.key();
      if (k == "name") {
        Scope s(*this, "name");
        name.reset();
        string(out.name, name.err);
      } else if (k == "maxSize") {
        Scope s(*this, "maxSize");
        max_size.reset();
        u32(out.size, max_size.err);
      } else {
        skip_member();
      }
    } while (r_.next_member());
  }
  return required(name, "name", err) && required(max_size, "maxSize", err);
}

bool GraphJsonParser::input_shape(std::vector<DocDim>& out, Err& err) {
  if (r_.peek() != '[') return mismatch(err, "an array");
  out.clear();
  size_t i = 0;
  const int item_depth = depth() + 1;
  if (r_.begin_array()) {
    do {
      Scope s(*this, i++);
      DocDim dim;
      const bool ok = r_.peek() == '{' ? dimension(dim, err) : u32(dim.size, err);
      if (!ok) {
        skip_rest_of_array(item_depth);
        return false;
      }
      out.push_back(std::move(dim));
    } while (r_.next_item());
  }
  return true;
}

bool GraphJsonParser::input_decl(DocInput& out, Err& err) {
  if (r_.peek() != '{') return mismatch(err, "an operand descriptor object");
  Slot data_type_slot, shape;
  if (r_.begin_object()) {
    do {
      const std::string_view k = r_.key();
      if (k == "dataType") {
        Scope s(*this, "dataType");
        data_type_slot.reset();
        data_type(out.dataType, data_type_slot.err);
      } else if (k == "shape") {
        Scope s(*this, "shape");
        shape.reset();
        input_shape(out.shape, shape.err);
      } else {
        skip_member();
      }
    } while (r_.next_member());
  }
  return required(data_type_slot, "dataType", err) && required(shape, "shape", err);
}

bool GraphJsonParser::const_shape(std::vector<uint32_t>& out, Err& err) {
  if (r_.peek() != '[') return mismatch(err, "an array");
  out.clear();
  size_t i = 0;
  const int item_depth = depth() + 1;
  if (r_.begin_array()) {
    do {
      Scope s(*this, i++);
      uint32_t d = 0;
      bool ok;
      if (r_.peek() == '{') {
        r_.skip(depth());
        err = fault("constant shapes must be static");
        ok = false;
      } else {
        ok = u32(d, err);
      }
      if (!ok) {
        skip_rest_of_array(item_depth);
        return false;
      }
      out.push_back(d);
    } while (r_.next_item());
  }
  return true;
}

bool GraphJsonParser::byte_array(std::vector<uint8_t>& out, Err& err) {
  if (r_.peek() != '[') return mismatch(err, "an array");
  out.clear();
  const int item_depth = depth() + 1;
  if (r_.begin_array()) {
    while (!r_.byte_run(out)) {
      // An element that is not a plain byte: the general rules, and its path only now.
      Scope s(*this, out.size());
      uint64_t v = 0;
      if (!unsigned_value(255, "a byte (0 to 255)", v, err)) {
        skip_rest_of_array(item_depth);
        return false;
      }
      out.push_back(static_cast<uint8_t>(v));
      if (!r_.next_item()) break;
    }
  }
  return true;
}

bool GraphJsonParser::const_init(DocInit& out, Err& err) {
  if (r_.peek() != '{') return mismatch(err, "an initializer object");
  // Which of ref, value and bytes counts depends on kind, which may come after them: each is read
  // (and checked) as it comes and judged at the end.
  Slot kind, ref, value, bytes;
  std::string kind_value;
  if (r_.begin_object()) {
    do {
      const std::string_view k = r_.key();
      if (k == "kind") {
        Scope s(*this, "kind");
        kind.reset();
        string(kind_value, kind.err);
      } else if (k == "ref") {
        Scope s(*this, "ref");
        ref.reset();
        string(out.ref, ref.err);
      } else if (k == "value") {
        Scope s(*this, "value");
        value.reset();
        out.value = DocValue();
        r_.value(out.value, depth(), true);
      } else if (k == "bytes") {
        Scope s(*this, "bytes");
        bytes.reset();
        byte_array(out.bytes, bytes.err);
      } else {
        skip_member();
      }
    } while (r_.next_member());
  }
  if (!required(kind, "kind", err)) return false;
  if (kind_value == "weights") {
    out.kind = DocInit::Kind::kWeights;
    out.value = DocValue();
    out.bytes = {};
    return required(ref, "ref", err);
  }
  if (kind_value == "scalar") {
    out.kind = DocInit::Kind::kScalar;
    out.ref.clear();
    out.bytes = {};
    return required(value, "value", err);
  }
  if (kind_value == "inlineBytes") {
    out.kind = DocInit::Kind::kInlineBytes;
    out.ref.clear();
    out.value = DocValue();
    return required(bytes, "bytes", err);
  }
  Scope s(*this, "kind");
  err = fault("unknown initializer kind \"" + kind_value +
              "\" (expected weights, scalar or inlineBytes)");
  return false;
}

bool GraphJsonParser::const_decl(DocConst& out, Err& err) {
  if (r_.peek() != '{') return mismatch(err, "a constant declaration object");
  Slot data_type_slot, shape, init;
  if (r_.begin_object()) {
    do {
      const std::string_view k = r_.key();
      if (k == "dataType") {
        Scope s(*this, "dataType");
        data_type_slot.reset();
        data_type(out.dataType, data_type_slot.err);
      } else if (k == "shape") {
        Scope s(*this, "shape");
        shape.reset();
        const_shape(out.shape, shape.err);
      } else if (k == "init") {
        Scope s(*this, "init");
        init.reset();
        out.init = DocInit();
        const_init(out.init, init.err);
      } else {
        skip_member();
      }
    } while (r_.next_member());
  }
  return required(data_type_slot, "dataType", err) && required(shape, "shape", err) &&
         required(init, "init", err);
}

bool GraphJsonParser::node(DocNode& out, Err& err) {
  if (r_.peek() != '{') return mismatch(err, "a node object");
  Slot id, op, inputs, options, outputs;
  if (r_.begin_object()) {
    do {
      const std::string_view k = r_.key();
      if (k == "id") {
        Scope s(*this, "id");
        id.reset();
        string(out.id, id.err);
      } else if (k == "op") {
        Scope s(*this, "op");
        op.reset();
        string(out.op, op.err);
      } else if (k == "inputs") {
        Scope s(*this, "inputs");
        inputs.reset();
        string_list(out.inputs, inputs.err);
      } else if (k == "options") {
        Scope s(*this, "options");
        options.reset();
        out.options.clear();
        if (r_.peek() == '{') {
          r_.object_members(out.options, depth(), true);
        } else {
          mismatch(options.err, "an object");
        }
      } else if (k == "outputs") {
        Scope s(*this, "outputs");
        outputs.reset();
        out.outputs.reset();
        if (r_.peek() == 'n') {
          r_.skip(depth());  // null (or a syntax error)
        } else {
          out.outputs.emplace();
          string_list(*out.outputs, outputs.err);
        }
      } else {
        skip_member();
      }
    } while (r_.next_member());
  }
  return required(id, "id", err) && required(op, "op", err) && required(inputs, "inputs", err) &&
         take(options, err) && take(outputs, err);
}

bool GraphJsonParser::nodes(std::vector<DocNode>& out, Err& err) {
  if (r_.peek() != '[') return mismatch(err, "an array");
  size_t i = 0;
  const int item_depth = depth() + 1;
  if (r_.begin_array()) {
    do {
      Scope s(*this, i++);
      if (!node(out.emplace_back(), err)) {
        skip_rest_of_array(item_depth);
        return false;
      }
    } while (r_.next_item());
  }
  return true;
}

// A map object (§4.1 inputs, consts, outputs): each entry read by read_entry(T&, Err&) in source
// order, a repeated name keeping the last value.
template <class T, class F>
bool GraphJsonParser::map(std::map<std::string, T>& out, Err& err, F read_entry) {
  if (r_.peek() != '{') return mismatch(err, "an object");
  if (r_.begin_object()) {
    do {
      // Canonical files have sorted names: the end is then the right place. A repeated name
      // starts over from an empty entry (the last wins).
      const size_t before = out.size();
      auto it = out.try_emplace(out.end(), std::string(r_.key()));
      if (out.size() == before) it->second = T{};
      bool ok;
      {
        Scope s(*this, it->first);
        ok = read_entry(it->second, err);
      }
      if (!ok) {
        while (r_.next_member()) {
          r_.key();
          skip_member();
        }
        return false;
      }
    } while (r_.next_member());
  }
  return true;
}

Err GraphJsonParser::graph(GraphDoc& doc) {
  if (r_.peek() != '{') {
    const Kind k = r_.skip(0);
    r_.expect_end();
    return Fault{"", "must be a GraphJson object, got " + kind_name(k)};
  }
  enum Field { kFormat, kVersion, kName, kQuantized, kInputs, kConsts, kNodes, kOutputs, kCount };
  static constexpr std::string_view kNames[kCount] = {"format", "version", "name",  "quantized",
                                                      "inputs", "consts",  "nodes", "outputs"};
  Slot slots[kCount];
  Err repeated;
  std::unordered_set<std::string> seen;
  // Fields at or after the first one with a fault (in schema order) cannot change the outcome
  // and are only checked for syntax.
  int first_fault = kCount;
  if (r_.begin_object()) {
    do {
      const std::string_view k = r_.key();
      if (!seen.emplace(k).second && !repeated)
        repeated = Fault{std::string(k), "repeated top-level field"};
      int f = 0;
      while (f < kCount && kNames[f] != k) ++f;
      if (f == kCount || repeated || f >= first_fault) {
        if (f < kCount) slots[f].seen = true;
        skip_member();
        continue;
      }
      Scope s(*this, kNames[f]);
      Slot& slot = slots[f];
      slot.reset();
      switch (f) {
        case kFormat:
          string(doc.format, slot.err);
          break;
        case kVersion:
          u32(doc.version, slot.err);
          break;
        case kName:
          if (r_.peek() == 'n') {
            r_.skip(depth());
            doc.name.reset();
          } else {
            doc.name.emplace();
            string(*doc.name, slot.err);
          }
          break;
        case kQuantized: {
          const char c = r_.peek();
          if (c == 't' || c == 'f') {
            doc.quantized = c == 't';
            if (r_.skip(depth()) != Kind::kBool) doc.quantized = false;
          } else {
            mismatch(slot.err, "a boolean");
          }
          break;
        }
        case kInputs:
          map(doc.inputs, slot.err, [this](DocInput& in, Err& e) { return input_decl(in, e); });
          break;
        case kConsts:
          map(doc.consts, slot.err, [this](DocConst& k, Err& e) { return const_decl(k, e); });
          break;
        case kNodes:
          nodes(doc.nodes, slot.err);
          break;
        case kOutputs:
          map(doc.outputs, slot.err, [this](std::string& v, Err& e) { return string(v, e); });
          break;
      }
      if (slot.err) first_fault = f;
    } while (r_.next_member());
  }
  r_.expect_end();
  if (repeated) return repeated;
  static constexpr bool kRequired[kCount] = {true, true, false, false, true, false, true, true};
  for (int f = 0; f < kCount; ++f) {
    if (!slots[f].seen) {
      if (kRequired[f]) return Fault{"", "missing field '" + std::string(kNames[f]) + "'"};
      continue;
    }
    if (slots[f].err) return slots[f].err;
  }
  return std::nullopt;
}

}  // namespace

Result<GraphDoc> parse_graph_json(std::string_view json, std::string_view file_name) {
  GraphJsonParser parser(json);
  GraphDoc doc;
  Err fault;
  try {
    fault = parser.graph(doc);
  } catch (const JsonSyntaxError& e) {
    return parser.reader().error(e, file_name);
  }
  if (fault)
    return data_error("JSON error: ", file_name, ": ", fault->path.empty() ? "(root)" : fault->path,
                      ": ", fault->message);
  CPPNN_RETURN_IF_ERROR(check_doc_strings(doc, file_name));  // UTF-8, no NUL (doc_strings.h)
  return doc;
}

}  // namespace cppnn::formats
