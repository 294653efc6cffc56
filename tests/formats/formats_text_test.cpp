// The .webnn text reader and printer against webnn-graph-format.md §3, §5 and the text rows of
// the §10 edge-case table (each test names its row).
#include <gtest/gtest.h>

#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "src/formats/graph_io.h"
#include "src/formats/graph_validate.h"
#include "src/formats/text_number.h"
#include "tests/formats/formats_test_util.h"

namespace cppnn::formats {
namespace {

using testing::parse_error;
using testing::parse_ok;

// A graph with one input block around `body` lines.
std::string with_input(std::string_view decl) {
  return "webnn_graph \"g\" v1 {\n  inputs {\n    " + std::string(decl) +
         "\n  }\n  nodes { y = relu(x); }\n  outputs { y; }\n}\n";
}
std::string with_nodes(std::string_view nodes) {
  return "webnn_graph \"g\" v1 {\n  inputs { x: f32[2]; b: f32[2]; }\n  nodes {\n    " +
         std::string(nodes) + "\n  }\n  outputs { y; }\n}\n";
}
std::string with_const(std::string_view decl) {
  return "webnn_graph \"g\" v1 {\n  consts {\n    " + std::string(decl) +
         "\n  }\n  outputs { k; }\n}\n";
}

// Row 1: an unknown dtype is a parse error at the dtype (line 3, column 8).
TEST(FormatsText, Row1UnknownDtypeIsAParseErrorAtTheDtype) {
  std::string e = parse_error(with_input("x: float32[1];"));
  EXPECT_EQ(e.rfind("parse error: t.webnn:3:8: unknown data type 'float32'", 0), 0u) << e;
  e = parse_error(with_input("x: bf16[2];"));
  EXPECT_EQ(e.rfind("parse error: t.webnn:3:8: unknown data type 'bf16'", 0), 0u) << e;
}

// Row 2: negative, fractional and oversized dimensions.
TEST(FormatsText, Row2BadDimensionsAreErrors) {
  EXPECT_NE(parse_error(with_input("x: f32[-1];")).find("expected a dimension"), std::string::npos);
  EXPECT_NE(parse_error(with_input("x: f32[1.5];")).find("expected ',' or ']'"), std::string::npos);
  EXPECT_NE(parse_error(with_input("x: f32[4294967296];")).find("bad int"), std::string::npos);
  parse_ok(with_input("x: f32[4294967295];"));  // the largest u32 parses
}

// Row 3: dyn in a constant shape.
TEST(FormatsText, Row3DynInAConstShapeIsRejected) {
  EXPECT_NE(
      parse_error(with_const("k: f32[dyn(\"n\", 4)];")).find("constant shapes must be static"),
      std::string::npos);
  GraphDoc d = parse_ok(with_input("x: f32[dyn(\"n\", 4), 2];"));
  ASSERT_EQ(d.inputs.at("x").shape.size(), 2u);
  EXPECT_EQ(d.inputs.at("x").shape[0], (DocDim{4, "n"}));
}

// Row 4: a missing `;` after a statement or a declaration.
TEST(FormatsText, Row4MissingSemicolon) {
  EXPECT_NE(parse_error(with_nodes("y = relu(x)")).find("expected ';'"), std::string::npos);
  EXPECT_NE(parse_error(with_input("x: f32[2]")).find("expected ';'"), std::string::npos);
  EXPECT_NE(parse_error(with_const("k: f32[2] @weights(\"k\")")).find("';'"), std::string::npos);
}

// Row 5: trailing commas in args, shapes, arrays and objects.
TEST(FormatsText, Row5TrailingCommas) {
  parse_error(with_nodes("y = add(x, b,);"));
  parse_error(with_input("x: f32[2,];"));
  parse_error(with_nodes("y = reshape(x, newShape=[2,]);"));
  parse_error(with_nodes("y = relu(x, m={a: 1,});"));
  parse_error(with_const("k: u8[2] @bytes([1, 2,]);"));
  parse_ok(with_nodes("y = relu(x, m={a: 1, \"b\": [1, 2]});"));
}

// Row 6: the closing brace is lenient (§3.4a).
TEST(FormatsText, Row6MissingOrExtraClosingBrace) {
  GraphDoc d = parse_ok("webnn_graph \"g\" v1 { outputs { x; }");
  EXPECT_EQ(d.outputs.at("x"), "x");
  d = parse_ok("webnn_graph \"g\" v1 { outputs { x; } } } inputs { x: f32[1]; }");
  EXPECT_EQ(d.inputs.size(), 1u);
}

// Row 7: values starting with true/false/null (§3.4c), also in option values; fine elsewhere.
TEST(FormatsText, Row7LiteralPrefixedNamesAreRejectedAsValues) {
  std::string e = parse_error(with_nodes("y = relu(true_x);"));
  EXPECT_NE(e.find("true_x"), std::string::npos) << e;
  parse_error(with_nodes("y = add(x, null_mask);"));
  parse_error(with_nodes("y = add(x, nullmask);"));
  parse_error(with_nodes("y = gemm(x, b, c=false_c);"));
  GraphDoc d = parse_ok(
      "webnn_graph \"g\" v1 { inputs { true_x: f32[2]; } nodes { null_y = relu(x, "
      "false_key=1); } outputs { null_y; } }");
  EXPECT_EQ(d.nodes[0].id, "null_y");
  EXPECT_NE(find_member(d.nodes[0].options, "false_key"), nullptr);
}

// Row 8: a literal right-hand side.
TEST(FormatsText, Row8LiteralRightHandSideIsAnError) {
  EXPECT_NE(parse_error(with_nodes("y = 3;")).find("not a literal"), std::string::npos);
  parse_error(with_nodes("y = \"x\";"));
  parse_error(with_nodes("y = [x];"));
}

// Row 9: `y = x;` is an alias node (op ""); serializing it warns.
TEST(FormatsText, Row9AliasIsAcceptedAndWarnsWhenSerialized) {
  GraphDoc d = parse_ok(with_nodes("y = x;"));
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes[0].op, "");
  EXPECT_EQ(d.nodes[0].inputs, std::vector<std::string>{"x"});
  EXPECT_FALSE(d.nodes[0].outputs.has_value());
  Warnings w;
  Result<std::string> text = print_webnn_text(d, false, &w);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("    y = (x);\n"), std::string::npos);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("alias"), std::string::npos);
  // `[a] = x;` keeps its outputs list.
  d = parse_ok(with_nodes("[y] = relu(x);"));
  EXPECT_EQ(d.nodes[0].outputs, std::vector<std::string>{"y"});
}

// Row 10: a non-finite scalar.
TEST(FormatsText, Row10NonFiniteScalarIsAnError) {
  EXPECT_NE(parse_error(with_const("k: f32[] @scalar(1e999);")).find("non-finite number"),
            std::string::npos);
  GraphDoc d = parse_ok(with_const("k: f32[] @scalar(1e-999);"));  // underflow is 0
  EXPECT_EQ(d.consts.at("k").init.value, DocValue::floating(0.0));
}

// Row 11: @bytes values above 255.
TEST(FormatsText, Row11ByteOutOfRange) {
  EXPECT_NE(parse_error(with_const("k: u8[1] @bytes([256]);")).find("byte out of range"),
            std::string::npos);
  EXPECT_EQ(parse_ok(with_const("k: u8[1] @bytes([255]);")).consts.at("k").init.bytes,
            std::vector<uint8_t>{255});
}

// Row 12: @weights() and @scalar(true).
TEST(FormatsText, Row12BadAnnotationArguments) {
  parse_error(with_const("k: f32[2] @weights();"));
  parse_error(with_const("k: f32[] @scalar(true);"));
  parse_error(with_const("k: f32[] @scalar(.5);"));
  parse_error(with_const("k: f32[] @scalar(+1);"));
}

// Row 13: no annotation means @weights("<name>"); the last annotation wins.
TEST(FormatsText, Row13DefaultWeightsRef) {
  GraphDoc d = parse_ok(with_const("k: f32[2];"));
  EXPECT_EQ(d.consts.at("k").init.kind, DocInit::Kind::kWeights);
  EXPECT_EQ(d.consts.at("k").init.ref, "k");
  d = parse_ok(with_const("k: f32[] @weights(\"w\") @scalar(-2.5e3);"));
  EXPECT_EQ(d.consts.at("k").init.kind, DocInit::Kind::kScalar);
  EXPECT_EQ(d.consts.at("k").init.value, DocValue::floating(-2500.0));
}

// Row 14: a repeated input: the last wins, with a warning.
TEST(FormatsText, Row14RepeatedInputLastWinsWithWarning) {
  Warnings w;
  GraphDoc d =
      parse_ok("webnn_graph \"g\" v1 { inputs { x: f32[1]; x: i32[3]; } outputs { x; } }", &w);
  EXPECT_EQ(d.inputs.at("x").dataType, MLOperandDataType::kInt32);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("t.webnn:1:"), std::string::npos) << w[0];
}

// Row 15: a positional literal list is dropped with a warning, never made an input.
TEST(FormatsText, Row15PositionalLiteralIsDroppedWithWarning) {
  Warnings w;
  GraphDoc d = parse_ok(with_nodes("y = reshape(x, [1, 2]);"), &w);
  EXPECT_EQ(d.nodes[0].inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(w.size(), 1u);
  // Bracketed names are flattened (0.3.0+) and strings are inputs.
  d = parse_ok(with_nodes("y = concat([x, \"b\"], axis=0);"));
  EXPECT_EQ(d.nodes[0].inputs, (std::vector<std::string>{"x", "b"}));
}

// Row 16: a bare identifier option value is the string, unchecked.
TEST(FormatsText, Row16IdentifierOptionIsAString) {
  GraphDoc d = parse_ok(with_nodes("y = relu(x, bias=b, bias=zz);"));
  ASSERT_EQ(d.nodes[0].options.size(), 1u);  // a repeated key keeps the last value
  EXPECT_EQ(*find_member(d.nodes[0].options, "bias"), DocValue::string("zz"));
}

// Row 17: validate accepts a leading comment and rejects a BOM.
TEST(FormatsText, Row17LeadingCommentAcceptedBomRejected) {
  const std::string g =
      "webnn_graph \"g\" v1 { inputs { x: f32[1]; } nodes { y = relu(x); } "
      "outputs { y; } }";
  EXPECT_NO_THROW(validate_graph_file("# comment\n" + g));
  EXPECT_THROW(validate_graph_file("\xEF\xBB\xBF" + g), DataError);
  EXPECT_FALSE(detect_encoding("\xEF\xBB\xBF" + g));
  EXPECT_NE(parse_error("\xEF\xBB\xBF" + g).find("byte order mark"), std::string::npos);
}

// §3.1: strings keep every character but \" and \\; identifiers allow ONNX-style names.
TEST(FormatsText, StringsAndIdentifiers) {
  GraphDoc d = parse_ok(
      "webnn_graph \"a\\\"b\\\\c\\n\" v2 @quantized { inputs { /model/layer.0/x: f32[]; "
      "$y: f32[1]; } outputs { /model/layer.0/x } }");
  EXPECT_EQ(*d.name, "a\"b\\c\\n");
  EXPECT_EQ(d.version, 2u);
  EXPECT_TRUE(d.quantized);
  EXPECT_TRUE(d.inputs.contains("/model/layer.0/x"));
  EXPECT_TRUE(d.inputs.contains("$y"));
  parse_error("webnn_graph \"g\" v1 { inputs { a-b: f32[1]; } }");
  parse_error("webnn_graph \"g\" v1 { inputs { a$b: f32[1]; } }");
  parse_error("webnn_graph \"g\" v1 { inputs { x: f32[1]; ");  // fine so far, then EOF in block
}

// §3.3: outputs separators are optional; multi-assign takes the first name as id.
TEST(FormatsText, OutputsAndMultiAssign) {
  GraphDoc d = parse_ok(
      "webnn_graph \"g\" v1 { inputs { x: f32[4]; } nodes { [p, q] = split(x, splits=2); } "
      "outputs { p q; r, s } }");
  EXPECT_EQ(d.nodes[0].id, "p");
  EXPECT_EQ(d.nodes[0].outputs, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(d.outputs.size(), 4u);
  parse_error("webnn_graph \"g\" v1 { outputs { a,; } }");
}

// §3.3: integer/float distinction of numbers.
TEST(FormatsText, NumbersKeepIntegerOrFloat) {
  GraphDoc d = parse_ok(
      with_nodes("y = relu(x, a=1, b=1.0, c=-0, d=1e2, e=99999999999999999999, f=-1.5E-3);"));
  const auto& o = d.nodes[0].options;
  EXPECT_EQ(*find_member(o, "a"), DocValue::integer(1));
  EXPECT_EQ(*find_member(o, "b"), DocValue::floating(1.0));
  EXPECT_EQ(*find_member(o, "c"), DocValue::integer(0));
  EXPECT_EQ(*find_member(o, "d"), DocValue::floating(100.0));
  EXPECT_EQ(*find_member(o, "e"), DocValue::floating(1e20));
  EXPECT_EQ(*find_member(o, "f"), DocValue::floating(-1.5e-3));
}

// §5.2: the canonical float format.
TEST(FormatsText, CanonicalFloatFormat) {
  auto f = [](double v) {
    std::string s;
    append_float(s, v);
    return s;
  };
  EXPECT_EQ(f(2.0), "2.0");
  EXPECT_EQ(f(0.1), "0.1");
  EXPECT_EQ(f(-0.5), "-0.5");
  EXPECT_EQ(f(1e-5), "0.00001");
  EXPECT_EQ(f(1e-7), "1e-7");
  EXPECT_EQ(f(1.5e20), "1.5e20");
  EXPECT_EQ(f(1e16), "1e16");
  EXPECT_EQ(f(123456.0), "123456.0");
  EXPECT_EQ(f(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(f(0.0), "0.0");
  EXPECT_EQ(f(3.14159), "3.14159");
}

// §5.1: the exact canonical layout.
TEST(FormatsText, CanonicalLayout) {
  GraphDoc d = parse_ok(
      "webnn_graph \"m\" v2 { nodes { y = add(b, a, z=[1, 2.5, \"s\", null, true], "
      "o={k: 1, \"a\": [2]}); } consts { k: u8[2] @bytes([1, 2]); s: f32[] @scalar(0.5); } "
      "inputs { b: f32[dyn(\"n\", 3)]; a: f32[3]; } outputs { y; } }");
  Result<std::string> text = print_webnn_text(d);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text,
            "webnn_graph \"m\" v2 {\n"
            "  inputs {\n"
            "    a: f32[3];\n"
            "    b: f32[dyn(\"n\", 3)];\n"
            "  }\n\n"
            "  consts {\n"
            "    k: u8[2] @bytes([1, 2]);\n"
            "    s: f32[] @scalar(0.5);\n"
            "  }\n\n"
            "  nodes {\n"
            "    y = add(b, a, o={\"a\":[2],\"k\":1}, z=[1, 2.5, \"s\", null, true]);\n"
            "  }\n\n"
            "  outputs { y; }\n"
            "}\n");
  // Idempotent.
  EXPECT_EQ(*print_webnn_text(parse_ok(*text)), *text);
  // An empty outputs map.
  d.outputs.clear();
  EXPECT_NE(print_webnn_text(d)->find("  outputs {}\n}\n"), std::string::npos);
}

// §5.3: what text cannot express is an error, never different parseable text.
TEST(FormatsText, PrinterRejectsInexpressibleDocuments) {
  GraphDoc d = parse_ok(with_nodes("y = relu(x);"));
  GraphDoc bad = d;
  bad.inputs["a b"] = DocInput{};
  EXPECT_FALSE(print_webnn_text(bad));
  bad = d;
  bad.nodes[0].outputs = std::vector<std::string>{};
  EXPECT_FALSE(print_webnn_text(bad));
  bad = d;
  bad.nodes[0].outputs = std::vector<std::string>{"q"};
  EXPECT_FALSE(print_webnn_text(bad));
  bad = d;
  bad.consts["s"].init = DocInit{DocInit::Kind::kScalar, "", DocValue::string("x"), {}};
  EXPECT_FALSE(print_webnn_text(bad));
  bad = d;
  bad.format = "x";
  EXPECT_EQ(print_webnn_text(bad).error().message, "invalid format: x");
  bad = d;
  bad.version = 3;
  EXPECT_EQ(print_webnn_text(bad).error().message, "unsupported version: 3");
  // An input whose name reads as a literal is written as a string, which reads back the same.
  bad = d;
  bad.nodes[0].inputs = {"true_x"};
  Result<std::string> t = print_webnn_text(bad);
  ASSERT_TRUE(t);
  EXPECT_EQ(parse_ok(*t).nodes[0].inputs, std::vector<std::string>{"true_x"});
}

// Deeply nested option values are an error, not a crash.
TEST(FormatsText, DeepNestingIsAnError) {
  std::string deep(100000, '[');
  parse_error(with_nodes("y = relu(x, a=" + deep + ");"));
}

}  // namespace
}  // namespace cppnn::formats
