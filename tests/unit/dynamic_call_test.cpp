// The dynamic builder call (cppnn/dynamic_call.h): WebIDL-style argument conversion, option
// decoding through reflection, and the generic dispatch to MLGraphBuilder::record().
#include "cppnn/dynamic_call.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/ops/op_test_util.h"

namespace cppnn::testing {
namespace {

using Obj = DynValue::Object;
using Arr = DynValue::Array;

class DynamicCallTest : public OpTest {
 protected:
  std::vector<MLOperand> call(std::string_view method, std::vector<DynValue> args) {
    return call_builder_method(builder, method, args);
  }
  template <OpType T>
  AttrsOf<T> decode(std::vector<DynValue> args) {
    DynCall c = decode_builder_call(op_name(T), args);
    EXPECT_EQ(c.type, T);
    return attrs_of<T>(c.attrs);
  }
  // The message of the TypeError that `f` throws ("" when it throws nothing).
  template <class F>
  static std::string type_error_message(F&& f) {
    try {
      f();
    } catch (const TypeError& e) {
      return e.what();
    }
    return "";
  }
  // decode_builder_call(method, args) throws a TypeError whose message starts with `prefix`.
  static void ExpectRejects(std::string_view method, std::vector<DynValue> args,
                            std::string_view prefix) {
    std::string m = type_error_message([&] { (void)decode_builder_call(method, args); });
    EXPECT_FALSE(m.empty()) << method << " did not throw TypeError (expected \"" << prefix << "\")";
    if (!m.empty()) {
      EXPECT_EQ(m.rfind(prefix, 0), 0u)
          << "message \"" << m << "\" does not start with \"" << prefix << "\"";
    }
  }
};

// ---- DynValue -----------------------------------------------------------------------------------

TEST(DynValueTest, ConstructorsPickTheJavaScriptKind) {
  EXPECT_TRUE(DynValue().is_undefined());
  EXPECT_TRUE(DynValue(nullptr).is_undefined());
  EXPECT_TRUE(DynValue(true).is<bool>());
  EXPECT_TRUE(DynValue(0).is<MLNumber>());
  EXPECT_TRUE(DynValue(2.5).is<MLNumber>());
  EXPECT_TRUE(DynValue("s").is<std::string>());
  EXPECT_TRUE(DynValue(std::string_view("s")).is<std::string>());
  EXPECT_TRUE(DynValue::array({1, 2}).is<Arr>());
  EXPECT_TRUE(DynValue::object({{"a", 1}}).is<Obj>());
  EXPECT_EQ(DynValue(-3).get_if<MLNumber>()->kind(), MLNumber::Kind::kInt64);
  EXPECT_EQ(DynValue(3u).get_if<MLNumber>()->kind(), MLNumber::Kind::kUint64);
  EXPECT_EQ(DynValue(0.5f).get_if<MLNumber>()->as_double(), 0.5);
}

TEST(DynValueTest, FindReturnsTheLastRepeatedMember) {
  DynValue o = DynValue::object({{"axis", 1}, {"label", "x"}, {"axis", 2}});
  ASSERT_NE(o.find("axis"), nullptr);
  EXPECT_EQ(o.find("axis")->get_if<MLNumber>()->raw_int64(), 2);
  EXPECT_EQ(o.find("missing"), nullptr);
  EXPECT_EQ(DynValue(1).find("axis"), nullptr);
}

TEST(DynValueTest, TypeNames) {
  EXPECT_EQ(DynValue().type_name(), "undefined");
  EXPECT_EQ(DynValue(false).type_name(), "boolean");
  EXPECT_EQ(DynValue(1).type_name(), "number");
  EXPECT_EQ(DynValue("x").type_name(), "string");
  EXPECT_EQ(DynValue::array({}).type_name(), "array");
  EXPECT_EQ(DynValue::object({}).type_name(), "object");
  EXPECT_EQ(DynValue(MLOperand()).type_name(), "MLOperand");
}

// ---- dispatch -----------------------------------------------------------------------------------

TEST_F(DynamicCallTest, UnknownMethodIsTypeError) {
  EXPECT_TYPE_ERROR(decode_builder_call("conv3d", {}));
  EXPECT_TYPE_ERROR(call("input", {"x", DynValue::object({})}));
}

TEST_F(DynamicCallTest, RecordsAnOpThroughTheBuilder) {
  MLOperand a = in({2, 3});
  MLOperand b = in({3});
  std::vector<MLOperand> out = call("add", {a, b});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(HasDesc(out[0], F32, {2, 3}));
}

TEST_F(DynamicCallTest, PositionalOperandMustBeAnOperand) {
  MLOperand a = in({2});
  ExpectRejects("add", {a, "b"}, "add: b must be an MLOperand, got string");
  ExpectRejects("add", {a}, "add: b must be an MLOperand, got undefined");
  ExpectRejects("relu", {1}, "relu: input must be an MLOperand");
}

TEST_F(DynamicCallTest, MissingRequiredParameterIsTypeError) {
  MLOperand x = in({2, 3});
  ExpectRejects("softmax", {x}, "softmax: axis is required");
  ExpectRejects("softmax", {x, nullptr}, "softmax: axis is required");
  ExpectRejects("reshape", {x}, "reshape: newShape is required");
}

TEST_F(DynamicCallTest, ExtraArgumentsAreIgnored) {
  MLOperand x = in({2, 3});
  EXPECT_TRUE(HasDesc(call("relu", {x, DynValue::object({}), 7})[0], F32, {2, 3}));
}

// ---- options dictionaries ----------------------------------------------------------------------

TEST_F(DynamicCallTest, AbsentUndefinedOrNullOptionsTakeTheDefaults) {
  MLOperand x = in({1, 1, 4, 4});
  MLOperand w = in({1, 1, 3, 3});
  for (DynValue opts : {DynValue(), DynValue(nullptr), DynValue::object({})}) {
    auto a = decode<OpType::kConv2d>({x, w, opts});
    EXPECT_EQ(a.options.groups, 1u);
    EXPECT_FALSE(a.options.padding.has_value());
    EXPECT_EQ(a.options.inputLayout, MLInputOperandLayout::kNchw);
  }
  auto a = decode<OpType::kConv2d>({x, w});
  EXPECT_EQ(a.options.groups, 1u);
}

TEST_F(DynamicCallTest, OptionsMustBeAnObject) {
  MLOperand x = in({2});
  ExpectRejects("relu", {x, 3}, "relu: options must be an object, got number");
  ExpectRejects("relu", {x, DynValue::array({})}, "relu: options must be an object");
}

TEST_F(DynamicCallTest, UnknownOptionKeysAreIgnored) {
  MLOperand x = in({1, 1, 4, 4});
  auto a = decode<OpType::kAveragePool2d>(
      {x, DynValue::object({{"roundingType", "ceil"}, {"strides", DynValue::array({2, 2})}})});
  EXPECT_EQ(a.options.outputShapeRounding, MLRoundingType::kFloor);
  EXPECT_EQ(a.options.strides.value(), (std::vector<uint32_t>{2, 2}));
}

TEST_F(DynamicCallTest, UndefinedOrNullMembersAreAbsent) {
  MLOperand x = in({2, 3});
  auto a = decode<OpType::kReduceSum>({x, DynValue::object({{"axes", nullptr}})});
  EXPECT_FALSE(a.options.axes.has_value());
  auto b = decode<OpType::kReduceSum>({x, DynValue::object({{"axes", DynValue::array({})}})});
  ASSERT_TRUE(b.options.axes.has_value());
  EXPECT_TRUE(b.options.axes->empty());
}

TEST_F(DynamicCallTest, DecodesEveryFieldKind) {
  MLOperand x = in({1, 2, 4, 4});
  MLOperand w = in({2, 1, 3, 3});
  MLOperand bias = in({2});
  auto a = decode<OpType::kConv2d>({x, w,
                                    DynValue::object({{"padding", DynValue::array({1, 1, 1, 1})},
                                                      {"strides", DynValue::array({2, 2})},
                                                      {"groups", 2},
                                                      {"inputLayout", "nchw"},
                                                      {"filterLayout", "ohwi"},
                                                      {"bias", bias},
                                                      {"label", "stem"}})});
  EXPECT_EQ(a.options.padding.value(), (std::vector<uint32_t>{1, 1, 1, 1}));
  EXPECT_EQ(a.options.strides.value(), (std::vector<uint32_t>{2, 2}));
  EXPECT_FALSE(a.options.dilations.has_value());
  EXPECT_EQ(a.options.groups, 2u);
  EXPECT_EQ(a.options.filterLayout, MLConv2dFilterOperandLayout::kOhwi);
  ASSERT_TRUE(a.options.bias.has_value());
  EXPECT_EQ(*a.options.bias, bias);
  EXPECT_EQ(a.options.label, "stem");

  auto t = decode<OpType::kTriangular>({x, DynValue::object({{"upper", false}, {"diagonal", -2}})});
  EXPECT_FALSE(t.options.upper);
  EXPECT_EQ(t.options.diagonal, -2);

  auto g =
      decode<OpType::kGru>({x, w, w, 3, 4,
                            DynValue::object({{"activations", DynValue::array({"relu", "tanh"})},
                                              {"direction", "both"},
                                              {"layout", "rzn"}})});
  EXPECT_EQ(g.params.steps, 3u);
  EXPECT_EQ(g.params.hiddenSize, 4u);
  EXPECT_EQ(g.options.activations.value(),
            (std::vector<MLRecurrentNetworkActivation>{MLRecurrentNetworkActivation::kRelu,
                                                       MLRecurrentNetworkActivation::kTanh}));
  EXPECT_EQ(g.options.direction, MLRecurrentNetworkDirection::kBoth);
  EXPECT_EQ(g.options.layout, MLGruWeightLayout::kRzn);
}

TEST_F(DynamicCallTest, WrongKindOfOptionValueIsTypeError) {
  MLOperand x = in({2, 3});
  ExpectRejects("reduceSum", {x, DynValue::object({{"keepDimensions", "yes"}})},
                "reduceSum: keepDimensions must be a boolean");
  ExpectRejects("reduceSum", {x, DynValue::object({{"axes", 1}})},
                "reduceSum: axes must be a sequence, got number");
  ExpectRejects("relu", {x, DynValue::object({{"label", 5}})}, "relu: label must be a string");
  ExpectRejects("gather", {x, x, DynValue::object({{"axis", "1"}})},
                "gather: axis must be a number, got string");
}

// ---- numbers ------------------------------------------------------------------------------------

TEST_F(DynamicCallTest, UnsignedLongEnforceRange) {
  MLOperand x = in({2, 3});
  auto axis = [&](DynValue v) { return decode<OpType::kSoftmax>({x, v}).params.axis; };
  EXPECT_EQ(axis(1), 1u);
  EXPECT_EQ(axis(1.9), 1u);   // truncated toward zero
  EXPECT_EQ(axis(-0.5), 0u);  // truncates to -0, which is in range
  EXPECT_EQ(axis(4294967295.0), 4294967295u);
  EXPECT_EQ(axis(MLNumber(uint64_t{4294967295u})), 4294967295u);
  ExpectRejects("softmax", {x, -1}, "softmax: axis is outside the unsigned long range");
  ExpectRejects("softmax", {x, 4294967296.0}, "softmax: axis is outside");
  ExpectRejects("softmax", {x, MLNumber(int64_t{1} << 40)}, "softmax: axis is outside");
  ExpectRejects("softmax", {x, std::nan("")}, "softmax: axis must be a finite number");
  ExpectRejects("softmax", {x, "Infinity"}, "softmax: axis must be a finite number");
  ExpectRejects("softmax", {x, "2"}, "softmax: axis must be a number, got string");
  ExpectRejects("softmax", {x, true}, "softmax: axis must be a number, got boolean");
}

TEST_F(DynamicCallTest, LongEnforceRange) {
  MLOperand x = in({3, 3});
  auto diagonal = [&](DynValue v) {
    return decode<OpType::kTriangular>({x, DynValue::object({{"diagonal", v}})}).options.diagonal;
  };
  EXPECT_EQ(diagonal(-2147483648.0), INT32_MIN);
  EXPECT_EQ(diagonal(2147483647), INT32_MAX);
  EXPECT_EQ(diagonal(-1.9), -1);
  ExpectRejects("triangular", {x, DynValue::object({{"diagonal", 2147483648.0}})},
                "triangular: diagonal is outside the long range");
  ExpectRejects("triangular", {x, DynValue::object({{"diagonal", "-Infinity"}})},
                "triangular: diagonal must be a finite number");
}

TEST_F(DynamicCallTest, SequenceElementsUseEnforceRangeWithTheirIndex) {
  MLOperand x = in({1, 1, 4, 4});
  MLOperand w = in({1, 1, 3, 3});
  ExpectRejects("conv2d", {x, w, DynValue::object({{"padding", DynValue::array({0, -1, 0, 0})}})},
                "conv2d: padding[1] is outside the unsigned long range");
  ExpectRejects("reshape", {x, DynValue::array({4, 4294967296.0})},
                "reshape: newShape[1] is outside");
  ExpectRejects("pad", {x, DynValue::array({0, 0, 0, 0}), DynValue::array({0, 0, -1, 0})},
                "pad: endingPadding[2]");
  ExpectRejects("slice", {x, DynValue::array({0}), 1}, "slice: sizes must be a sequence");
}

TEST_F(DynamicCallTest, TileRepetitionsWrapModulo2To32) {
  MLOperand x = in({2, 3});
  auto reps = [&](DynValue v) {
    return decode<OpType::kTile>({x, DynValue::array({v, 1})}).params.shape[0];
  };
  EXPECT_EQ(reps(-1), 4294967295u);
  EXPECT_EQ(reps(4294967297.0), 1u);
  EXPECT_EQ(reps(-1.5), 4294967295u);
  EXPECT_EQ(reps("NaN"), 0u);
  EXPECT_EQ(reps(MLNumber(int64_t{-2})), 4294967294u);
  ExpectRejects("tile", {x, DynValue::array({"x", 1})}, "tile: repetitions[0] must be a number");
}

TEST_F(DynamicCallTest, DoubleOptionsMustBeFinite) {
  MLOperand x = in({2});
  EXPECT_EQ(decode<OpType::kElu>({x, DynValue::object({{"alpha", 0.5}})}).options.alpha, 0.5);
  EXPECT_EQ(decode<OpType::kElu>({x, DynValue::object({{"alpha", 2}})}).options.alpha, 2.0);
  EXPECT_EQ(decode<OpType::kElu>({x}).options.alpha, 1.0);
  ExpectRejects("elu", {x, DynValue::object({{"alpha", "NaN"}})},
                "elu: alpha must be a finite number");
  ExpectRejects("linear", {x, DynValue::object({{"beta", "-Infinity"}})}, "linear: beta");
  ExpectRejects("hardSigmoid", {x, DynValue::object({{"alpha", INFINITY}})}, "hardSigmoid: alpha");
}

TEST_F(DynamicCallTest, FloatListsMustBeFiniteAndInFloatRange) {
  MLOperand x = in({1, 1, 2, 2});
  auto scales =
      decode<OpType::kResample2d>({x, DynValue::object({{"scales", DynValue::array({2.5, 0.5})}})})
          .options.scales;
  EXPECT_EQ(scales.value(), (std::vector<float>{2.5f, 0.5f}));
  ExpectRejects("resample2d", {x, DynValue::object({{"scales", DynValue::array({1, 1e39})}})},
                "resample2d: scales[1] is outside the float range");
  // Doubles just above FLT_MAX round down to it; from halfway to 2^128 up they round to infinity.
  auto near_max = decode<OpType::kResample2d>(
      {x, DynValue::object({{"scales", DynValue::array({0x1.fffffefp127, 1})}})});
  EXPECT_EQ(near_max.options.scales.value()[0], std::numeric_limits<float>::max());
  ExpectRejects("resample2d",
                {x, DynValue::object({{"scales", DynValue::array({0x1.ffffffp127, 1})}})},
                "resample2d: scales[0] is outside the float range");
  ExpectRejects("resample2d", {x, DynValue::object({{"scales", DynValue::array({"NaN", 1})}})},
                "resample2d: scales[0] must be a finite number");
}

TEST_F(DynamicCallTest, MLNumberIsUnrestrictedAndKeepsBigInts) {
  MLOperand x = in(I64, {2});
  auto c = decode<OpType::kClamp>(
      {x, DynValue::object({{"minValue", "-Infinity"}, {"maxValue", MLNumber(INT64_MAX)}})});
  ASSERT_TRUE(c.options.minValue.has_value());
  EXPECT_TRUE(std::isinf(c.options.minValue->as_double()));
  ASSERT_TRUE(c.options.maxValue.has_value());
  EXPECT_EQ(c.options.maxValue->kind(), MLNumber::Kind::kInt64);
  EXPECT_EQ(c.options.maxValue->raw_int64(), INT64_MAX);
  auto n = decode<OpType::kClamp>({x, DynValue::object({{"minValue", "NaN"}})});
  EXPECT_TRUE(n.options.minValue->is_nan());
  EXPECT_FALSE(decode<OpType::kClamp>({x}).options.minValue.has_value());
  auto p = decode<OpType::kPad>({x, DynValue::array({1}), DynValue::array({1}),
                                 DynValue::object({{"value", MLNumber(uint64_t{UINT64_MAX})}})});
  EXPECT_EQ(p.options.value.raw_uint64(), UINT64_MAX);
  ExpectRejects("clamp", {x, DynValue::object({{"minValue", "low"}})},
                "clamp: minValue must be a number");
}

// ---- enums --------------------------------------------------------------------------------------

TEST_F(DynamicCallTest, EnumsAcceptOnlyTheirIdlStrings) {
  MLOperand x = in({1, 1, 4, 4});
  MLOperand w = in({1, 1, 3, 3});
  auto a = decode<OpType::kConv2d>({x, w, DynValue::object({{"inputLayout", "nhwc"}})});
  EXPECT_EQ(a.options.inputLayout, MLInputOperandLayout::kNhwc);
  ExpectRejects("conv2d", {x, w, DynValue::object({{"inputLayout", "NHWC"}})},
                "conv2d: inputLayout \"NHWC\" is not one of \"nchw\", \"nhwc\"");
  ExpectRejects("conv2d", {x, w, DynValue::object({{"filterLayout", 1}})},
                "conv2d: filterLayout must be a string");
  ExpectRejects(
      "gru",
      {x, w, w, 1, 1, DynValue::object({{"activations", DynValue::array({"tanh", "gelu"})}})},
      "gru: activations[1] \"gelu\" is not one of");
}

TEST_F(DynamicCallTest, DataTypeEnums) {
  MLOperand x = in({2});
  EXPECT_EQ(decode<OpType::kCast>({x, "int64"}).params.dataType, MLOperandDataType::kInt64);
  ExpectRejects("cast", {x, "int16"}, "cast: dataType \"int16\" is not one of");
  ExpectRejects("cast", {x}, "cast: dataType is required");
  auto a = decode<OpType::kArgMax>({x, 0, DynValue::object({{"outputDataType", "int64"}})});
  EXPECT_EQ(a.options.outputDataType, MLOperandDataType::kInt64);
  ExpectRejects("argMax", {x, 0, DynValue::object({{"outputDataType", "float"}})},
                "argMax: outputDataType");
}

// ---- operands in options, sequences, multiple outputs -----------------------------------------

TEST_F(DynamicCallTest, OperandValuedOptions) {
  MLOperand a = in({2, 3});
  MLOperand b = in({3, 4});
  MLOperand c = in({4});
  DynCall with_c =
      decode_builder_call("gemm", std::vector<DynValue>{a, b, DynValue::object({{"c", c}})});
  std::vector<std::optional<MLOperand>> inputs = with_c.inputs();
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(*inputs[2], c);

  DynCall null_c =
      decode_builder_call("gemm", std::vector<DynValue>{a, b, DynValue::object({{"c", nullptr}})});
  ASSERT_EQ(null_c.inputs().size(), 3u);
  EXPECT_FALSE(null_c.inputs()[2].has_value());

  ExpectRejects("gemm", {a, b, DynValue::object({{"c", 1}})},
                "gemm: c must be an MLOperand, got number");
  EXPECT_TRUE(HasDesc(call("gemm", {a, b, DynValue::object({{"c", c}})})[0], F32, {2, 4}));
}

TEST_F(DynamicCallTest, OperandOptionFromAnotherBuilderIsTypeError) {
  MLOperand a = in({2, 3});
  MLOperand b = in({3, 4});
  EXPECT_TYPE_ERROR(call("gemm", {a, b, DynValue::object({{"c", foreign(F32, {4})}})}));
}

TEST_F(DynamicCallTest, ConcatTakesASequenceOfOperands) {
  MLOperand a = in({2, 3});
  MLOperand b = in({2, 5});
  EXPECT_TRUE(HasDesc(call("concat", {DynValue::array({a, b}), 1})[0], F32, {2, 8}));
  ExpectRejects("concat", {a, 1}, "concat: inputs must be a sequence, got MLOperand");
  ExpectRejects("concat", {DynValue::array({a, 1}), 1}, "concat: inputs[1] must be an MLOperand");
}

TEST_F(DynamicCallTest, SplitTakesACountOrAListOfSizes) {
  MLOperand x = in({4, 6});
  std::vector<MLOperand> halves = call("split", {x, 2, DynValue::object({{"axis", 1}})});
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_TRUE(HasDesc(halves[0], F32, {4, 3}));
  EXPECT_TRUE(HasDesc(halves[1], F32, {4, 3}));

  std::vector<MLOperand> parts = call("split", {x, DynValue::array({1, 3})});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(HasDesc(parts[0], F32, {1, 6}));
  EXPECT_TRUE(HasDesc(parts[1], F32, {3, 6}));

  EXPECT_EQ(std::get<uint32_t>(decode<OpType::kSplit>({x, 3}).params.splits), 3u);
  EXPECT_EQ(std::get<std::vector<uint32_t>>(
                decode<OpType::kSplit>({x, DynValue::array({2, 2})}).params.splits),
            (std::vector<uint32_t>{2, 2}));
  ExpectRejects("split", {x, -1}, "split: splits is outside the unsigned long range");
  ExpectRejects("split", {x, DynValue::array({1, -1})}, "split: splits[1] is outside");
}

TEST_F(DynamicCallTest, MultiOutputRecurrentOp) {
  const uint32_t steps = 2, batch = 3, input_size = 4, hidden = 5;
  MLOperand input = in({steps, batch, input_size});
  MLOperand weight = in({1, 4 * hidden, input_size});
  MLOperand recurrent = in({1, 4 * hidden, hidden});
  std::vector<MLOperand> out = call("lstm", {input, weight, recurrent, steps, hidden});
  ASSERT_EQ(out.size(), 2u);  // output hidden state and cell state
  EXPECT_TRUE(HasDesc(out[0], F32, {1, batch, hidden}));
  EXPECT_TRUE(HasDesc(out[1], F32, {1, batch, hidden}));
  ExpectRejects("lstm", {input, weight, recurrent, steps}, "lstm: hiddenSize is required");
}

TEST_F(DynamicCallTest, ConversionErrorsComeBeforeTheBuilderState) {
  MLOperand a = in({2});
  MLOperand b = in({2});
  builder.build({{"out", builder.add(a, b)}});
  EXPECT_TYPE_ERROR(call("softmax", {a, -1}));  // WebIDL conversion first
  EXPECT_INVALID_STATE(call("softmax", {a, 0}));
}

// ---- descriptors --------------------------------------------------------------------------------

TEST(DescriptorFromDynTest, ReadsDataTypeAndShape) {
  MLOperandDescriptor d = descriptor_from_dyn(
      DynValue::object({{"dataType", "int32"}, {"shape", DynValue::array({2, 3})}}));
  EXPECT_EQ(d, (MLOperandDescriptor{MLOperandDataType::kInt32, {2, 3}}));
  EXPECT_EQ(descriptor_from_dyn(
                DynValue::object({{"dataType", "float16"}, {"shape", DynValue::array({})}})),
            (MLOperandDescriptor{MLOperandDataType::kFloat16, {}}));
}

TEST(DescriptorFromDynTest, RejectsBadDescriptors) {
  auto message = [](DynValue v) -> std::string {
    try {
      descriptor_from_dyn(v, "input");
    } catch (const TypeError& e) {
      return e.what();
    }
    return "";
  };
  auto shape = DynValue::array({2});
  EXPECT_EQ(message(DynValue::object({{"dataType", "int16"}, {"shape", shape}}))
                .rfind("input: dataType \"int16\" is not one of", 0),
            0u);
  EXPECT_EQ(message(DynValue::object({{"shape", shape}})), "input: dataType is required");
  EXPECT_EQ(message(DynValue::object({{"dataType", "float32"}})), "input: shape is required");
  EXPECT_EQ(message(DynValue::object(
                {{"dataType", "float32"}, {"shape", DynValue::array({4294967296.0})}})),
            "input: shape[0] is outside the unsigned long range");
  EXPECT_EQ(message(DynValue::object({{"dataType", "float32"}, {"shape", DynValue::array({-1})}})),
            "input: shape[0] is outside the unsigned long range");
  EXPECT_EQ(message(DynValue(3)), "input: descriptor must be an object, got number");
}

}  // namespace
}  // namespace cppnn::testing
