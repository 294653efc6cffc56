#include "tests/backends/op_cases.h"

namespace cppnn::testing {
namespace {

using enum MLOperandDataType;
using Shape = std::vector<uint32_t>;

// A case of one unary op `f` on an input of `type` and `shape`.
OpCase unary(std::string name, MLOperandDataType type, Shape shape,
             std::function<MLOperand(MLGraphBuilder&, const MLOperand&)> f, double low = -2,
             double high = 2, double tolerance = 1e-5) {
  return {std::move(name),
          [=](MLGraphBuilder& b) -> MLNamedOperands {
            return {{"y", f(b, b.input("x", {type, shape}))}};
          },
          low, high, tolerance};
}

// A case of one binary op `f` on two inputs of `type` (shapes broadcast).
OpCase binary(std::string name, MLOperandDataType type, Shape a, Shape c,
              std::function<MLOperand(MLGraphBuilder&, const MLOperand&, const MLOperand&)> f,
              double low = -2, double high = 2) {
  return {std::move(name),
          [=](MLGraphBuilder& b) -> MLNamedOperands {
            return {{"y", f(b, b.input("a", {type, a}), b.input("b", {type, c}))}};
          },
          low, high};
}

#define UNARY(op) [](MLGraphBuilder& b, const MLOperand& x) { return b.op(x); }
#define BINARY(op) \
  [](MLGraphBuilder& b, const MLOperand& x, const MLOperand& y) { return b.op(x, y); }

std::vector<OpCase> make_cases() {
  std::vector<OpCase> c;
  // Elementwise binary: every type for the arithmetic, broadcasting.
  for (auto [t, n] : {std::pair{kFloat32, "f32"},
                      {kFloat16, "f16"},
                      {kInt32, "i32"},
                      {kUint32, "u32"},
                      {kInt64, "i64"},
                      {kUint64, "u64"},
                      {kInt8, "i8"},
                      {kUint8, "u8"}}) {
    c.push_back(binary(std::string("add_") + n, t, {2, 3, 4}, {3, 1}, BINARY(add), -50, 50));
    c.push_back(binary(std::string("mul_") + n, t, {2, 3, 4}, {4}, BINARY(mul), -50, 50));
    c.push_back(binary(std::string("max_") + n, t, {3, 4}, {3, 4}, BINARY(max), -50, 50));
    c.push_back(binary(std::string("lesser_") + n, t, {3, 4}, {1, 4}, BINARY(lesser), -3, 3));
  }
  c.push_back(binary("sub_f32", kFloat32, {5, 6}, {6}, BINARY(sub)));
  c.push_back(binary("div_f32", kFloat32, {5, 6}, {5, 1}, BINARY(div), 0.5, 4));
  c.push_back(binary("div_i32", kInt32, {5, 6}, {5, 6}, BINARY(div), 1, 40));
  c.push_back(binary("min_f16", kFloat16, {5, 6}, {5, 6}, BINARY(min)));
  c.push_back(binary("pow_f32", kFloat32, {4, 4}, {4, 4}, BINARY(pow), 0.5, 2));
  c.push_back(binary("equal_i32", kInt32, {4, 4}, {4}, BINARY(equal), -2, 2));
  c.push_back(binary("notEqual_f32", kFloat32, {4, 4}, {4}, BINARY(notEqual), -2, 2));
  c.push_back(binary("greater_i64", kInt64, {4, 4}, {4, 4}, BINARY(greater), -3, 3));
  c.push_back(binary("greaterOrEqual_f16", kFloat16, {4, 4}, {4, 4}, BINARY(greaterOrEqual)));
  c.push_back(binary("lesserOrEqual_u32", kUint32, {4, 4}, {4, 4}, BINARY(lesserOrEqual), 0, 3));
  c.push_back(binary("logicalAnd_u8", kUint8, {4, 4}, {4, 4}, BINARY(logicalAnd), 0, 2));
  c.push_back(binary("logicalOr_u8", kUint8, {4, 4}, {4}, BINARY(logicalOr), 0, 2));
  c.push_back(binary("logicalXor_u8", kUint8, {4, 4}, {4, 4}, BINARY(logicalXor), 0, 2));
  // Elementwise unary.
  c.push_back(unary("logicalNot_u8", kUint8, {10}, UNARY(logicalNot), 0, 2));
  c.push_back(unary("abs_f32", kFloat32, {3, 7}, UNARY(abs)));
  c.push_back(unary("abs_i8", kInt8, {3, 7}, UNARY(abs), -100, 100));
  c.push_back(unary("neg_i64", kInt64, {3, 7}, UNARY(neg), -100, 100));
  c.push_back(unary("ceil_f16", kFloat16, {3, 7}, UNARY(ceil)));
  c.push_back(unary("floor_f32", kFloat32, {3, 7}, UNARY(floor)));
  c.push_back(unary("roundEven_f32", kFloat32, {3, 7}, UNARY(roundEven), -4, 4));
  c.push_back(unary("sign_i32", kInt32, {3, 7}, UNARY(sign), -3, 3));
  c.push_back(unary("exp_f32", kFloat32, {3, 7}, UNARY(exp)));
  c.push_back(unary("log_f16", kFloat16, {3, 7}, UNARY(log), 0.1, 5));
  c.push_back(unary("sqrt_f32", kFloat32, {3, 7}, UNARY(sqrt), 0, 9));
  c.push_back(unary("reciprocal_f32", kFloat32, {3, 7}, UNARY(reciprocal), 0.5, 3));
  c.push_back(unary("sin_f32", kFloat32, {3, 7}, UNARY(sin)));
  c.push_back(unary("cos_f16", kFloat16, {3, 7}, UNARY(cos)));
  c.push_back(unary("tan_f32", kFloat32, {3, 7}, UNARY(tan), -1, 1));
  c.push_back(unary("erf_f32", kFloat32, {3, 7}, UNARY(erf)));
  c.push_back(unary("identity_u64", kUint64, {3, 7}, UNARY(identity), 0, 1000));
  c.push_back(unary("isNaN_f32", kFloat32, {3, 7}, UNARY(isNaN)));
  c.push_back(unary("isInfinite_f16", kFloat16, {3, 7}, UNARY(isInfinite)));
  c.push_back(unary(
      "cast_f32_i32", kFloat32, {3, 7},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.cast(x, kInt32); }, -9, 9));
  c.push_back(unary(
      "cast_i64_f16", kInt64, {3, 7},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.cast(x, kFloat16); }, -99, 99));
  // Activations.
  for (auto [t, n] : {std::pair{kFloat32, "f32"}, {kFloat16, "f16"}}) {
    const std::string s = n;
    c.push_back(unary("relu_" + s, t, {2, 9}, UNARY(relu)));
    c.push_back(unary("sigmoid_" + s, t, {2, 9}, UNARY(sigmoid)));
    c.push_back(unary("tanh_" + s, t, {2, 9}, UNARY(tanh)));
    c.push_back(unary("gelu_" + s, t, {2, 9}, UNARY(gelu)));
    c.push_back(unary("softplus_" + s, t, {2, 9}, UNARY(softplus)));
    c.push_back(unary("softsign_" + s, t, {2, 9}, UNARY(softsign)));
    c.push_back(unary("hardSwish_" + s, t, {2, 9}, UNARY(hardSwish), -4, 4));
    c.push_back(unary("softmax_" + s, t, {3, 5},
                      [](MLGraphBuilder& b, const MLOperand& x) { return b.softmax(x, 1); }));
  }
  c.push_back(unary("clamp_f32", kFloat32, {4, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
    return b.clamp(x, {.minValue = -0.5, .maxValue = 1.0});
  }));
  c.push_back(unary(
      "clamp_u8", kUint8, {4, 4},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.clamp(x, {.minValue = 3, .maxValue = 200});
      },
      0, 255));
  c.push_back(unary("elu_f32", kFloat32, {4, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
    return b.elu(x, {.alpha = 0.7});
  }));
  c.push_back(unary("leakyRelu_f32", kFloat32, {4, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
    return b.leakyRelu(x, {.alpha = 0.1});
  }));
  c.push_back(unary(
      "hardSigmoid_f32", kFloat32, {4, 4},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.hardSigmoid(x, {.alpha = 0.3, .beta = 0.4});
      },
      -4, 4));
  c.push_back(unary("linear_f16", kFloat16, {4, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
    return b.linear(x, {.alpha = 1.5, .beta = -0.25});
  }));
  c.push_back(binary("prelu_f32", kFloat32, {2, 3, 4}, {4}, BINARY(prelu)));
  // Matrix, convolution, pooling.
  c.push_back(binary("matmul_f32", kFloat32, {2, 3, 5}, {5, 4}, BINARY(matmul)));
  c.push_back(binary("matmul_f16", kFloat16, {3, 8}, {8, 2}, BINARY(matmul)));
  c.push_back(
      {"gemm_f32", [](MLGraphBuilder& b) -> MLNamedOperands {
         MLOperand a = b.input("a", {kFloat32, {5, 3}});
         MLOperand w = b.input("w", {kFloat32, {4, 5}});
         MLOperand cc = b.input("c", {kFloat32, {4}});
         return {
             {"y",
              b.gemm(a, w,
                     {.c = cc, .alpha = 0.5, .beta = 2, .aTranspose = true, .bTranspose = true})}};
       }});
  c.push_back({"conv2d_f32", [](MLGraphBuilder& b) -> MLNamedOperands {
                 MLOperand x = b.input("x", {kFloat32, {1, 4, 9, 9}});
                 MLOperand w = b.input("w", {kFloat32, {6, 2, 3, 3}});
                 MLOperand bias = b.input("bias", {kFloat32, {6}});
                 return {{"y", b.conv2d(x, w,
                                        {.padding = {1, 2, 0, 1},
                                         .strides = {2, 1},
                                         .dilations = {1, 2},
                                         .groups = 2,
                                         .bias = bias})}};
               }});
  c.push_back({"conv2d_nhwc_f16", [](MLGraphBuilder& b) -> MLNamedOperands {
                 MLOperand x = b.input("x", {kFloat16, {1, 7, 7, 3}});
                 MLOperand w = b.input("w", {kFloat16, {3, 3, 3, 4}});
                 return {{"y", b.conv2d(x, w,
                                        {.padding = {1, 1, 1, 1},
                                         .inputLayout = MLInputOperandLayout::kNhwc,
                                         .filterLayout = MLConv2dFilterOperandLayout::kHwio})}};
               }});
  c.push_back(
      {"convTranspose2d_f32", [](MLGraphBuilder& b) -> MLNamedOperands {
         MLOperand x = b.input("x", {kFloat32, {1, 3, 4, 5}});
         MLOperand w = b.input("w", {kFloat32, {3, 2, 3, 3}});
         return {{"y", b.convTranspose2d(
                           x, w,
                           {.padding = {1, 0, 1, 1}, .strides = {2, 3}, .outputPadding = {1, 0}})}};
       }});
  c.push_back(
      unary("averagePool2d_f32", kFloat32, {1, 3, 7, 8}, [](MLGraphBuilder& b, const MLOperand& x) {
        return b.averagePool2d(
            x, {.windowDimensions = {3, 3}, .padding = {1, 1, 1, 1}, .strides = {2, 2}});
      }));
  c.push_back(unary("maxPool2d_ceil_f16", kFloat16, {1, 2, 7, 7},
                    [](MLGraphBuilder& b, const MLOperand& x) {
                      return b.maxPool2d(x, {.windowDimensions = {2, 2},
                                             .strides = {2, 2},
                                             .outputShapeRounding = MLRoundingType::kCeil});
                    }));
  c.push_back(
      unary("l2Pool2d_f32", kFloat32, {1, 2, 6, 6}, [](MLGraphBuilder& b, const MLOperand& x) {
        return b.l2Pool2d(x, {.windowDimensions = {3, 3}});
      }));
  // Normalization.
  c.push_back({"batchNormalization_f32", [](MLGraphBuilder& b) -> MLNamedOperands {
                 MLOperand x = b.input("x", {kFloat32, {2, 3, 4, 4}});
                 MLOperand mean = b.input("mean", {kFloat32, {3}});
                 MLOperand var = b.input("var", {kFloat32, {3}});
                 MLOperand scale = b.input("scale", {kFloat32, {3}});
                 return {{"y", b.batchNormalization(x, mean, b.abs(var), {.scale = scale})}};
               }});
  c.push_back(unary(
      "instanceNormalization_f32", kFloat32, {2, 3, 4, 5},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.instanceNormalization(x); }, -2, 2,
      1e-4));
  c.push_back(unary("layerNormalization_f16", kFloat16, {2, 3, 8},
                    [](MLGraphBuilder& b, const MLOperand& x) {
                      return b.layerNormalization(x, {.axes = {2}});
                    }));
  // Reductions.
  c.push_back(unary(
      "reduceSum_i32", kInt32, {3, 4, 5},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.reduceSum(x, {.axes = {0, 2}});
      },
      -50, 50));
  c.push_back(
      unary("reduceMean_f32", kFloat32, {3, 4, 5}, [](MLGraphBuilder& b, const MLOperand& x) {
        return b.reduceMean(x, {.axes = {1}, .keepDimensions = true});
      }));
  c.push_back(unary("reduceMax_f16", kFloat16, {3, 4, 5},
                    [](MLGraphBuilder& b, const MLOperand& x) { return b.reduceMax(x); }));
  c.push_back(unary(
      "reduceMin_u32", kUint32, {3, 4, 5},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.reduceMin(x, {.axes = {2}}); }, 0,
      1000));
  c.push_back(unary(
      "reduceProduct_f32", kFloat32, {3, 4},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.reduceProduct(x, {.axes = {1}}); }));
  c.push_back(unary("reduceL2_f32", kFloat32, {3, 4},
                    [](MLGraphBuilder& b, const MLOperand& x) { return b.reduceL2(x); }));
  c.push_back(unary(
      "reduceLogSumExp_f32", kFloat32, {3, 4},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.reduceLogSumExp(x, {.axes = {0}}); }));
  c.push_back(unary("argMax_f32", kFloat32, {3, 4, 5},
                    [](MLGraphBuilder& b, const MLOperand& x) { return b.argMax(x, 1); }));
  c.push_back(unary(
      "argMin_i64", kInt64, {3, 4},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.argMin(x, 0, {.keepDimensions = true, .outputDataType = kInt64});
      },
      -5, 5));
  c.push_back(unary(
      "cumulativeSum_i32", kInt32, {3, 5},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.cumulativeSum(x, 1, {.exclusive = true, .reversed = true});
      },
      -9, 9));
  // Data movement.
  c.push_back(
      {"concat_i8",
       [](MLGraphBuilder& b) -> MLNamedOperands {
         return {
             {"y", b.concat({b.input("a", {kInt8, {2, 3}}), b.input("b", {kInt8, {2, 1}})}, 1)}};
       },
       -100, 100});
  c.push_back(
      unary("transpose_f16", kFloat16, {2, 3, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
        return b.transpose(x, {.permutation = {1, 2, 0}});
      }));
  c.push_back(unary(
      "reshape_u64", kUint64, {2, 3, 4},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.reshape(x, {4, 6});
      },
      0, 1000));
  c.push_back(unary("slice_f32", kFloat32, {6, 7}, [](MLGraphBuilder& b, const MLOperand& x) {
    return b.slice(x, {1, 2}, {4, 3}, {.strides = {1, 2}});
  }));
  c.push_back(unary(
      "expand_i32", kInt32, {3, 1},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.expand(x, {2, 3, 4});
      },
      -9, 9));
  c.push_back(
      unary("pad_reflection_f32", kFloat32, {3, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
        return b.pad(x, {1, 2}, {2, 1}, {.mode = MLPaddingMode::kReflection});
      }));
  c.push_back(unary(
      "pad_constant_u8", kUint8, {3, 4},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.pad(x, {1, 0}, {0, 2}, {.value = 7});
      },
      0, 255));
  c.push_back(unary(
      "reverse_i64", kInt64, {3, 4},
      [](MLGraphBuilder& b, const MLOperand& x) { return b.reverse(x, {.axes = {1}}); }, -9, 9));
  c.push_back({"split_f32", [](MLGraphBuilder& b) -> MLNamedOperands {
                 auto parts = b.split(b.input("x", {kFloat32, {4, 6}}),
                                      std::vector<uint32_t>{1, 2, 3}, {.axis = 1});
                 return {{"p0", parts[0]}, {"p1", parts[1]}, {"p2", parts[2]}};
               }});
  c.push_back(unary(
      "tile_u32", kUint32, {2, 3},
      [](MLGraphBuilder& b, const MLOperand& x) {
        return b.tile(x, {2, 3});
      },
      0, 99));
  c.push_back(unary("triangular_f32", kFloat32, {4, 5}, [](MLGraphBuilder& b, const MLOperand& x) {
    return b.triangular(x, {.upper = false, .diagonal = 1});
  }));
  c.push_back(
      {"where_f16", [](MLGraphBuilder& b) -> MLNamedOperands {
         MLOperand cond = b.greater(b.input("c", {kFloat32, {3, 4}}), b.constant(kFloat32, 0));
         return {
             {"y", b.where(cond, b.input("a", {kFloat16, {3, 4}}), b.input("b", {kFloat16, {4}}))}};
       }});
  // Gather and scatter with constant indices (in range, and negative ones).
  auto indices = [](MLGraphBuilder& b, MLOperandDataType t, Shape shape, std::vector<int> v) {
    std::vector<std::byte> bytes(v.size() * data_type_bits(t) / 8);
    for (size_t i = 0; i < v.size(); ++i)
      MLNumber(v[i]).cast_to_bytes(t, bytes.data() + i * data_type_bits(t) / 8);
    return b.constant({t, shape}, bytes);
  };
  c.push_back({"gather_f32", [=](MLGraphBuilder& b) -> MLNamedOperands {
                 return {{"y", b.gather(b.input("x", {kFloat32, {4, 3}}),
                                        indices(b, kInt32, {2, 2}, {3, -1, 0, 2}), {.axis = 0})}};
               }});
  c.push_back({"gatherElements_i32",
               [=](MLGraphBuilder& b) -> MLNamedOperands {
                 return {{"y", b.gatherElements(b.input("x", {kInt32, {3, 3}}),
                                                indices(b, kInt64, {2, 3}, {0, 2, 1, 2, 0, -1}),
                                                {.axis = 0})}};
               },
               -50, 50});
  c.push_back({"gatherND_f16", [=](MLGraphBuilder& b) -> MLNamedOperands {
                 return {{"y", b.gatherND(b.input("x", {kFloat16, {2, 3, 2}}),
                                          indices(b, kInt32, {2, 2}, {1, 2, 0, -1}))}};
               }});
  c.push_back({"scatterElements_f32", [=](MLGraphBuilder& b) -> MLNamedOperands {
                 return {{"y", b.scatterElements(b.input("x", {kFloat32, {3, 3}}),
                                                 indices(b, kInt32, {1, 3}, {2, 0, 1}),
                                                 b.input("u", {kFloat32, {1, 3}}), {.axis = 0})}};
               }});
  c.push_back({"scatterND_i64",
               [=](MLGraphBuilder& b) -> MLNamedOperands {
                 return {{"y", b.scatterND(b.input("x", {kInt64, {4, 2}}),
                                           indices(b, kInt32, {2, 1}, {3, 1}),
                                           b.input("u", {kInt64, {2, 2}}))}};
               },
               -50, 50});
  // Resample, quantization, recurrent.
  c.push_back(unary(
      "resample2d_linear_f32", kFloat32, {1, 2, 3, 4}, [](MLGraphBuilder& b, const MLOperand& x) {
        return b.resample2d(x, {.mode = MLInterpolationMode::kLinear, .scales = {2.0f, 1.5f}});
      }));
  c.push_back(unary("resample2d_nearest_f16", kFloat16, {1, 3, 4, 2},
                    [](MLGraphBuilder& b, const MLOperand& x) {
                      return b.resample2d(x, {.sizes = {7, 5}, .axes = {1, 2}});
                    }));
  c.push_back({"dequantizeLinear_blockwise_i8",
               [](MLGraphBuilder& b) -> MLNamedOperands {
                 MLOperand x = b.input("x", {kInt8, {4, 6}});
                 MLOperand scale = b.input("s", {kFloat32, {2, 3}});
                 MLOperand zero = b.input("z", {kInt8, {2, 3}});
                 return {{"y", b.dequantizeLinear(x, scale, zero)}};
               },
               -20, 20});
  c.push_back(
      {"quantizeLinear_u8", [](MLGraphBuilder& b) -> MLNamedOperands {
         MLOperand x = b.input("x", {kFloat32, {3, 4}});
         MLOperand scale = b.constant(kFloat32, 0.05);
         MLOperand zero = b.constant(kUint8, 128);
         return {{"y", b.quantizeLinear(x, b.reshape(scale, {1, 1}), b.reshape(zero, {1, 1}))}};
       }});
  c.push_back({"lstm_f32",
               [](MLGraphBuilder& b) -> MLNamedOperands {
                 MLOperand x = b.input("x", {kFloat32, {3, 2, 4}});
                 MLOperand w = b.input("w", {kFloat32, {2, 12, 4}});
                 MLOperand r = b.input("r", {kFloat32, {2, 12, 3}});
                 MLOperand bias = b.input("bias", {kFloat32, {2, 12}});
                 MLOperand peep = b.input("peep", {kFloat32, {2, 9}});
                 auto outs = b.lstm(x, w, r, 3, 3,
                                    {.bias = bias,
                                     .peepholeWeight = peep,
                                     .returnSequence = true,
                                     .direction = MLRecurrentNetworkDirection::kBoth});
                 return {{"h", outs[0]}, {"c", outs[1]}, {"seq", outs[2]}};
               },
               -1, 1, 1e-4});
  c.push_back(
      {"gru_f32",
       [](MLGraphBuilder& b) -> MLNamedOperands {
         MLOperand x = b.input("x", {kFloat32, {2, 2, 3}});
         MLOperand w = b.input("w", {kFloat32, {1, 12, 3}});
         MLOperand r = b.input("r", {kFloat32, {1, 12, 4}});
         MLOperand h0 = b.input("h0", {kFloat32, {1, 2, 4}});
         auto outs = b.gru(
             x, w, r, 2, 4,
             {.initialHiddenState = h0, .resetAfter = false, .layout = MLGruWeightLayout::kRzn});
         return {{"h", outs[0]}};
       },
       -1, 1, 1e-4});
  return c;
}

}  // namespace

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = make_cases();
  return cases;
}

}  // namespace cppnn::testing
