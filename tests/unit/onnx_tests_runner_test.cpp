// The pieces of `cppnn onnx-tests` and `cppnn convert-onnx` that need no model: decoding ONNX
// test tensors, the assert_allclose-style comparison, the expectations file and the
// free-dimension arguments (tools/cppnn/onnx_tests.h, tools/cppnn/convert_onnx.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "cppnn/float16.h"
#include "onnx/onnx_pb.h"
#include "tools/cppnn/convert_onnx.h"
#include "tools/cppnn/onnx_tests.h"

namespace cppnn::tool {
namespace {

using namespace onnx_tests;

std::vector<std::byte> serialize(const onnx::TensorProto& t) {
  const std::string s = t.SerializeAsString();
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

template <class T>
std::vector<std::byte> bytes_of(std::initializer_list<T> values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

TestTensor float_tensor(std::vector<uint32_t> shape, std::initializer_list<float> values) {
  TestTensor t;
  t.onnx_type = onnx::TensorProto::FLOAT;
  t.type = MLOperandDataType::kFloat32;
  t.shape = std::move(shape);
  t.bytes = bytes_of(values);
  return t;
}

TEST(OnnxTestsData, DecodesTypedFieldsAndRawData) {
  onnx::TensorProto t;
  t.set_name("x");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_float_data(1.5f);
  t.add_float_data(-2.0f);
  TestTensor d = decode_test_tensor(serialize(t), "x.pb");
  EXPECT_EQ(d.name, "x");
  EXPECT_EQ(d.type, MLOperandDataType::kFloat32);
  EXPECT_EQ(d.shape, (std::vector<uint32_t>{2}));
  EXPECT_EQ(d.bytes, bytes_of({1.5f, -2.0f}));

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(3);
  b.set_raw_data(std::string("\x00\x01\x07", 3));
  d = decode_test_tensor(serialize(b), "b.pb");
  EXPECT_EQ(d.type, MLOperandDataType::kUint8);
  EXPECT_EQ(d.bytes, bytes_of<uint8_t>({0, 1, 1}));  // bools become 0/1

  onnx::TensorProto i;
  i.set_data_type(onnx::TensorProto::INT64);
  i.add_int64_data(-7);  // no dims: a 0-d tensor
  d = decode_test_tensor(serialize(i), "i.pb");
  EXPECT_TRUE(d.shape.empty());
  EXPECT_EQ(d.bytes, bytes_of<int64_t>({-7}));

  onnx::TensorProto u;
  u.set_data_type(onnx::TensorProto::UINT32);
  u.add_dims(1);
  u.add_uint64_data(4000000000u);
  EXPECT_EQ(decode_test_tensor(serialize(u), "u.pb").bytes, bytes_of<uint32_t>({4000000000u}));
}

TEST(OnnxTestsData, RejectsMalformedAndInexpressibleTensors) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.add_float_data(1);
  EXPECT_THROW(decode_test_tensor(serialize(t), "short.pb"), CaseFailure);
  t.clear_float_data();
  t.set_raw_data(std::string(8, '\0'));  // 2 floats for 3 elements
  EXPECT_THROW(decode_test_tensor(serialize(t), "raw.pb"), CaseFailure);
  t.set_data_type(onnx::TensorProto::DOUBLE);
  EXPECT_THROW(decode_test_tensor(serialize(t), "double.pb"), NotExpressible);
  const std::vector<std::byte> garbage(16, std::byte{0xff});
  EXPECT_THROW(decode_test_tensor(garbage, "garbage.pb"), CaseFailure);
  onnx::TensorProto neg;
  neg.set_data_type(onnx::TensorProto::FLOAT);
  neg.add_dims(-1);
  EXPECT_THROW(decode_test_tensor(serialize(neg), "neg.pb"), CaseFailure);
}

TEST(OnnxTestsData, ModelInfoListsInputsWithoutInitializers) {
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  auto add_input = [&](const std::string& name, int type) {
    onnx::ValueInfoProto* v = g->add_input();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  };
  add_input("x", onnx::TensorProto::FLOAT);
  add_input("w", onnx::TensorProto::FLOAT);
  add_input("y", onnx::TensorProto::INT64);
  g->add_initializer()->set_name("w");
  g->add_output()->set_name("z");
  const auto file = std::filesystem::temp_directory_path() / "cppnn_onnx_tests_model.onnx";
  {
    std::ofstream out(file, std::ios::binary);
    m.SerializeToOstream(&out);
  }
  const ModelInfo info = read_model_info(file);
  EXPECT_EQ(info.inputs, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(info.output_count, 1u);
  add_input("s", onnx::TensorProto::STRING);
  {
    std::ofstream out(file, std::ios::binary);
    m.SerializeToOstream(&out);
  }
  EXPECT_THROW(read_model_info(file), NotExpressible);
  {
    std::ofstream out(file, std::ios::binary);
    out << "\xff\xff\xff not a model";
  }
  EXPECT_THROW(read_model_info(file), CaseFailure);
  std::filesystem::remove(file);
}

TEST(OnnxTestsCompare, AllcloseToleranceNanAndInfinity) {
  const TestTensor want = float_tensor({2}, {1.0f, 100.0f});
  const std::vector<uint32_t> shape = {2};
  // |a - e| <= 1e-7 + 1e-3 * |e|: 100.09 is within 0.1, 100.2 is not.
  EXPECT_TRUE(
      compare_output(want, MLOperandDataType::kFloat32, shape, bytes_of({1.0f, 100.09f}), "y").ok);
  Comparison c =
      compare_output(want, MLOperandDataType::kFloat32, shape, bytes_of({1.0f, 100.2f}), "y");
  EXPECT_FALSE(c.ok);
  EXPECT_NEAR(c.max_abs_error, 0.2, 1e-4);
  EXPECT_NE(c.message.find("[1]"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("1 of 2"), std::string::npos) << c.message;

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const TestTensor special = float_tensor({2}, {nan, inf});
  EXPECT_TRUE(
      compare_output(special, MLOperandDataType::kFloat32, shape, bytes_of({nan, inf}), "y").ok);
  EXPECT_FALSE(
      compare_output(special, MLOperandDataType::kFloat32, shape, bytes_of({0.0f, inf}), "y").ok);
  EXPECT_FALSE(
      compare_output(special, MLOperandDataType::kFloat32, shape, bytes_of({nan, -inf}), "y").ok);
  EXPECT_FALSE(
      compare_output(special, MLOperandDataType::kFloat32, shape, bytes_of({nan, 3.0e38f}), "y")
          .ok);
}

TEST(OnnxTestsCompare, ShapesTypesAndIntegersExactly) {
  const TestTensor scalar = float_tensor({}, {2.0f});
  const std::vector<uint32_t> one = {1};
  Comparison c = compare_output(scalar, MLOperandDataType::kFloat32, one, bytes_of({2.0f}), "y");
  EXPECT_FALSE(c.ok);  // 0-d is not [1]
  EXPECT_NE(c.message.find("shape [1], expected []"), std::string::npos) << c.message;
  EXPECT_FALSE(
      compare_output(scalar, MLOperandDataType::kFloat16, {}, bytes_of<uint16_t>({0x4000}), "y")
          .ok);

  TestTensor ints;
  ints.onnx_type = onnx::TensorProto::INT64;
  ints.type = MLOperandDataType::kInt64;
  ints.shape = {2, 2};
  ints.bytes = bytes_of<int64_t>({1, 2, 3, -4});
  const std::vector<uint32_t> shape = {2, 2};
  EXPECT_TRUE(
      compare_output(ints, MLOperandDataType::kInt64, shape, bytes_of<int64_t>({1, 2, 3, -4}), "y")
          .ok);
  c = compare_output(ints, MLOperandDataType::kInt64, shape, bytes_of<int64_t>({1, 2, 3, -5}), "y");
  EXPECT_FALSE(c.ok);  // no tolerance for integers
  EXPECT_NE(c.message.find("[1,1] is -5, expected -4"), std::string::npos) << c.message;

  TestTensor half;
  half.onnx_type = onnx::TensorProto::FLOAT16;
  half.type = MLOperandDataType::kFloat16;
  half.shape = {1};
  half.bytes = bytes_of<uint16_t>({float_to_half_bits(1.0f)});
  EXPECT_TRUE(compare_output(half, MLOperandDataType::kFloat16, one,
                             bytes_of<uint16_t>({float_to_half_bits(1.0f)}), "y")
                  .ok);
  EXPECT_FALSE(compare_output(half, MLOperandDataType::kFloat16, one,
                              bytes_of<uint16_t>({float_to_half_bits(1.01f)}), "y")
                   .ok);
}

TEST(OnnxTestsExpectations, ParsesLinesBackendsAndCategories) {
  const Expectations e = parse_expectations(
      "# comment\n\n"
      "test_cast_DOUBLE_to_FLOAT: not-expressible: double type\n"
      "[ort] test_gelu: backend: ORT rounds differently # keeps the hash\n"
      "[reference, ort] test_lstm: precision: accumulated error\n",
      "exp.txt");
  ASSERT_EQ(e.entries.size(), 3u);
  EXPECT_EQ(e.entries[0].category, Category::kNotExpressible);
  EXPECT_EQ(e.entries[1].reason, "ORT rounds differently # keeps the hash");
  EXPECT_EQ(e.entries[1].line, 4);
  EXPECT_NE(e.find("test_gelu", "ort"), nullptr);
  EXPECT_EQ(e.find("test_gelu", "reference"), nullptr);
  EXPECT_NE(e.find("test_cast_DOUBLE_to_FLOAT", "reference"), nullptr);
  EXPECT_NE(e.find("test_lstm", "reference"), nullptr);
}

TEST(OnnxTestsExpectations, RejectsMalformedLines) {
  auto fails = [](const std::string& text, const std::string& needle) {
    try {
      parse_expectations(text, "exp.txt");
    } catch (const RunnerError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << text;
  };
  fails("test_a: wrong: reason\n", "exp.txt:1: unknown category 'wrong'");
  fails("test_a: unsupported\n", "missing ':'");
  fails("test_a: unsupported:   \n", "needs a reason");
  fails("[ort test_a: unsupported: r\n", "no ']'");
  fails("test_a: unsupported: r\n[ort] test_a: backend: r\n",
        "exp.txt:2: test_a is listed already");
  // Different backends may list the same case.
  EXPECT_EQ(
      parse_expectations("[ort] t: backend: r\n[reference] t: precision: r\n", "x").entries.size(),
      2u);
}

TEST(ConvertOnnxArgs, OverrideDimErrorsAndPrecedence) {
  using namespace convert_onnx;
  EXPECT_EQ(parse_override_dim("batch=4"), (std::pair<std::string, uint32_t>{"batch", 4}));
  auto message = [](const std::string& s) {
    try {
      parse_override_dim(s);
    } catch (const ArgumentError& e) {
      return e.message;
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("a=b=c"), "Invalid override-dim format: 'a=b=c'. Expected NAME=VALUE");
  EXPECT_EQ(message("abc"), "Invalid override-dim format: 'abc'. Expected NAME=VALUE");
  EXPECT_EQ(message("n=x"), "Invalid dimension value: 'x'");
  EXPECT_EQ(message("n=-1"), "Invalid dimension value: '-1'");
  EXPECT_EQ(message("n=4294967296"), "Invalid dimension value: '4294967296'");

  const auto dir = std::filesystem::temp_directory_path() / "cppnn_convert_onnx_dims_test";
  std::filesystem::create_directories(dir);
  const auto model = dir / "m.onnx";
  {
    std::ofstream(dir / "m.dims.json") << R"({"batch": 2, "seq": 7})";
    std::ofstream(dir / "f.json") << R"({"freeDimensionOverrides": {"batch": 3}})";
    std::ofstream(dir / "bad.json") << R"({"batch": "x"})";
    std::ofstream(dir / "list.json") << R"([1, 2])";
  }
  std::optional<std::filesystem::path> used;
  auto dims = resolve_overrides(model, {}, std::nullopt, &used);  // the X.dims.json fallback
  EXPECT_EQ(dims, (std::map<std::string, uint32_t>{{"batch", 2}, {"seq", 7}}));
  EXPECT_TRUE(used.has_value());
  dims = resolve_overrides(model, {"seq=9"}, std::nullopt);  // no fallback once one is given
  EXPECT_EQ(dims, (std::map<std::string, uint32_t>{{"seq", 9}}));
  dims = resolve_overrides(model, {"batch=5"}, dir / "f.json");  // the command line wins
  EXPECT_EQ(dims, (std::map<std::string, uint32_t>{{"batch", 5}}));
  dims = resolve_overrides(model, {}, dir / "f.json");
  EXPECT_EQ(dims, (std::map<std::string, uint32_t>{{"batch", 3}}));
  try {
    read_override_dims_file(dir / "bad.json");
    ADD_FAILURE() << "accepted a string value";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.message, "override value for 'batch' must be an integer, got \"x\"");
  }
  try {
    read_override_dims_file(dir / "list.json");
    ADD_FAILURE() << "accepted an array";
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.message.rfind("override-dims-file must be a JSON object", 0), 0u) << e.message;
  }
  std::filesystem::remove_all(dir);

  EXPECT_EQ(parse_input_shape("x=1,3,224,224").second, (std::vector<uint32_t>{1, 3, 224, 224}));
  EXPECT_TRUE(parse_input_shape("s=").second.empty());
  EXPECT_THROW(parse_input_shape("x=1,,2"), ArgumentError);
  EXPECT_THROW(parse_input_shape("x"), ArgumentError);
}

}  // namespace
}  // namespace cppnn::tool
