// GraphJson reading/printing (webnn-graph-format.md §4), structural validation (§6.1) and the
// JSON/validation rows of the §10 edge-case table (each test names its row).
#include <gtest/gtest.h>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "src/formats/graph_validate.h"
#include "tests/formats/formats_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;
using testing::parse_ok;

GraphDoc json_ok(std::string_view json) {
  Result<GraphDoc> r = parse_graph_json(json, "g.json");
  EXPECT_TRUE(r) << error_of(r);
  return r ? std::move(*r) : GraphDoc{};
}
std::string json_error(std::string_view json) {
  Result<GraphDoc> r = parse_graph_json(json, "g.json");
  EXPECT_FALSE(r) << json;
  return error_of(r);
}

const char kMinimal[] =
    R"({"format": "webnn-graph-json", "version": 1, "inputs": {"x": {"dataType": "float32",
    "shape": [2]}}, "nodes": [{"id": "y", "op": "relu", "inputs": ["x"]}],
    "outputs": {"y": "y"}})";

std::string validate_error(const GraphDoc& d) {
  Status s = validate_graph_doc(d);
  return s ? std::string() : s.error().message;
}

// Row 18: bad format or version.
TEST(FormatsJson, Row18UnsupportedFormatOrVersion) {
  GraphDoc d = json_ok(kMinimal);
  EXPECT_EQ(validate_error(d), "");
  d.format = "x";
  d.version = 3;
  EXPECT_EQ(validate_error(d), "unsupported format/version: x v3");
  d = json_ok(R"({"format": "webnn-graph-json", "version": 3, "inputs": {}, "nodes": [],
                 "outputs": {"a": "a"}})");
  EXPECT_EQ(validate_error(d), "unsupported format/version: webnn-graph-json v3");
}

// Row 19: empty outputs.
TEST(FormatsJson, Row19EmptyOutputs) {
  GraphDoc d = json_ok(kMinimal);
  d.outputs.clear();
  EXPECT_EQ(validate_error(d), "outputs must be non-empty");
}

// Row 20: a duplicate node id.
TEST(FormatsJson, Row20DuplicateNodeId) {
  GraphDoc d = parse_ok(
      "webnn_graph \"g\" v1 { inputs { x: f32[2]; } nodes { y = relu(x); y = relu(x); } "
      "outputs { y; } }");
  EXPECT_EQ(validate_error(d), "duplicate node id: y");
}

// Row 21: forward, self and undefined references.
TEST(FormatsJson, Row21UnknownReference) {
  GraphDoc d = parse_ok(
      "webnn_graph \"g\" v1 { inputs { x: f32[2]; } nodes { y = relu(z); z = relu(x); } "
      "outputs { y; } }");
  EXPECT_EQ(validate_error(d), "unknown reference 'z' used in node 'y'");
  d = parse_ok("webnn_graph \"g\" v1 { nodes { y = relu(y); } outputs { y; } }");
  EXPECT_EQ(validate_error(d), "unknown reference 'y' used in node 'y'");
  // Multi-output names become known; consts count.
  d = parse_ok(
      "webnn_graph \"g\" v1 { consts { k: f32[4]; } nodes { [a, b] = split(k, splits=2); "
      "c = add(a, b); } outputs { c; } }");
  EXPECT_EQ(validate_error(d), "");
}

// Row 22: an output naming a missing value.
TEST(FormatsJson, Row22OutputReferencesUnknownValue) {
  GraphDoc d = json_ok(kMinimal);
  d.outputs["o"] = "nope";
  EXPECT_EQ(validate_error(d), "output 'o' references unknown value 'nope'");
}

// Row 23: JSON errors name the field.
TEST(FormatsJson, Row23JsonErrorsNameTheField) {
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
                           "outputs": {}})"),
            "JSON error: g.json: (root): missing field 'nodes'");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {"x":
                           {"dataType": "bfloat16", "shape": []}}, "nodes": [], "outputs": {}})")
                .rfind("JSON error: g.json: inputs.x.dataType: unknown data type \"bfloat16\"", 0),
            0u);
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
      "consts": {"q": {"dataType": "uint8", "shape": [1], "init": {"kind": "inlineBytes",
      "bytes": [300]}}}, "nodes": [], "outputs": {}})"),
            "JSON error: g.json: consts.q.init.bytes[0]: is out of range for a byte (0 to 255)");
  EXPECT_NE(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {"x":
                           {"dataType": "float32", "shape": [-1]}}, "nodes": [], "outputs": {}})")
                .find("inputs.x.shape[0]"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {"x":
                           {"dataType": "float32", "shape": [1.5]}}, "nodes": [], "outputs": {}})")
                .find("inputs.x.shape[0]: must be an unsigned 32-bit integer"),
            std::string::npos);
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes":
      [{"id": "a", "op": "relu", "inputs": ["x"]}, {"id": "b", "op": "relu", "inputs": ["x"],
      "options": [1]}], "outputs": {}})"),
            "JSON error: g.json: nodes[1].options: must be an object, got an array");
  // Syntax errors give line and column.
  EXPECT_EQ(json_error("{\n  \"format\": tru\n}"), "JSON error: g.json:2:13: expected a value");
  // A repeated top-level field is an error; a repeated map key keeps the last value.
  EXPECT_NE(json_error(R"({"format": "webnn-graph-json", "format": "webnn-graph-json",
      "version": 1, "inputs": {}, "nodes": [], "outputs": {}})")
                .find("format: repeated top-level field"),
            std::string::npos);
  GraphDoc d = json_ok(R"({"format": "webnn-graph-json", "version": 1, "inputs": {
      "x": {"dataType": "float32", "shape": [1]}, "x": {"dataType": "int8", "shape": [2]}},
      "nodes": [], "outputs": {"o": "x", "o": "y"}, "unknown": {"ignored": true}})");
  EXPECT_EQ(d.inputs.at("x").dataType, MLOperandDataType::kInt8);
  EXPECT_EQ(d.outputs.at("o"), "y");
  EXPECT_FALSE(d.name.has_value());
}

// Row 24: an output alias cannot be written as text.
TEST(FormatsJson, Row24OutputAliasIsRejectedBySerialize) {
  const char json[] = R"({"format": "webnn-graph-json", "version": 1, "inputs": {"x":
      {"dataType": "float32", "shape": [2]}}, "nodes": [{"id": "n1", "op": "relu",
      "inputs": ["x"]}], "outputs": {"out": "n1"}})";
  try {
    graph_json_to_webnn_text(json);
    FAIL() << "serialized an output alias";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("output 'out' references 'n1'"), std::string::npos);
  }
}

// §4.2: the canonical pretty JSON, exactly.
TEST(FormatsJson, CanonicalJsonLayout) {
  GraphDoc d = parse_ok(
      "webnn_graph \"g\" v2 { inputs { x: f32[dyn(\"b\", 2)]; } consts { k: u8[1] "
      "@bytes([7]); e: f32[0] @bytes([]); } nodes { [y] = split(x, splits=1, o={}, "
      "l=[]); } outputs { y; } }");
  EXPECT_EQ(print_graph_json(d),
            R"({
  "format": "webnn-graph-json",
  "version": 2,
  "name": "g",
  "quantized": false,
  "inputs": {
    "x": {
      "dataType": "float32",
      "shape": [
        {
          "name": "b",
          "maxSize": 2
        }
      ]
    }
  },
  "consts": {
    "e": {
      "dataType": "float32",
      "shape": [
        0
      ],
      "init": {
        "kind": "inlineBytes",
        "bytes": []
      }
    },
    "k": {
      "dataType": "uint8",
      "shape": [
        1
      ],
      "init": {
        "kind": "inlineBytes",
        "bytes": [
          7
        ]
      }
    }
  },
  "nodes": [
    {
      "id": "y",
      "op": "split",
      "inputs": [
        "x"
      ],
      "options": {
        "l": [],
        "o": {},
        "splits": 1
      },
      "outputs": [
        "y"
      ]
    }
  ],
  "outputs": {
    "y": "y"
  }
})");
  // JSON -> doc -> JSON is byte-identical.
  const std::string j = print_graph_json(d);
  EXPECT_EQ(print_graph_json(json_ok(j)), j);
}

// §4.2: strings use JSON escapes; non-ASCII stays raw; \u escapes decode to UTF-8.
TEST(FormatsJson, StringEscapes) {
  GraphDoc d = json_ok(R"({"format": "webnn-graph-json", "version": 1, "name":
      "a\"b\\c\nd\u0001\u00e9\ud83d\ude00", "inputs": {}, "nodes": [], "outputs": {}})");
  EXPECT_EQ(*d.name, "a\"b\\c\nd\x01\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_NE(print_graph_json(d).find(R"("name": "a\"b\\c\nd\u0001)"
                                     "\xC3\xA9\xF0\x9F\x98\x80\""),
            std::string::npos);
  json_error(R"({"name": "\ud83d"})");
  json_error("{\"name\": \"a\x01\"}");
}

}  // namespace
}  // namespace cppnn::formats
