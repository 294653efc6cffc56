// The canonical GraphJson printer (webnn-graph-format.md §4.2) and the JSON value writers shared
// with the text printer (§5.1 object options, §5.2 numbers).
#include <algorithm>

#include "src/formats/graph_json.h"
#include "src/formats/text_number.h"

namespace cppnn::formats {
namespace {

// The members of an object in byte-wise key order.
std::vector<const std::pair<std::string, DocValue>*> sorted(const DocValue::Object& o) {
  std::vector<const std::pair<std::string, DocValue>*> v;
  v.reserve(o.size());
  for (const auto& m : o) v.push_back(&m);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->first < b->first; });
  return v;
}

// A pretty JSON writer: 2-space indent, one element per line, empty containers inline.
class Pretty {
 public:
  explicit Pretty(std::string& out) : out_(out) {}

  void newline(int depth) {
    out_ += '\n';
    out_.append(static_cast<size_t>(depth) * 2, ' ');
  }
  void key(int depth, bool& first, std::string_view k) {
    out_ += first ? "" : ",";
    first = false;
    newline(depth);
    append_json_string(out_, k);
    out_ += ": ";
  }
  void value(const DocValue& v, int depth) {
    if (v.kind == DocValue::Kind::kArray) {
      if (v.items.empty()) {
        out_ += "[]";
        return;
      }
      out_ += '[';
      bool first = true;
      for (const DocValue& item : v.items) {
        out_ += first ? "" : ",";
        first = false;
        newline(depth + 1);
        value(item, depth + 1);
      }
      newline(depth);
      out_ += ']';
    } else if (v.kind == DocValue::Kind::kObject) {
      object(v.members, depth);
    } else {
      append_compact_json(out_, v, true);
    }
  }
  void object(const DocValue::Object& o, int depth) {
    if (o.empty()) {
      out_ += "{}";
      return;
    }
    out_ += '{';
    bool first = true;
    for (const auto* m : sorted(o)) {
      key(depth + 1, first, m->first);
      value(m->second, depth + 1);
    }
    newline(depth);
    out_ += '}';
  }
  template <class T, class F>
  void list(const std::vector<T>& items, int depth, F&& each) {
    if (items.empty()) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    bool first = true;
    for (const T& item : items) {
      out_ += first ? "" : ",";
      first = false;
      newline(depth + 1);
      each(item);
    }
    newline(depth);
    out_ += ']';
  }
  void strings(const std::vector<std::string>& items, int depth) {
    list(items, depth, [&](const std::string& s) { append_json_string(out_, s); });
  }
  void uints(const std::vector<uint32_t>& items, int depth) {
    list(items, depth, [&](uint32_t u) { out_ += std::to_string(u); });
  }

 private:
  std::string& out_;
};

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void append_number(std::string& out, const DocValue& v) {
  switch (v.kind) {
    case DocValue::Kind::kInt:
      out += std::to_string(v.i);
      break;
    case DocValue::Kind::kUint:
      out += std::to_string(v.u);
      break;
    case DocValue::Kind::kFloat:
      append_float(out, v.f);
      break;
    default:
      break;
  }
}

void append_compact_json(std::string& out, const DocValue& v, bool sort_keys) {
  switch (v.kind) {
    case DocValue::Kind::kNull:
      out += "null";
      return;
    case DocValue::Kind::kBool:
      out += v.b ? "true" : "false";
      return;
    case DocValue::Kind::kInt:
    case DocValue::Kind::kUint:
    case DocValue::Kind::kFloat:
      append_number(out, v);
      return;
    case DocValue::Kind::kString:
      append_json_string(out, v.s);
      return;
    case DocValue::Kind::kArray: {
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        append_compact_json(out, v.items[i], sort_keys);
      }
      out += ']';
      return;
    }
    case DocValue::Kind::kObject: {
      out += '{';
      bool first = true;
      auto member = [&](const std::pair<std::string, DocValue>& m) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, m.first);
        out += ':';
        append_compact_json(out, m.second, sort_keys);
      };
      if (sort_keys)
        for (const auto* m : sorted(v.members)) member(*m);
      else
        for (const auto& m : v.members) member(m);
      out += '}';
      return;
    }
  }
}

std::string print_graph_json(const GraphDoc& doc) {
  std::string out;
  out.reserve(256 + doc.nodes.size() * 160);
  Pretty p(out);
  bool first = true;
  out += '{';
  p.key(1, first, "format");
  append_json_string(out, doc.format);
  p.key(1, first, "version");
  out += std::to_string(doc.version);
  if (doc.name) {
    p.key(1, first, "name");
    append_json_string(out, *doc.name);
  }
  p.key(1, first, "quantized");
  out += doc.quantized ? "true" : "false";

  p.key(1, first, "inputs");
  if (doc.inputs.empty()) out += "{}";
  bool f2 = true;
  for (const auto& [name, in] : doc.inputs) {
    if (f2) out += '{';
    p.key(2, f2, name);
    out += '{';
    bool f3 = true;
    p.key(3, f3, "dataType");
    append_json_string(out, data_type_name(in.dataType));
    p.key(3, f3, "shape");
    p.list(in.shape, 3, [&](const DocDim& d) {
      if (!d.is_dynamic()) {
        out += std::to_string(d.size);
        return;
      }
      out += '{';
      bool f4 = true;
      p.key(5, f4, "name");
      append_json_string(out, d.name);
      p.key(5, f4, "maxSize");
      out += std::to_string(d.size);
      p.newline(4);
      out += '}';
    });
    p.newline(2);
    out += '}';
  }
  if (!doc.inputs.empty()) {
    p.newline(1);
    out += '}';
  }

  p.key(1, first, "consts");
  if (doc.consts.empty()) out += "{}";
  f2 = true;
  for (const auto& [name, k] : doc.consts) {
    if (f2) out += '{';
    p.key(2, f2, name);
    out += '{';
    bool f3 = true;
    p.key(3, f3, "dataType");
    append_json_string(out, data_type_name(k.dataType));
    p.key(3, f3, "shape");
    p.uints(k.shape, 3);
    p.key(3, f3, "init");
    out += '{';
    bool f4 = true;
    p.key(4, f4, "kind");
    switch (k.init.kind) {
      case DocInit::Kind::kWeights:
        out += "\"weights\"";
        p.key(4, f4, "ref");
        append_json_string(out, k.init.ref);
        break;
      case DocInit::Kind::kScalar:
        out += "\"scalar\"";
        p.key(4, f4, "value");
        p.value(k.init.value, 4);
        break;
      case DocInit::Kind::kInlineBytes:
        out += "\"inlineBytes\"";
        p.key(4, f4, "bytes");
        p.list(k.init.bytes, 4, [&](uint8_t b) { out += std::to_string(b); });
        break;
    }
    p.newline(3);
    out += '}';
    p.newline(2);
    out += '}';
  }
  if (!doc.consts.empty()) {
    p.newline(1);
    out += '}';
  }

  p.key(1, first, "nodes");
  p.list(doc.nodes, 1, [&](const DocNode& n) {
    out += '{';
    bool f3 = true;
    p.key(3, f3, "id");
    append_json_string(out, n.id);
    p.key(3, f3, "op");
    append_json_string(out, n.op);
    p.key(3, f3, "inputs");
    p.strings(n.inputs, 3);
    p.key(3, f3, "options");
    p.object(n.options, 3);
    p.key(3, f3, "outputs");
    if (n.outputs)
      p.strings(*n.outputs, 3);
    else
      out += "null";
    p.newline(2);
    out += '}';
  });

  p.key(1, first, "outputs");
  if (doc.outputs.empty()) out += "{}";
  f2 = true;
  for (const auto& [name, ref] : doc.outputs) {
    if (f2) out += '{';
    p.key(2, f2, name);
    append_json_string(out, ref);
  }
  if (!doc.outputs.empty()) {
    p.newline(1);
    out += '}';
  }
  p.newline(0);
  out += '}';
  return out;
}

}  // namespace cppnn::formats
