// The ONNX lowering shapes of the reductions family (src/export/onnx/lower_reductions.cpp,
// lower_normalization.cpp, lower_matrix.cpp, lower_recurrent.cpp): graphs built through
// MLGraphBuilder, converted with convert_graph, and the emitted node types and attributes checked
// so that a regression in the lowering (an extra Cast or Transpose, a wrong attribute) is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cppnn/onnx.h"
#include "cppnn/webnn.h"
#include "src/export/onnx/convert.h"

namespace cppnn {
namespace {

// The ops of the model's nodes, in order.
std::vector<std::string> node_types(const onnx::ModelProto& model) {
  std::vector<std::string> types;
  for (const auto& n : model.graph().node()) types.push_back(n.op_type());
  return types;
}

// The first node of type `type` (fails the test when there is none).
const onnx::NodeProto& find_node(const onnx::ModelProto& model, const std::string& type) {
  for (const auto& n : model.graph().node())
    if (n.op_type() == type) return n;
  ADD_FAILURE() << "no " << type << " node";
  return model.graph().node(0);
}

// The attribute `name` of node `n`, or nullptr.
const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// Builds the graph of `outputs` with `make`, runs the ONNX checker on it and converts it.
template <class F>
onnx::ModelProto convert(F make) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  MLNamedOperands outputs = make(builder);
  MLGraph graph = builder.build(outputs);
  EXPECT_NO_THROW(check_onnx(graph.graph()));
  return onnx_export::convert_graph(graph.graph(), {}).model;
}

MLOperandDescriptor desc(MLOperandDataType type, std::vector<uint32_t> shape) {
  return {type, std::move(shape)};
}

TEST(OnnxLowerReductions, Float32ReduceIsOneNodeWithAxesAttribute) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 3, 4}));
    return MLNamedOperands{{"y", b.reduceMean(x, {.axes = {1, 2}, .keepDimensions = true})}};
  });
  ASSERT_EQ(node_types(model), std::vector<std::string>{"ReduceMean"});
  const auto& n = model.graph().node(0);
  const auto* axes = attr(n, "axes");
  ASSERT_NE(axes, nullptr);
  EXPECT_EQ(std::vector<int64_t>(axes->ints().begin(), axes->ints().end()),
            (std::vector<int64_t>{1, 2}));
  ASSERT_NE(attr(n, "keepdims"), nullptr);
  EXPECT_EQ(attr(n, "keepdims")->i(), 1);
}

TEST(OnnxLowerReductions, ReduceSumTakesAxesAsAnInput) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 3}));
    return MLNamedOperands{{"y", b.reduceSum(x, {.axes = {{0}}})}};
  });
  ASSERT_EQ(node_types(model), std::vector<std::string>{"ReduceSum"});
  EXPECT_EQ(model.graph().node(0).input_size(), 2);
  EXPECT_EQ(attr(model.graph().node(0), "axes"), nullptr);
  EXPECT_EQ(attr(model.graph().node(0), "keepdims")->i(), 0);
}

TEST(OnnxLowerReductions, EmptyAxesReduceNothing) {
  // ONNX would reduce every axis for an empty axes list: the lowering is elementwise instead.
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 3}));
    return MLNamedOperands{{"l2", b.reduceL2(x, {.axes = std::vector<uint32_t>{}})},
                           {"sq", b.reduceSumSquare(x, {.axes = std::vector<uint32_t>{}})}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"Abs", "Mul"}));
}

TEST(OnnxLowerReductions, IntegerSumFoldsElementwise) {
  // ONNX Runtime's integer Reduce* kernels are inexact: uint32 is summed in int32 (bit for bit)
  // by a pairwise tree of Slice + Add, then cast back.
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kUint32, {4}));
    return MLNamedOperands{{"y", b.reduceSum(x)}};
  });
  const auto types = node_types(model);
  ASSERT_GE(types.size(), 2u);
  EXPECT_EQ(std::count(types.begin(), types.end(), "ReduceSum"), 0);
  EXPECT_EQ(std::count(types.begin(), types.end(), "Add"), 2);  // 4 -> 2 -> 1
  EXPECT_EQ(types.front(), "Cast");
  EXPECT_EQ(attr(model.graph().node(0), "to")->i(), onnx::TensorProto::INT32);
  EXPECT_EQ(types.back(), "Cast");
  EXPECT_EQ(attr(*model.graph().node().rbegin(), "to")->i(), onnx::TensorProto::UINT32);
}

TEST(OnnxLowerReductions, ArgMaxInt32CastsTheInt64Index) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {3, 5}));
    return MLNamedOperands{
        {"i32", b.argMax(x, 1)},
        {"i64",
         b.argMin(x, 0, {.keepDimensions = true, .outputDataType = MLOperandDataType::kInt64})}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"ArgMax", "Cast", "ArgMin"}));
  EXPECT_EQ(attr(find_node(model, "ArgMax"), "axis")->i(), 1);
  EXPECT_EQ(attr(find_node(model, "ArgMax"), "keepdims")->i(), 0);
  EXPECT_EQ(attr(find_node(model, "ArgMin"), "keepdims")->i(), 1);
}

TEST(OnnxLowerReductions, CumulativeSumMapsExclusiveAndReverse) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 3}));
    return MLNamedOperands{{"y", b.cumulativeSum(x, 1, {.exclusive = true, .reversed = true})}};
  });
  ASSERT_EQ(node_types(model), std::vector<std::string>{"CumSum"});
  EXPECT_EQ(attr(model.graph().node(0), "exclusive")->i(), 1);
  EXPECT_EQ(attr(model.graph().node(0), "reverse")->i(), 1);
}

TEST(OnnxLowerNormalization, BatchNormalizationAxis1) {
  // float16: one node (scale and bias filled in); float32 subtracts the mean first, for
  // precision.
  auto make = [](MLOperandDataType type) {
    return [type](MLGraphBuilder& b) {
      auto x = b.input("x", desc(type, {1, 3, 4, 4}));
      auto m = b.input("m", desc(type, {3}));
      auto v = b.input("v", desc(type, {3}));
      return MLNamedOperands{{"y", b.batchNormalization(x, m, v, {.epsilon = 1e-3})}};
    };
  };
  auto f16 = convert(make(MLOperandDataType::kFloat16));
  ASSERT_EQ(node_types(f16), std::vector<std::string>{"BatchNormalization"});
  EXPECT_EQ(f16.graph().node(0).input_size(), 5);
  EXPECT_FLOAT_EQ(attr(f16.graph().node(0), "epsilon")->f(),
                  static_cast<float>(MLNumber(1e-3).cast_to_double(MLOperandDataType::kFloat16)));
  auto f32 = convert(make(MLOperandDataType::kFloat32));
  ASSERT_EQ(node_types(f32), (std::vector<std::string>{"Reshape", "Sub", "BatchNormalization"}));
  EXPECT_FLOAT_EQ(attr(f32.graph().node(2), "epsilon")->f(), 1e-3f);
  EXPECT_EQ(f32.graph().node(2).input(0), f32.graph().node(1).output(0));
}

TEST(OnnxLowerNormalization, BatchNormalizationLastAxisReshapes) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 4, 3}));
    auto m = b.input("m", desc(MLOperandDataType::kFloat32, {3}));
    auto v = b.input("v", desc(MLOperandDataType::kFloat32, {3}));
    return MLNamedOperands{{"y", b.batchNormalization(x, m, v, {.axis = 2})}};
  });
  EXPECT_EQ(node_types(model), (std::vector<std::string>{"Reshape", "Reshape", "Sub",
                                                         "BatchNormalization", "Reshape"}));
}

TEST(OnnxLowerNormalization, InstanceNormalizationNhwcTransposes) {
  auto nchw = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {1, 2, 3, 3}));
    return MLNamedOperands{{"y", b.instanceNormalization(x)}};
  });
  EXPECT_EQ(node_types(nchw), std::vector<std::string>{"InstanceNormalization"});
  auto nhwc = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {1, 3, 3, 2}));
    return MLNamedOperands{
        {"y", b.instanceNormalization(x, {.layout = MLInputOperandLayout::kNhwc})}};
  });
  EXPECT_EQ(node_types(nhwc),
            (std::vector<std::string>{"Transpose", "InstanceNormalization", "Transpose"}));
}

TEST(OnnxLowerNormalization, LayerNormalizationTrailingAxesIsOneNode) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 3, 4}));
    return MLNamedOperands{{"y", b.layerNormalization(x)}};
  });
  ASSERT_EQ(node_types(model), std::vector<std::string>{"LayerNormalization"});
  EXPECT_EQ(attr(model.graph().node(0), "axis")->i(), 1);
}

TEST(OnnxLowerNormalization, LayerNormalizationOtherAxesTranspose) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 3, 4}));
    return MLNamedOperands{{"y", b.layerNormalization(x, {.axes = {2, 0}})}};
  });
  ASSERT_EQ(node_types(model),
            (std::vector<std::string>{"Transpose", "LayerNormalization", "Transpose"}));
  const auto* perm = attr(model.graph().node(0), "perm");
  EXPECT_EQ(std::vector<int64_t>(perm->ints().begin(), perm->ints().end()),
            (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(attr(model.graph().node(1), "axis")->i(), 1);
}

TEST(OnnxLowerMatrix, GemmAndMatmulAreOneNodeEach) {
  auto model = convert([](MLGraphBuilder& b) {
    auto a = b.input("a", desc(MLOperandDataType::kFloat32, {3, 2}));
    auto bb = b.input("b", desc(MLOperandDataType::kFloat32, {4, 2}));
    auto g = b.gemm(a, bb, {.alpha = 2.0, .bTranspose = true});
    auto m = b.matmul(g, b.input("c", desc(MLOperandDataType::kFloat32, {4, 5})));
    return MLNamedOperands{{"y", m}};
  });
  ASSERT_EQ(node_types(model), (std::vector<std::string>{"Gemm", "MatMul"}));
  const auto& gemm = model.graph().node(0);
  EXPECT_FLOAT_EQ(attr(gemm, "alpha")->f(), 2.0f);
  EXPECT_EQ(attr(gemm, "transB")->i(), 1);
  EXPECT_EQ(attr(gemm, "transA"), nullptr);
  EXPECT_EQ(attr(gemm, "beta"), nullptr);
}

TEST(OnnxLowerRecurrent, GruMapsOptionsToOneGruNode) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {2, 1, 3}));
    auto w = b.input("w", desc(MLOperandDataType::kFloat32, {2, 12, 3}));
    auto r = b.input("r", desc(MLOperandDataType::kFloat32, {2, 12, 4}));
    auto outs = b.gru(x, w, r, 2, 4,
                      {.returnSequence = true,
                       .direction = MLRecurrentNetworkDirection::kBoth,
                       .activations = {{MLRecurrentNetworkActivation::kRelu,
                                        MLRecurrentNetworkActivation::kRelu}}});
    return MLNamedOperands{{"h", outs[0]}, {"seq", outs[1]}};
  });
  ASSERT_EQ(node_types(model), std::vector<std::string>{"GRU"});
  const auto& n = model.graph().node(0);
  EXPECT_EQ(attr(n, "hidden_size")->i(), 4);
  EXPECT_EQ(attr(n, "direction")->s(), "bidirectional");
  EXPECT_EQ(attr(n, "linear_before_reset")->i(), 1);
  ASSERT_NE(attr(n, "activations"), nullptr);
  EXPECT_EQ(attr(n, "activations")->strings_size(), 4);
  EXPECT_EQ(n.output_size(), 2);
}

TEST(OnnxLowerRecurrent, LstmCellIfgoReordersGates) {
  auto model = convert([](MLGraphBuilder& b) {
    auto x = b.input("x", desc(MLOperandDataType::kFloat32, {1, 3}));
    auto w = b.input("w", desc(MLOperandDataType::kFloat32, {8, 3}));
    auto r = b.input("r", desc(MLOperandDataType::kFloat32, {8, 2}));
    auto h = b.input("h", desc(MLOperandDataType::kFloat32, {1, 2}));
    auto c = b.input("c", desc(MLOperandDataType::kFloat32, {1, 2}));
    auto outs = b.lstmCell(x, w, r, h, c, 2, {.layout = MLLstmWeightLayout::kIfgo});
    return MLNamedOperands{{"h2", outs[0]}, {"c2", outs[1]}};
  });
  const auto types = node_types(model);
  ASSERT_EQ(std::count(types.begin(), types.end(), "LSTM"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "Split"), 2);  // weight, recurrent weight
  EXPECT_EQ(std::count(types.begin(), types.end(), "Squeeze"), 2);
  const auto& split = find_node(model, "Split");
  const auto& concat = find_node(model, "Concat");
  // ONNX's i,o,f,c from WebNN's i,f,g,o: blocks 0, 3, 1, 2.
  EXPECT_EQ(concat.input(0), split.output(0));
  EXPECT_EQ(concat.input(1), split.output(3));
  EXPECT_EQ(concat.input(2), split.output(1));
  EXPECT_EQ(concat.input(3), split.output(2));
}

}  // namespace
}  // namespace cppnn
