// The streaming GraphJson reader (webnn-graph-format.md §4.1, src/formats/graph_json_parser.cpp
// and json_reader.h): UTF-8 and \u escape rules, JSON paths of errors deep inside large arrays,
// the order in which errors are reported, nesting and number rules, and memory on large inline
// data.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

#include "src/formats/graph_json.h"
#include "src/formats/json_reader.h"
#include "tests/formats/formats_test_util.h"

namespace cppnn::formats {
namespace {

using testing::error_of;

std::string json_error(std::string_view json) {
  Result<GraphDoc> r = parse_graph_json(json, "g.json");
  EXPECT_FALSE(r) << json;
  return error_of(r);
}
GraphDoc json_ok(std::string_view json) {
  Result<GraphDoc> r = parse_graph_json(json, "g.json");
  EXPECT_TRUE(r) << error_of(r);
  return r ? std::move(*r) : GraphDoc{};
}

// A graph with `name` as its name (a JSON string literal body, raw).
std::string with_name(std::string_view name) {
  return "{\"format\": \"webnn-graph-json\", \"version\": 1, \"name\": \"" + std::string(name) +
         "\", \"inputs\": {}, \"nodes\": [], \"outputs\": {}}";
}
// Where the name string of with_name starts (the 1-based column of its first byte, line 1).
const int kNameColumn = static_cast<int>(with_name("").find("\"name\": \"") + 10);

TEST(FormatsJsonStream, ValidUtf8IsKept) {
  EXPECT_EQ(
      *json_ok(with_name("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBF\xF4\x8F\xBF\xBF")).name,
      "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBF\xF4\x8F\xBF\xBF");
  // Long ASCII runs with a multi-byte character at every offset of the 8-byte scan.
  for (size_t pad = 0; pad < 12; ++pad) {
    const std::string s = std::string(pad, 'a') + "\xE2\x82\xAC" + std::string(pad, 'b');
    EXPECT_EQ(*json_ok(with_name(s)).name, s);
  }
}

TEST(FormatsJsonStream, InvalidUtf8IsAnErrorWithLineAndColumn) {
  struct Case {
    const char* bytes;
    int offset;  // of the bad sequence inside the string
    const char* what;
  };
  const Case cases[] = {
      {"\x80", 0, "unexpected continuation byte"},
      {"ab\xBF", 2, "unexpected continuation byte"},
      {"\xC0\x80", 0, "overlong encoding"},
      {"\xC1\xBF", 0, "overlong encoding"},
      {"x\xE0\x80\x80", 1, "overlong encoding"},
      {"\xE0\x9F\xBF", 0, "overlong encoding"},
      {"\xF0\x80\x80\x80", 0, "overlong encoding"},
      {"\xF0\x8F\xBF\xBF", 0, "overlong encoding"},
      {"\xED\xA0\x80", 0, "encoded surrogate"},
      {"\xED\xBF\xBF", 0, "encoded surrogate"},
      {"\xF4\x90\x80\x80", 0, "code point above U+10FFFF"},
      {"\xF5\x80\x80\x80", 0, "invalid byte"},
      {"\xFF", 0, "invalid byte"},
      {"\xC3", 0, "truncated sequence"},
      {"abc\xE2\x82", 3, "truncated sequence"},
      {"\xF0\x9F\x98", 0, "truncated sequence"},
      {"\xC3"
       "a",
       0, "truncated sequence"},
      {"\xE2\x82"
       "a",
       0, "truncated sequence"},
      {"0123456789\xC3\x28", 10, "truncated sequence"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(json_error(with_name(c.bytes)),
              "JSON error: g.json:1:" + std::to_string(kNameColumn + c.offset) +
                  ": invalid UTF-8 in a string (" + c.what + ")")
        << c.what;
  }
  // In a key, on a later line.
  EXPECT_EQ(json_error("{\"format\": \"webnn-graph-json\",\n  \"ab\xC0\xAF\": 1}"),
            "JSON error: g.json:2:6: invalid UTF-8 in a string (overlong encoding)");
  // The generic reader applies the same rules.
  EXPECT_EQ(error_of(read_json("[\"\xED\xA0\x80\"]", "v.json")),
            "JSON error: v.json:1:3: invalid UTF-8 in a string (encoded surrogate)");
}

TEST(FormatsJsonStream, UnicodeEscapes) {
  EXPECT_EQ(*json_ok(with_name("\\u0041\\u00e9\\u20AC\\ud83d\\ude00\\uDBFF\\uDFFF")).name,
            "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
  // Escapes mixed with raw UTF-8 and plain runs.
  EXPECT_EQ(*json_ok(with_name("\xC3\xA9-\\n-\xF0\x9F\x98\x80-\\\"")).name,
            "\xC3\xA9-\n-\xF0\x9F\x98\x80-\"");
  // Lone surrogates: at the escape that starts them.
  EXPECT_EQ(json_error(with_name("ab\\ud83d")),
            "JSON error: g.json:1:" + std::to_string(kNameColumn + 2) +
                ": unpaired surrogate in \\u escape");
  EXPECT_EQ(
      json_error(with_name("\\ude00")),
      "JSON error: g.json:1:" + std::to_string(kNameColumn) + ": unpaired surrogate in \\u escape");
  EXPECT_EQ(
      json_error(with_name("\\ud83d\\u0041")),
      "JSON error: g.json:1:" + std::to_string(kNameColumn) + ": unpaired surrogate in \\u escape");
  EXPECT_EQ(
      json_error(with_name("\\ud83dx")),
      "JSON error: g.json:1:" + std::to_string(kNameColumn) + ": unpaired surrogate in \\u escape");
  EXPECT_NE(json_error(with_name("\\u12")).find("bad \\u escape"), std::string::npos);
  EXPECT_NE(json_error(with_name("\\x")).find("bad escape in a string"), std::string::npos);
  // A decoded NUL is a valid JSON string, but no graph string may hold one (doc_strings.h): the
  // error names the node and the option.
  const std::string e = json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
      "nodes": [{"id": "y", "op": "relu", "inputs": [], "options": {"label": "a\u0000b"}}],
      "outputs": {}})");
  EXPECT_NE(e.find("nodes[0]: option label string 'a\\x00b' contains a NUL byte"),
            std::string::npos)
      << e;
}

// A graph whose constant "w" has `n` inline bytes (i % 256), one per line like the canonical
// printer writes them, with `bad` (raw JSON) at index `bad_at`.
std::string inline_bytes_graph(size_t n, size_t bad_at, std::string_view bad) {
  std::string s =
      "{\n  \"format\": \"webnn-graph-json\",\n  \"version\": 1,\n  \"inputs\": {},\n"
      "  \"consts\": {\n    \"w\": {\n      \"dataType\": \"uint8\",\n      \"shape\": [" +
      std::to_string(n) +
      "],\n      \"init\": {\n        \"kind\": \"inlineBytes\",\n        \"bytes\": [\n";
  for (size_t i = 0; i < n; ++i) {
    s += "          ";
    s += i == bad_at ? std::string(bad) : std::to_string(i % 256);
    s += i + 1 < n ? ",\n" : "\n";
  }
  s += "        ]\n      }\n    }\n  },\n  \"nodes\": [],\n  \"outputs\": {}\n}";
  return s;
}
// The line of element i of inline_bytes_graph.
size_t element_line(size_t i) {
  return 12 + i;
}

TEST(FormatsJsonStream, ErrorsDeepInLargeArraysNameTheExactPath) {
  constexpr size_t kN = 200000;
  const GraphDoc d = json_ok(inline_bytes_graph(kN, kN, ""));
  ASSERT_EQ(d.consts.at("w").init.bytes.size(), kN);
  EXPECT_EQ(d.consts.at("w").init.bytes[kN - 1], (kN - 1) % 256);
  EXPECT_EQ(json_error(inline_bytes_graph(kN, 199998, "256")),
            "JSON error: g.json: consts.w.init.bytes[199998]: is out of range for a byte (0 to "
            "255)");
  EXPECT_EQ(json_error(inline_bytes_graph(kN, 123457, "-1")),
            "JSON error: g.json: consts.w.init.bytes[123457]: is out of range for a byte (0 to "
            "255)");
  EXPECT_EQ(json_error(inline_bytes_graph(kN, 7, "1.0")),
            "JSON error: g.json: consts.w.init.bytes[7]: must be a byte (0 to 255), got a float");
  EXPECT_EQ(json_error(inline_bytes_graph(kN, 150000, "\"7\"")),
            "JSON error: g.json: consts.w.init.bytes[150000]: must be a byte (0 to 255), got a "
            "string");
  // A syntax error deep inside the array: line and column, exactly.
  EXPECT_EQ(
      json_error(inline_bytes_graph(kN, 187654, "1x")),
      "JSON error: g.json:" + std::to_string(element_line(187654)) + ":12: expected ',' or ']'");
  EXPECT_EQ(
      json_error(inline_bytes_graph(kN, 99999, "01")),
      "JSON error: g.json:" + std::to_string(element_line(99999)) + ":12: expected ',' or ']'");
  EXPECT_EQ(json_error(inline_bytes_graph(kN, 5, "")),
            "JSON error: g.json:" + std::to_string(element_line(5)) + ":11: expected a value");
  // ... and it wins over a schema error before it.
  std::string both = inline_bytes_graph(kN, 10, "300");
  both.insert(both.find("          20,\n") + 10, "?");
  EXPECT_EQ(json_error(both),
            "JSON error: g.json:" + std::to_string(element_line(20)) + ":11: expected a value");

  // Paths through nodes, inputs and dimensions.
  std::string nodes = R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes": [)";
  for (int i = 0; i < 1000; ++i)
    nodes += R"({"id": "n)" + std::to_string(i) + R"(", "op": "relu", "inputs": ["a", "b"]},)";
  nodes += R"({"id": "x", "op": "relu", "inputs": ["a", 3]}], "outputs": {}})";
  EXPECT_EQ(json_error(nodes),
            "JSON error: g.json: nodes[1000].inputs[1]: must be a string, got an integer");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 2, "inputs": {"in.put": {
      "dataType": "float32", "shape": [1, {"name": "b", "maxSize": -4}]}}, "nodes": [],
      "outputs": {}})"),
            "JSON error: g.json: inputs.in.put.shape[1].maxSize: is out of range for an unsigned "
            "32-bit integer");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
      "consts": {"k": {"dataType": "float32", "shape": [2, {"name": "b", "maxSize": 2}],
      "init": {"kind": "weights", "ref": "k"}}}, "nodes": [], "outputs": {}})"),
            "JSON error: g.json: consts.k.shape[1]: constant shapes must be static");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes": [
      {"id": "a", "op": "relu", "inputs": [], "outputs": ["a", null]}], "outputs": {}})"),
            "JSON error: g.json: nodes[0].outputs[1]: must be a string, got null");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes": [
      {"id": "a", "op": "relu"}], "outputs": {}})"),
            "JSON error: g.json: nodes[0]: missing field 'inputs'");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
      "consts": {"k": {"dataType": "float32", "shape": [], "init": {"kind": "inline"}}},
      "nodes": [], "outputs": {}})"),
            "JSON error: g.json: consts.k.init.kind: unknown initializer kind \"inline\" "
            "(expected weights, scalar or inlineBytes)");
}

// Errors come out in the order of a reader that checks the syntax of the whole text first and
// then the fields in schema order, whatever the order of the text.
TEST(FormatsJsonStream, ErrorOrderDoesNotDependOnFieldOrder) {
  // nodes (bad) before version (bad): version is reported.
  EXPECT_EQ(json_error(R"({"nodes": [{"id": 1}], "outputs": {}, "inputs": {},
      "version": -1, "format": "webnn-graph-json"})"),
            "JSON error: g.json: version: is out of range for an unsigned 32-bit integer");
  // A missing field before a bad later one.
  EXPECT_EQ(json_error(R"({"nodes": [{"id": 1}], "outputs": {}, "inputs": {}, "version": 1})"),
            "JSON error: g.json: (root): missing field 'format'");
  // A repeated top-level field wins over every field error.
  EXPECT_EQ(json_error(R"({"format": 3, "version": 1, "inputs": {}, "nodes": [],
      "outputs": {}, "nodes": []})"),
            "JSON error: g.json: nodes: repeated top-level field");
  EXPECT_EQ(json_error(R"({"x": 1, "format": "webnn-graph-json", "x": 2, "version": 1})"),
            "JSON error: g.json: x: repeated top-level field");
  // The root kind is checked after its syntax.
  EXPECT_EQ(json_error("[1, 2]"),
            "JSON error: g.json: (root): must be a GraphJson object, got an array");
  EXPECT_EQ(json_error("[1, 2"), "JSON error: g.json:1:6: expected ',' or ']'");
  EXPECT_EQ(json_error("{} x"), "JSON error: g.json:1:4: unexpected content after the JSON value");
  // A syntax error after a schema error wins.
  EXPECT_EQ(json_error(R"({"format": 7, "version": 1, "inputs": {}, "nodes": [], "outputs": {},
      "extra": [1, 2,]})"),
            "JSON error: g.json:2:22: expected a value");
  // Inside an object: the fields in schema order, of a repeated key the last.
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes": [
      {"inputs": 5, "op": 4, "id": "a"}], "outputs": {}})"),
            "JSON error: g.json: nodes[0].op: must be a string, got an integer");
  GraphDoc d = json_ok(R"({"format": "webnn-graph-json", "version": 1, "inputs": {"x": {
      "dataType": 5, "shape": [1.5], "dataType": "int8", "shape": [3]}}, "nodes": [{"id": 1,
      "id": "a", "op": "relu", "inputs": ["x"], "options": [], "options": {"k": 1, "k": {"a": 1,
      "a": 2}}, "outputs": 3, "outputs": null}], "outputs": {"a": "a"}})");
  EXPECT_EQ(d.inputs.at("x").dataType, MLOperandDataType::kInt8);
  EXPECT_EQ(d.inputs.at("x").shape, (std::vector<DocDim>{{3, ""}}));
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes[0].id, "a");
  EXPECT_FALSE(d.nodes[0].outputs.has_value());
  ASSERT_EQ(d.nodes[0].options.size(), 1u);
  EXPECT_EQ(d.nodes[0].options[0].second, DocValue::object({{"a", DocValue::integer(2)}}));
  // The initializer's kind decides which of ref, value and bytes counts, wherever it comes.
  d = json_ok(R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "consts": {
      "k": {"init": {"bytes": [300], "value": {}, "kind": "weights", "ref": "r"},
      "dataType": "float32", "shape": [1]}}, "nodes": [], "outputs": {}})");
  EXPECT_EQ(d.consts.at("k").init.kind, DocInit::Kind::kWeights);
  EXPECT_EQ(d.consts.at("k").init.ref, "r");
  EXPECT_TRUE(d.consts.at("k").init.bytes.empty());
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "consts": {
      "k": {"init": {"bytes": [1, 300], "kind": "inlineBytes"}, "dataType": "uint8",
      "shape": [2]}}, "nodes": [], "outputs": {}})"),
            "JSON error: g.json: consts.k.init.bytes[1]: is out of range for a byte (0 to 255)");
  // The first bad entry of a map, in source order.
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
      "nodes": [], "outputs": {"b": 1, "a": 2}})"),
            "JSON error: g.json: outputs.b: must be a string, got an integer");
}

TEST(FormatsJsonStream, NestingLimit) {
  const auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(read_json(nested(257), "v.json").ok());  // depths 0 to 256
  EXPECT_EQ(error_of(read_json(nested(258), "v.json")),
            "JSON error: v.json:1:258: nesting deeper than 256 levels");
  // An unknown top-level field: its value is at depth 1.
  const auto unknown = [&](int n) {
    return R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes": [],)"
           R"( "outputs": {}, "x": )" +
           nested(n) + "}";
  };
  json_ok(unknown(256));
  EXPECT_NE(json_error(unknown(257)).find("nesting deeper than 256 levels"), std::string::npos);
  // An option value: at depth 4 (root, nodes, node, options).
  const auto option = [&](int n) {
    return R"({"format": "webnn-graph-json", "version": 1, "inputs": {}, "nodes": [{"id": "a",)"
           R"( "op": "relu", "inputs": [], "options": {"k": )" +
           nested(n) + "}}], \"outputs\": {}}";
  };
  json_ok(option(253));
  EXPECT_NE(json_error(option(254)).find("nesting deeper than 256 levels"), std::string::npos);
}

TEST(FormatsJsonStream, NumberClasses) {
  const GraphDoc d = json_ok(R"({"format": "webnn-graph-json", "version": 1, "inputs": {},
      "nodes": [{"id": "a", "op": "relu", "inputs": [], "options": {"v": [0, -0, 7, -7,
      123456789012345678, 9223372036854775807, 9223372036854775808, 18446744073709551615,
      18446744073709551616, -9223372036854775808, -9223372036854775809, 1.5, 1e2, -2.5E-3,
      1e-400, 0.0]}}], "outputs": {}})");
  ASSERT_EQ(d.nodes.size(), 1u);
  const DocValue::Array& v = d.nodes[0].options.at(0).second.items;
  ASSERT_EQ(v.size(), 16u);
  EXPECT_EQ(v[0], DocValue::integer(0));
  EXPECT_EQ(v[1], DocValue::integer(0));
  EXPECT_EQ(v[2], DocValue::integer(7));
  EXPECT_EQ(v[3], DocValue::integer(-7));
  EXPECT_EQ(v[4], DocValue::integer(123456789012345678));
  EXPECT_EQ(v[5], DocValue::integer(INT64_MAX));
  EXPECT_EQ(v[6], DocValue::unsigned_integer(9223372036854775808u));
  EXPECT_EQ(v[7], DocValue::unsigned_integer(UINT64_MAX));
  EXPECT_EQ(v[8], DocValue::floating(18446744073709551616.0));
  EXPECT_EQ(v[9], DocValue::integer(INT64_MIN));
  EXPECT_EQ(v[10], DocValue::floating(-9223372036854775809.0));
  EXPECT_EQ(v[11], DocValue::floating(1.5));
  EXPECT_EQ(v[12], DocValue::floating(100.0));
  EXPECT_EQ(v[13], DocValue::floating(-2.5e-3));
  EXPECT_EQ(v[14], DocValue::floating(0.0));
  EXPECT_EQ(v[15], DocValue::floating(0.0));
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 1, "x": [1e999]})"),
            "JSON error: g.json:1:52: non-finite number: 1e999");
  EXPECT_EQ(json_error(R"({"format": "webnn-graph-json", "version": 4294967296})"),
            "JSON error: g.json: version: is out of range for an unsigned 32-bit integer");
  EXPECT_EQ(json_error(R"({"version": 1.})"),
            "JSON error: g.json:1:15: expected a digit after '.'");
  EXPECT_EQ(json_error(R"({"version": -})"), "JSON error: g.json:1:14: expected a digit");
  EXPECT_EQ(json_error(R"({"version": 1e+})"),
            "JSON error: g.json:1:16: expected a digit in the exponent");
}

// Inline data costs its bytes, not a JSON value per element: loading 64 MB of inline bytes
// raises the peak RSS by less than the size of the file.
TEST(FormatsJsonStream, InlineBytesMemoryStaysNearTheFileSize) {
  constexpr size_t kElements = 16u << 20;  // "255," each: 64 MiB of text
  const std::string head =
      R"({"format":"webnn-graph-json","version":1,"inputs":{},"consts":{"w":{"dataType":)"
      R"("uint8","shape":[)" +
      std::to_string(kElements) + R"(],"init":{"kind":"inlineBytes","bytes":[)";
  const std::string tail = R"(]}}},"nodes":[],"outputs":{}})";
  std::string json;
  json.reserve(head.size() + 4 * kElements + tail.size());
  json += head;
  for (size_t i = 0; i < kElements; ++i) json += i + 1 < kElements ? "255," : "255";
  json += tail;
  rusage before{}, after{};
  ASSERT_EQ(getrusage(RUSAGE_SELF, &before), 0);
  {
    Result<GraphDoc> d = parse_graph_json(json, "big.json");
    ASSERT_TRUE(d) << error_of(d);
    ASSERT_EQ(d->consts.at("w").init.bytes.size(), kElements);
    EXPECT_EQ(d->consts.at("w").init.bytes.back(), 255);
  }
  ASSERT_EQ(getrusage(RUSAGE_SELF, &after), 0);
  const double grown = static_cast<double>(after.ru_maxrss - before.ru_maxrss) * 1024.0;
  EXPECT_LT(grown, static_cast<double>(json.size()))
      << "peak RSS grew by " << grown / 1048576.0 << " MiB loading " << json.size() / 1048576.0
      << " MiB of JSON";
}

}  // namespace
}  // namespace cppnn::formats
