// The option dictionaries of every MLGraphBuilder operation (webnn-spec.md §2), with the spec's
// defaults as member initializers. `label` (MLOperatorOptions) is the last member of each, so
// designated initializers may omit it. Each struct is reflected (CPPNN_REFLECT) for generic
// decoding, printing and hashing; its field names are the IDL member names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/enums.h"
#include "cppnn/number.h"
#include "cppnn/operand.h"
#include "cppnn/optional_list.h"
#include "cppnn/reflect.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// MLOperatorOptions: ops whose only option is the label.
struct MLOperatorOptions {
  std::string label;
};
CPPNN_REFLECT(MLOperatorOptions, label)

// argMin/argMax (§2 rows 1-2).
struct MLArgMinMaxOptions {
  bool keepDimensions = false;
  MLOperandDataType outputDataType = MLOperandDataType::kInt32;
  std::string label;
};
CPPNN_REFLECT(MLArgMinMaxOptions, keepDimensions, outputDataType, label)

// batchNormalization (§2 row 3).
struct MLBatchNormalizationOptions {
  std::optional<MLOperand> scale;
  std::optional<MLOperand> bias;
  uint32_t axis = 1;
  double epsilon = 1e-5;
  std::string label;
};
CPPNN_REFLECT(MLBatchNormalizationOptions, scale, bias, axis, epsilon, label)

// clamp (§2 row 5; defaults per erratum §6.1: absent bounds mean -Inf/+Inf).
struct MLClampOptions {
  std::optional<MLNumber> minValue;
  std::optional<MLNumber> maxValue;
  std::string label;
};
CPPNN_REFLECT(MLClampOptions, minValue, maxValue, label)

// conv2d (§2 row 7). Absent lists take the spec defaults ([0,0,0,0], [1,1], [1,1]).
struct MLConv2dOptions {
  OptionalList<uint32_t> padding;
  OptionalList<uint32_t> strides;
  OptionalList<uint32_t> dilations;
  uint32_t groups = 1;
  MLInputOperandLayout inputLayout = MLInputOperandLayout::kNchw;
  MLConv2dFilterOperandLayout filterLayout = MLConv2dFilterOperandLayout::kOihw;
  std::optional<MLOperand> bias;
  std::string label;
};
CPPNN_REFLECT(MLConv2dOptions, padding, strides, dilations, groups, inputLayout, filterLayout, bias,
              label)

// convTranspose2d (§2 row 8).
struct MLConvTranspose2dOptions {
  OptionalList<uint32_t> padding;
  OptionalList<uint32_t> strides;
  OptionalList<uint32_t> dilations;
  OptionalList<uint32_t> outputPadding;
  OptionalList<uint32_t> outputSizes;
  uint32_t groups = 1;
  MLInputOperandLayout inputLayout = MLInputOperandLayout::kNchw;
  MLConvTranspose2dFilterOperandLayout filterLayout = MLConvTranspose2dFilterOperandLayout::kIohw;
  std::optional<MLOperand> bias;
  std::string label;
};
CPPNN_REFLECT(MLConvTranspose2dOptions, padding, strides, dilations, outputPadding, outputSizes,
              groups, inputLayout, filterLayout, bias, label)

// cumulativeSum (§2 row 9).
struct MLCumulativeSumOptions {
  bool exclusive = false;
  bool reversed = false;
  std::string label;
};
CPPNN_REFLECT(MLCumulativeSumOptions, exclusive, reversed, label)

// elu (§2 row 46).
struct MLEluOptions {
  double alpha = 1.0;
  std::string label;
};
CPPNN_REFLECT(MLEluOptions, alpha, label)

// gather and gatherElements (§2 rows 48-49).
struct MLGatherOptions {
  uint32_t axis = 0;
  std::string label;
};
CPPNN_REFLECT(MLGatherOptions, axis, label)

// gemm (§2 row 52).
struct MLGemmOptions {
  std::optional<MLOperand> c;
  double alpha = 1.0;
  double beta = 1.0;
  bool aTranspose = false;
  bool bTranspose = false;
  std::string label;
};
CPPNN_REFLECT(MLGemmOptions, c, alpha, beta, aTranspose, bTranspose, label)

// gru (§2 row 53). Absent activations mean [sigmoid, tanh].
struct MLGruOptions {
  std::optional<MLOperand> bias;
  std::optional<MLOperand> recurrentBias;
  std::optional<MLOperand> initialHiddenState;
  bool resetAfter = true;
  bool returnSequence = false;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kForward;
  MLGruWeightLayout layout = MLGruWeightLayout::kZrn;
  OptionalList<MLRecurrentNetworkActivation> activations;
  std::string label;
};
CPPNN_REFLECT(MLGruOptions, bias, recurrentBias, initialHiddenState, resetAfter, returnSequence,
              direction, layout, activations, label)

// gruCell (§2 row 54).
struct MLGruCellOptions {
  std::optional<MLOperand> bias;
  std::optional<MLOperand> recurrentBias;
  bool resetAfter = true;
  MLGruWeightLayout layout = MLGruWeightLayout::kZrn;
  OptionalList<MLRecurrentNetworkActivation> activations;
  std::string label;
};
CPPNN_REFLECT(MLGruCellOptions, bias, recurrentBias, resetAfter, layout, activations, label)

// hardSigmoid (§2 row 55).
struct MLHardSigmoidOptions {
  double alpha = 0.2;
  double beta = 0.5;
  std::string label;
};
CPPNN_REFLECT(MLHardSigmoidOptions, alpha, beta, label)

// instanceNormalization (§2 row 57).
struct MLInstanceNormalizationOptions {
  std::optional<MLOperand> scale;
  std::optional<MLOperand> bias;
  double epsilon = 1e-5;
  MLInputOperandLayout layout = MLInputOperandLayout::kNchw;
  std::string label;
};
CPPNN_REFLECT(MLInstanceNormalizationOptions, scale, bias, epsilon, layout, label)

// layerNormalization (§2 row 58). Absent axes mean [1..rank-1].
struct MLLayerNormalizationOptions {
  std::optional<MLOperand> scale;
  std::optional<MLOperand> bias;
  OptionalList<uint32_t> axes;
  double epsilon = 1e-5;
  std::string label;
};
CPPNN_REFLECT(MLLayerNormalizationOptions, scale, bias, axes, epsilon, label)

// leakyRelu (§2 row 59).
struct MLLeakyReluOptions {
  double alpha = 0.01;
  std::string label;
};
CPPNN_REFLECT(MLLeakyReluOptions, alpha, label)

// linear (§2 row 60).
struct MLLinearOptions {
  double alpha = 1.0;
  double beta = 0.0;
  std::string label;
};
CPPNN_REFLECT(MLLinearOptions, alpha, beta, label)

// lstm (§2 row 61). Absent activations mean [sigmoid, tanh, tanh].
struct MLLstmOptions {
  std::optional<MLOperand> bias;
  std::optional<MLOperand> recurrentBias;
  std::optional<MLOperand> peepholeWeight;
  std::optional<MLOperand> initialHiddenState;
  std::optional<MLOperand> initialCellState;
  bool returnSequence = false;
  MLRecurrentNetworkDirection direction = MLRecurrentNetworkDirection::kForward;
  MLLstmWeightLayout layout = MLLstmWeightLayout::kIofg;
  OptionalList<MLRecurrentNetworkActivation> activations;
  std::string label;
};
CPPNN_REFLECT(MLLstmOptions, bias, recurrentBias, peepholeWeight, initialHiddenState,
              initialCellState, returnSequence, direction, layout, activations, label)

// lstmCell (§2 row 62).
struct MLLstmCellOptions {
  std::optional<MLOperand> bias;
  std::optional<MLOperand> recurrentBias;
  std::optional<MLOperand> peepholeWeight;
  MLLstmWeightLayout layout = MLLstmWeightLayout::kIofg;
  OptionalList<MLRecurrentNetworkActivation> activations;
  std::string label;
};
CPPNN_REFLECT(MLLstmCellOptions, bias, recurrentBias, peepholeWeight, layout, activations, label)

// pad (§2 row 64).
struct MLPadOptions {
  MLPaddingMode mode = MLPaddingMode::kConstant;
  MLNumber value = 0.0;
  std::string label;
};
CPPNN_REFLECT(MLPadOptions, mode, value, label)

// averagePool2d, l2Pool2d, maxPool2d (§2 rows 65-67). Absent windowDimensions mean the whole
// spatial extent of the input.
struct MLPool2dOptions {
  OptionalList<uint32_t> windowDimensions;
  OptionalList<uint32_t> padding;
  OptionalList<uint32_t> strides;
  OptionalList<uint32_t> dilations;
  MLInputOperandLayout layout = MLInputOperandLayout::kNchw;
  MLRoundingType outputShapeRounding = MLRoundingType::kFloor;
  OptionalList<uint32_t> outputSizes;
  std::string label;
};
CPPNN_REFLECT(MLPool2dOptions, windowDimensions, padding, strides, dilations, layout,
              outputShapeRounding, outputSizes, label)

// The 10 reductions (§2 rows 69-78). Absent axes reduce every dimension; [] reduces none.
struct MLReduceOptions {
  OptionalList<uint32_t> axes;
  bool keepDimensions = false;
  std::string label;
};
CPPNN_REFLECT(MLReduceOptions, axes, keepDimensions, label)

// resample2d (§2 row 80). Absent scales mean [1,1]; absent axes mean [2,3].
struct MLResample2dOptions {
  MLInterpolationMode mode = MLInterpolationMode::kNearestNeighbor;
  OptionalList<float> scales;
  OptionalList<uint32_t> sizes;
  OptionalList<uint32_t> axes;
  std::string label;
};
CPPNN_REFLECT(MLResample2dOptions, mode, scales, sizes, axes, label)

// reverse (§2 row 82). Absent axes reverse every dimension.
struct MLReverseOptions {
  OptionalList<uint32_t> axes;
  std::string label;
};
CPPNN_REFLECT(MLReverseOptions, axes, label)

// scatterElements (§2 row 83).
struct MLScatterOptions {
  uint32_t axis = 0;
  std::string label;
};
CPPNN_REFLECT(MLScatterOptions, axis, label)

// slice (§2 row 86). Absent strides mean all 1.
struct MLSliceOptions {
  OptionalList<uint32_t> strides;
  std::string label;
};
CPPNN_REFLECT(MLSliceOptions, strides, label)

// split (§2 row 90).
struct MLSplitOptions {
  uint32_t axis = 0;
  std::string label;
};
CPPNN_REFLECT(MLSplitOptions, axis, label)

// transpose (§2 row 93). Absent permutation reverses the dimensions.
struct MLTransposeOptions {
  OptionalList<uint32_t> permutation;
  std::string label;
};
CPPNN_REFLECT(MLTransposeOptions, permutation, label)

// triangular (§2 row 94).
struct MLTriangularOptions {
  bool upper = true;
  int32_t diagonal = 0;
  std::string label;
};
CPPNN_REFLECT(MLTriangularOptions, upper, diagonal, label)

}  // namespace cppnn

#pragma GCC visibility pop
