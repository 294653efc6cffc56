// The GraphJson reader (webnn-graph-format.md §4.1): JSON -> DocValue (json_reader.h) -> the
// document, with every schema error naming its JSON path ("nodes[3].options").
#include <cmath>

#include "src/formats/graph_json.h"
#include "src/formats/json_reader.h"

namespace cppnn::formats {
namespace {

struct SchemaError {
  std::string path;
  std::string message;
};

using Kind = DocValue::Kind;

std::string kind_name(const DocValue& v) {
  switch (v.kind) {
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

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
std::string index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

[[noreturn]] void fail(const std::string& path, std::string message) {
  throw SchemaError{path, std::move(message)};
}

void expect_kind(const DocValue& v, Kind k, const std::string& path, std::string_view what) {
  if (v.kind != k) fail(path, "must be " + std::string(what) + ", got " + kind_name(v));
}

std::string take_string(DocValue& v, const std::string& path) {
  expect_kind(v, Kind::kString, path, "a string");
  return std::move(v.s);
}

uint64_t unsigned_value(const DocValue& v, const std::string& path, uint64_t max,
                        std::string_view what) {
  if (v.kind == Kind::kInt && v.i >= 0 && static_cast<uint64_t>(v.i) <= max)
    return static_cast<uint64_t>(v.i);
  if (v.kind == Kind::kUint && v.u <= max) return v.u;
  if (v.kind == Kind::kInt || v.kind == Kind::kUint)
    fail(path, "is out of range for " + std::string(what));
  fail(path, "must be " + std::string(what) + ", got " + kind_name(v));
}

uint32_t u32(const DocValue& v, const std::string& path) {
  return static_cast<uint32_t>(unsigned_value(v, path, UINT32_MAX, "an unsigned 32-bit integer"));
}

MLOperandDataType dtype(DocValue& v, const std::string& path) {
  const std::string s = take_string(v, path);
  if (auto t = parse_data_type(s)) return *t;
  fail(path, "unknown data type \"" + s +
                 "\" (expected float32, float16, int32, uint32, int64, uint64, int8, uint8, "
                 "int4 or uint4)");
}

// The members of an object with a repeated key collapsed to its last value (§4.1), recursively
// for nested option objects.
void dedupe(DocValue& v) {
  if (v.kind == Kind::kArray) {
    for (DocValue& item : v.items) dedupe(item);
  } else if (v.kind == Kind::kObject) {
    DocValue::Object out;
    out.reserve(v.members.size());
    for (auto& [k, m] : v.members) {
      dedupe(m);
      set_member(out, std::move(k), std::move(m));
    }
    v.members = std::move(out);
  }
}

// Fields of a schema object: required/optional lookup (the last of a repeated key).
class Fields {
 public:
  Fields(DocValue& v, std::string path, std::string_view what) : path_(std::move(path)) {
    expect_kind(v, Kind::kObject, path_.empty() ? "(root)" : path_, what);
    obj_ = &v.members;
  }
  DocValue* optional(std::string_view key) {
    DocValue* found = nullptr;
    for (auto& [k, m] : *obj_)
      if (k == key) found = &m;
    return found;
  }
  DocValue& required(std::string_view key) {
    if (DocValue* v = optional(key)) return *v;
    fail(path_.empty() ? "(root)" : path_, "missing field '" + std::string(key) + "'");
  }
  std::string path(std::string_view key) const { return join(path_, key); }

 private:
  std::string path_;
  DocValue::Object* obj_;
};

DocInput input_decl(DocValue& v, const std::string& path) {
  Fields f(v, path, "an operand descriptor object");
  DocInput in;
  in.dataType = dtype(f.required("dataType"), f.path("dataType"));
  DocValue& shape = f.required("shape");
  const std::string sp = f.path("shape");
  expect_kind(shape, Kind::kArray, sp, "an array");
  in.shape.reserve(shape.items.size());
  for (size_t i = 0; i < shape.items.size(); ++i) {
    DocValue& d = shape.items[i];
    const std::string dp = index(sp, i);
    if (d.kind == Kind::kObject) {
      Fields df(d, dp, "a dimension");
      DocDim dim;
      dim.name = take_string(df.required("name"), df.path("name"));
      dim.size = u32(df.required("maxSize"), df.path("maxSize"));
      in.shape.push_back(std::move(dim));
    } else {
      in.shape.push_back(DocDim{u32(d, dp), {}});
    }
  }
  return in;
}

DocConst const_decl(DocValue& v, const std::string& path) {
  Fields f(v, path, "a constant declaration object");
  DocConst k;
  k.dataType = dtype(f.required("dataType"), f.path("dataType"));
  DocValue& shape = f.required("shape");
  const std::string sp = f.path("shape");
  expect_kind(shape, Kind::kArray, sp, "an array");
  for (size_t i = 0; i < shape.items.size(); ++i) {
    if (shape.items[i].kind == Kind::kObject) fail(index(sp, i), "constant shapes must be static");
    k.shape.push_back(u32(shape.items[i], index(sp, i)));
  }
  Fields init(f.required("init"), f.path("init"), "an initializer object");
  const std::string kind = take_string(init.required("kind"), init.path("kind"));
  if (kind == "weights") {
    k.init.kind = DocInit::Kind::kWeights;
    k.init.ref = take_string(init.required("ref"), init.path("ref"));
  } else if (kind == "scalar") {
    k.init.kind = DocInit::Kind::kScalar;
    k.init.value = std::move(init.required("value"));
    dedupe(k.init.value);
  } else if (kind == "inlineBytes") {
    k.init.kind = DocInit::Kind::kInlineBytes;
    DocValue& bytes = init.required("bytes");
    const std::string bp = init.path("bytes");
    expect_kind(bytes, Kind::kArray, bp, "an array");
    k.init.bytes.reserve(bytes.items.size());
    for (size_t i = 0; i < bytes.items.size(); ++i)
      k.init.bytes.push_back(static_cast<uint8_t>(
          unsigned_value(bytes.items[i], index(bp, i), 255, "a byte (0 to 255)")));
  } else {
    fail(init.path("kind"),
         "unknown initializer kind \"" + kind + "\" (expected weights, scalar or inlineBytes)");
  }
  return k;
}

std::vector<std::string> string_list(DocValue& v, const std::string& path) {
  expect_kind(v, Kind::kArray, path, "an array of strings");
  std::vector<std::string> out;
  out.reserve(v.items.size());
  for (size_t i = 0; i < v.items.size(); ++i)
    out.push_back(take_string(v.items[i], index(path, i)));
  return out;
}

DocNode node(DocValue& v, const std::string& path) {
  Fields f(v, path, "a node object");
  DocNode n;
  n.id = take_string(f.required("id"), f.path("id"));
  n.op = take_string(f.required("op"), f.path("op"));
  n.inputs = string_list(f.required("inputs"), f.path("inputs"));
  if (DocValue* o = f.optional("options")) {
    expect_kind(*o, Kind::kObject, f.path("options"), "an object");
    dedupe(*o);
    n.options = std::move(o->members);
  }
  if (DocValue* o = f.optional("outputs"); o && o->kind != Kind::kNull)
    n.outputs = string_list(*o, f.path("outputs"));
  return n;
}

GraphDoc graph(DocValue& root) {
  Fields f(root, "", "a GraphJson object");
  // §4.1: a repeated top-level field is an error.
  for (size_t i = 0; i < root.members.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (root.members[i].first == root.members[j].first)
        fail(root.members[i].first, "repeated top-level field");
  GraphDoc doc;
  doc.format = take_string(f.required("format"), "format");
  doc.version = u32(f.required("version"), "version");
  if (DocValue* n = f.optional("name"); n && n->kind != Kind::kNull)
    doc.name = take_string(*n, "name");
  if (DocValue* q = f.optional("quantized")) {
    expect_kind(*q, Kind::kBool, "quantized", "a boolean");
    doc.quantized = q->b;
  }
  DocValue& inputs = f.required("inputs");
  expect_kind(inputs, Kind::kObject, "inputs", "an object");
  for (auto& [name, decl] : inputs.members)
    doc.inputs.insert_or_assign(name, input_decl(decl, join("inputs", name)));
  if (DocValue* consts = f.optional("consts")) {
    expect_kind(*consts, Kind::kObject, "consts", "an object");
    for (auto& [name, decl] : consts->members)
      doc.consts.insert_or_assign(name, const_decl(decl, join("consts", name)));
  }
  DocValue& nodes = f.required("nodes");
  expect_kind(nodes, Kind::kArray, "nodes", "an array");
  doc.nodes.reserve(nodes.items.size());
  for (size_t i = 0; i < nodes.items.size(); ++i)
    doc.nodes.push_back(node(nodes.items[i], index("nodes", i)));
  DocValue& outputs = f.required("outputs");
  expect_kind(outputs, Kind::kObject, "outputs", "an object");
  for (auto& [name, ref] : outputs.members)
    doc.outputs.insert_or_assign(name, take_string(ref, join("outputs", name)));
  return doc;
}

}  // namespace

Result<GraphDoc> parse_graph_json(std::string_view json, std::string_view file_name) {
  Result<DocValue> root = read_json(json, file_name);
  if (!root) return root.error();
  try {
    return graph(*root);
  } catch (const SchemaError& e) {
    return data_error("JSON error: ", file_name, ": ", e.path.empty() ? "(root)" : e.path, ": ",
                      e.message);
  }
}

}  // namespace cppnn::formats
