// `cppnn emit-js`'s module text (webnn-graph-format.md §9, emit.h): the fixed WeightsFile class
// (tools/cppnn/emit_js_weights_file.js, embedded at build time), an empty line, then buildGraph:
// inputs, constants, nodes and outputs, each section in the reference's order and spelling.
#include <algorithm>
#include <cstdint>
#include <string>

#include "cppnn/op_type.h"
#include "src/formats/graph_io.h"
#include "src/formats/graph_json.h"
#include "src/formats/graph_validate.h"
#include "src/formats/op_params.h"
#include "src/formats/webnn_text.h"
#include "tools/cppnn/emit.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {
namespace {

using formats::DocConst;
using formats::DocInit;
using formats::DocInput;
using formats::DocNode;
using formats::DocValue;

// The class part, verbatim (NUL-terminated by the embedding).
constexpr char kWeightsFileClass[] = {
#include "emit_js_weights_file.js.inc"
};

// The largest integer a JavaScript number holds exactly (Number.MAX_SAFE_INTEGER).
constexpr uint64_t kMaxSafeInteger = (uint64_t{1} << 53) - 1;

// A JavaScript double-quoted string literal (JSON escapes are valid JavaScript).
std::string js_literal(std::string_view s) {
  std::string out;
  formats::append_json_string(out, s);
  return out;
}

// A value as a JavaScript expression: compact JSON with sorted keys, except integers a double
// cannot hold (BigInt literals, `5n`) and the key `__proto__` (computed, so it stays a key).
void append_js_value(std::string& out, const DocValue& v) {
  switch (v.kind) {
    case DocValue::Kind::kInt: {
      const uint64_t magnitude = v.i < 0 ? uint64_t(0) - uint64_t(v.i) : uint64_t(v.i);
      formats::append_number(out, v);
      if (magnitude > kMaxSafeInteger) out += 'n';
      return;
    }
    case DocValue::Kind::kUint:
      formats::append_number(out, v);
      out += 'n';
      return;
    case DocValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        append_js_value(out, v.items[i]);
      }
      out += ']';
      return;
    case DocValue::Kind::kObject: {
      DocValue sorted = v;
      std::sort(sorted.members.begin(), sorted.members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      for (size_t i = 0; i < sorted.members.size(); ++i) {
        if (i) out += ',';
        const auto& [key, value] = sorted.members[i];
        out += key == "__proto__" ? "[\"__proto__\"]" : js_literal(key);
        out += ':';
        append_js_value(out, value);
      }
      out += '}';
      return;
    }
    default:
      formats::append_compact_json(out, v, true);
  }
}

std::string js_value(const DocValue& v) {
  std::string out;
  append_js_value(out, v);
  return out;
}

std::string env_get(const std::string& name) {
  return "env.get(" + js_literal(name) + ")";
}

// `[1, 10]`, a dynamic dimension as `{ name: "batch", maxSize: 8 }`.
std::string input_shape(const DocInput& in) {
  std::string out = "[";
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (i) out += ", ";
    const formats::DocDim& d = in.shape[i];
    out += d.is_dynamic()
               ? "{ name: " + js_literal(d.name) + ", maxSize: " + std::to_string(d.size) + " }"
               : std::to_string(d.size);
  }
  return out + "]";
}

std::string static_shape(const std::vector<uint32_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// `{ dataType: "float32", shape: [2, 2] }`.
std::string descriptor(MLOperandDataType type, const std::string& shape) {
  return "{ dataType: " + js_literal(data_type_name(type)) + ", shape: " + shape + " }";
}

void emit_const(std::string& out, const std::string& name, const DocConst& k) {
  const std::string desc = descriptor(k.dataType, static_shape(k.shape));
  switch (k.init.kind) {
    case DocInit::Kind::kWeights:
      out += "  {\n    const sl = weights.getSlice(" + js_literal(k.init.ref) + ");\n";
      out +=
          "    const buf = weights.buffer.slice(sl.byteOffset, sl.byteOffset + sl.byteLength);\n";
      out += "    env.set(" + js_literal(name) + ", builder.constant(" + desc + ", buf));\n  }\n";
      return;
    case DocInit::Kind::kScalar: {
      // cppnn: the scalar fills the declared shape (the reference ignores the shape).
      std::string value = "builder.constant(" + js_literal(data_type_name(k.dataType)) + ", " +
                          js_value(k.init.value) + ")";
      if (!k.shape.empty()) value = "builder.expand(" + value + ", " + static_shape(k.shape) + ")";
      out += "  env.set(" + js_literal(name) + ", " + value + ");\n";
      return;
    }
    case DocInit::Kind::kInlineBytes: {
      std::string bytes;
      for (size_t i = 0; i < k.init.bytes.size(); ++i)
        bytes += (i ? ", " : "") + std::to_string(k.init.bytes[i]);
      out += "  env.set(" + js_literal(name) + ", builder.constant(" + desc + ", new Uint8Array([" +
             bytes + "]).buffer));\n";
      return;
    }
  }
}

// The arguments of a node's builder call: positional operands, positional parameters (from the
// options named like them), then the options dictionary with operand options resolved.
std::string call_arguments(const DocNode& n, formats::Warnings* warnings) {
  std::vector<std::string> args;
  OpType type;
  if (!op_from_name(n.op, type)) {  // the reference's form: every input, then the options
    if (warnings)
      warnings->push_back("node '" + n.id + "': unknown op '" + n.op + "', emitted as builder[\"" +
                          n.op + "\"](...)");
    for (const std::string& in : n.inputs) args.push_back(env_get(in));
    args.push_back(js_value(DocValue::object(n.options)));
  } else {
    if (formats::positional_operand_count(type) < 0) {
      std::string list = "[";
      for (size_t i = 0; i < n.inputs.size(); ++i) list += (i ? ", " : "") + env_get(n.inputs[i]);
      args.push_back(list + "]");
    } else {
      for (const std::string& in : n.inputs) args.push_back(env_get(in));
    }
    const auto params = formats::positional_param_names(type);
    const auto operand_options = formats::operand_option_names(type);
    for (std::string_view p : params) {
      const DocValue* v = formats::find_member(n.options, p);
      std::string text = v ? js_value(*v) : "undefined";
      if (type == OpType::kCast && v && v->kind == DocValue::Kind::kString)
        if (auto t = formats::parse_text_dtype(v->s)) text = js_literal(data_type_name(*t));
      args.push_back(text);
    }
    DocValue::Object rest;
    for (const auto& m : n.options)
      if (std::find(params.begin(), params.end(), m.first) == params.end()) rest.push_back(m);
    std::sort(rest.begin(), rest.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string options = "{";
    for (size_t i = 0; i < rest.size(); ++i) {
      const auto& [key, value] = rest[i];
      const bool operand =
          value.kind == DocValue::Kind::kString &&
          std::find(operand_options.begin(), operand_options.end(), key) != operand_options.end();
      options += (i ? "," : "") + (key == "__proto__" ? "[\"__proto__\"]" : js_literal(key)) + ":" +
                 (operand ? env_get(value.s) : js_value(value));
    }
    args.push_back(options + "}");
  }
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
  return out;
}

void emit_node(std::string& out, const DocNode& n, formats::Warnings* warnings) {
  if (n.op.empty() && n.inputs.size() == 1) {  // the alias `y = x;`
    out += "  env.set(" + js_literal(n.id) + ", " + env_get(n.inputs[0]) + ");\n";
    return;
  }
  const std::string call = "builder[" + js_literal(n.op) + "](" + call_arguments(n, warnings) + ")";
  if (!n.outputs) {
    out += "  env.set(" + js_literal(n.id) + ", " + call + ");\n";
    return;
  }
  out += "  {\n    const tmp = " + call + ";\n";
  const std::vector<std::string>& names = *n.outputs;
  for (size_t i = 0; i < names.size(); ++i)
    out += "    env.set(" + js_literal(names[i]) + ", " +
           // `[w] = identity(z)`: a single-output op returns an operand, not an array.
           (names.size() == 1 ? std::string("Array.isArray(tmp) ? tmp[0] : tmp")
                              : "tmp[" + std::to_string(i) + "]") +
           ");\n";
  out += "  }\n";
}

// `s` safe inside a /** */ comment.
std::string comment_safe(std::string s) {
  for (size_t at = s.find("*/"); at != std::string::npos; at = s.find("*/", at))
    s.replace(at, 2, "*\\/");
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

Result<formats::GraphDoc> load_emit_doc(std::string_view content, const std::string& file,
                                        formats::Warnings* warnings) {
  auto doc = formats::read_graph_doc(content, file, warnings);
  if (!doc) return in_file(doc.error(), file);
  if (Status s = formats::validate_graph_doc(*doc); !s) return in_file(s.error(), file);
  return doc;
}

std::string emit_js_module(const formats::GraphDoc& doc, formats::Warnings* warnings) {
  std::string out(kWeightsFileClass, sizeof kWeightsFileClass - 1);
  out += "\n";
  out += "/**\n * Builds the graph";
  if (doc.name && !doc.name->empty()) out += " " + comment_safe(js_literal(*doc.name));
  out += " (webnn-graph v" + std::to_string(doc.version) +
         ") with the WebNN API.\n"
         " * @param {MLContext} context  the context to build it for\n"
         " * @param {WeightsFile} weights  the tensors of its @weights constants "
         "(WeightsFile.load)\n"
         " * @returns {Promise<MLGraph>}\n */\n";
  out += "export async function buildGraph(context, weights) {\n";
  out += "  const builder = new MLGraphBuilder(context);\n  const env = new Map();\n";
  if (!doc.inputs.empty()) out += "\n";
  for (const auto& [name, in] : doc.inputs)
    out += "  env.set(" + js_literal(name) + ", builder.input(" + js_literal(name) + ", " +
           descriptor(in.dataType, input_shape(in)) + "));\n";
  if (!doc.consts.empty()) out += "\n";
  for (const auto& [name, k] : doc.consts) emit_const(out, name, k);
  if (!doc.nodes.empty()) out += "\n";
  for (const DocNode& n : doc.nodes) emit_node(out, n, warnings);
  out += "\n  const outputs = {};\n";
  for (const auto& [name, ref] : doc.outputs)
    out += "  outputs[" + js_literal(name) + "] = " + env_get(ref) + ";\n";
  out += "  return await builder.build(outputs);\n}\n";
  return out;
}

}  // namespace cppnn::tool
