// The canonical .webnn text printer (webnn-graph-format.md §5.1 layout, §5.2 numbers, §5.3
// losses: what text cannot express is an error, never different parseable text).
#include <algorithm>

#include "src/formats/doc_symbolic.h"
#include "src/formats/graph_json.h"
#include "src/formats/webnn_text.h"

namespace cppnn::formats {
namespace {

struct PrintError {
  std::string message;
};

[[noreturn]] void fail(std::string m) {
  throw PrintError{std::move(m)};
}

// `s` quoted with only `"` and `\` escaped (§5.1 names and refs).
void append_text_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

void check_name(std::string_view name, std::string_view what) {
  if (!is_text_identifier(name))
    fail(std::string(what) + " '" + std::string(name) +
         "' is not a valid .webnn identifier (letters, digits, '_', '.', '/', a leading '$')");
}

bool starts_with_literal(std::string_view s) {
  return s.starts_with("true") || s.starts_with("false") || s.starts_with("null");
}

// True when a JSON string would need an escape other than \" and \\ (§5.3: the text reader
// would not read it back the same).
bool needs_json_escape(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

void check_object_strings(const DocValue& v, std::string_view where) {
  if (v.kind == DocValue::Kind::kString && needs_json_escape(v.s))
    fail(std::string(where) +
         ": a string with control characters inside an object option "
         "cannot be written as text");
  for (const DocValue& item : v.items) check_object_strings(item, where);
  for (const auto& [k, m] : v.members) {
    if (needs_json_escape(k))
      fail(std::string(where) +
           ": an object key with control characters cannot be written as text");
    check_object_strings(m, where);
  }
}

// An option value (§5.1): literals as is, strings quoted like names, arrays recursively,
// objects as compact JSON with sorted keys.
void append_option_value(std::string& out, const DocValue& v, std::string_view where) {
  switch (v.kind) {
    case DocValue::Kind::kString:
      append_text_string(out, v.s);
      return;
    case DocValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ", ";
        append_option_value(out, v.items[i], where);
      }
      out += ']';
      return;
    case DocValue::Kind::kObject:
      if (is_symbolic_value(v)) {  // docs/dynamic-dimensions.md
        out += "dyn(";
        append_text_string(out, v.find("dyn")->s);
        out += ", " + std::to_string(v.find("size")->i) + ")";
        return;
      }
      check_object_strings(v, where);
      append_compact_json(out, v, true);
      return;
    default:
      append_compact_json(out, v, true);
      return;
  }
}

void append_dims(std::string& out, const std::vector<DocDim>& dims) {
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    if (dims[i].is_dynamic()) {
      out += "dyn(";
      append_text_string(out, dims[i].name);
      out += ", " + std::to_string(dims[i].size) + ")";
    } else {
      out += std::to_string(dims[i].size);
    }
  }
  out += ']';
}

void append_node(std::string& out, const DocNode& n, Warnings* warnings) {
  const std::string where = "node '" + n.id + "'";
  out += "    ";
  if (n.outputs) {
    if (n.outputs->empty()) fail(where + ": an empty outputs list cannot be written as text");
    if (n.outputs->front() != n.id)
      fail(where + ": its id differs from its first output '" + n.outputs->front() +
           "', which text cannot express");
    out += '[';
    for (size_t i = 0; i < n.outputs->size(); ++i) {
      check_name((*n.outputs)[i], "output name");
      if (i) out += ", ";
      out += (*n.outputs)[i];
    }
    out += ']';
  } else {
    check_name(n.id, "node id");
    out += n.id;
  }
  out += " = ";
  if (n.op.empty()) {
    if (warnings)
      warnings->push_back(where + ": an alias (op \"\") is written as '" + n.id +
                          " = (...);', which does not parse (§10 row 9)");
  } else {
    check_name(n.op, "op name");
    out += n.op;
  }
  out += '(';
  bool first = true;
  for (const std::string& in : n.inputs) {
    if (!first) out += ", ";
    first = false;
    // A name the reader would take for a literal (§3.4c) is written as a string, which reads
    // back as the same input.
    if (is_text_identifier(in) && !starts_with_literal(in))
      out += in;
    else
      append_text_string(out, in);
  }
  std::vector<const std::pair<std::string, DocValue>*> options;
  for (const auto& m : n.options) options.push_back(&m);
  std::sort(options.begin(), options.end(), [](auto* a, auto* b) { return a->first < b->first; });
  for (const auto* m : options) {
    check_name(m->first, where + ": option key");
    if (!first) out += ", ";
    first = false;
    out += m->first;
    out += '=';
    append_option_value(out, m->second, where + " option '" + m->first + "'");
  }
  out += ");\n";
}

std::string print(const GraphDoc& doc, bool force_quantized, Warnings* warnings) {
  if (doc.format != kGraphJsonFormat) fail("invalid format: " + doc.format);
  if (doc.version != 1 && doc.version != 2)
    fail("unsupported version: " + std::to_string(doc.version));
  std::string out;
  out.reserve(256 + doc.nodes.size() * 48);
  out += "webnn_graph ";
  append_text_string(out, doc.name ? *doc.name : "graph");
  out += " v" + std::to_string(doc.version);
  if (doc.quantized || force_quantized) out += " @quantized";
  out += " {\n";
  if (!doc.inputs.empty()) {
    out += "  inputs {\n";
    for (const auto& [name, in] : doc.inputs) {
      check_name(name, "input name");
      out += "    " + name + ": ";
      out += text_dtype_name(in.dataType);
      append_dims(out, in.shape);
      out += ";\n";
    }
    out += "  }\n\n";
  }
  if (!doc.consts.empty()) {
    out += "  consts {\n";
    for (const auto& [name, k] : doc.consts) {
      check_name(name, "constant name");
      out += "    " + name + ": ";
      out += text_dtype_name(k.dataType);
      out += '[';
      for (size_t i = 0; i < k.shape.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(k.shape[i]);
      }
      out += "] ";
      switch (k.init.kind) {
        case DocInit::Kind::kWeights:
          out += "@weights(";
          append_text_string(out, k.init.ref);
          out += ')';
          break;
        case DocInit::Kind::kScalar:
          if (!k.init.value.is_number())
            fail("constant '" + name + "': a non-numeric scalar cannot be written as text");
          out += "@scalar(";
          append_number(out, k.init.value);
          out += ')';
          break;
        case DocInit::Kind::kInlineBytes:
          out += "@bytes([";
          for (size_t i = 0; i < k.init.bytes.size(); ++i) {
            if (i) out += ", ";
            out += std::to_string(k.init.bytes[i]);
          }
          out += "])";
          break;
      }
      out += ";\n";
    }
    out += "  }\n\n";
  }
  if (!doc.nodes.empty()) {
    out += "  nodes {\n";
    for (const DocNode& n : doc.nodes) append_node(out, n, warnings);
    out += "  }\n\n";
  }
  if (doc.outputs.empty()) {
    out += "  outputs {}\n";
  } else {
    out += "  outputs {";
    for (const auto& [name, ref] : doc.outputs) {
      check_name(name, "output name");
      if (ref != name)
        fail("output '" + name + "' references '" + ref +
             "': text cannot express output aliases (§5.3)");
      out += ' ' + name + ';';
    }
    out += " }\n";
  }
  out += "}\n";
  return out;
}

}  // namespace

Result<std::string> print_webnn_text(const GraphDoc& doc, bool force_quantized,
                                     Warnings* warnings) {
  try {
    return print(doc, force_quantized, warnings);
  } catch (const PrintError& e) {
    return data_error(e.message);
  }
}

}  // namespace cppnn::formats
