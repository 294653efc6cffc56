// Which conv2d, convTranspose2d, matmul and gemm cases the cpu backend's fast kernels take once
// the backend's passes have prepared the graph (src/backends/cpu/fast_kernels.cpp): data types,
// constant or runtime filters, layouts, fused activations, NHWC convolutions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/cpu_backend.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/ops/convolution_params.h"
#include "src/passes/pipeline.h"
#include "tests/backends/cpu_conv_case.h"
#include "tests/backends/cpu_product_checks.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using namespace product_checks;

// ---- which cases take the fast kernels ---------------------------------------------------------

// Prepares `y`'s graph for the cpu backend and compiles its last operation with the cpu kernels:
// nullopt when they do not take it.
std::optional<cpu::FastKernel> fast_kernel_of(MLGraphBuilder& b, const MLOperand& y,
                                              OpType expected) {
  auto graph = std::make_shared<const Graph>(b.pruned_graph({{"y", y}}));
  const std::unique_ptr<Backend> cpu = make_cpu_backend({});
  const std::shared_ptr<const Graph> prepared = passes::prepare_graph(cpu->descriptor(), graph);
  const Operation* op = nullptr;
  for (const Operation& o : prepared->operations)
    if (o.type == expected) op = &o;
  EXPECT_NE(op, nullptr) << "no " << int(expected) << " in the prepared graph";
  if (!op) return std::nullopt;
  cpu::CompileContext cc{*prepared, std::make_shared<cpu::ThreadPool>(1)};
  return cpu::compile_fast_kernel(cc, *op);
}

TEST(CpuConvFastPath, FastPathCases) {
  MLContext ref = testing::ref_context();
  std::mt19937 rng(9);
  auto conv = [&](uint32_t groups, Act act, bool constant_filter, MLInputOperandLayout layout) {
    MLGraphBuilder b(ref);
    ConvCase k;
    k.cin = 8;
    k.cout = 8;
    k.groups = groups;
    k.constant_filter = constant_filter;
    k.input_layout = layout;
    const ConvData d = conv_data(k, rng);
    return fast_kernel_of(b, apply_act(b, act, conv_operand(b, k, d)), OpType::kConv2d);
  };
  for (uint32_t groups : {1u, 2u, 4u}) {
    SCOPED_TRACE(groups);
    const auto k = conv(groups, Act::kRelu, true, kNchw);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(k->applies_activations);
    for (Act fused : {Act::kSigmoid, Act::kSilu}) {
      const auto k2 = conv(groups, fused, true, kNchw);
      ASSERT_TRUE(k2.has_value());
      EXPECT_TRUE(k2->applies_activations);
    }
    const auto tanh = conv(groups, Act::kTanh, true, kNchw);
    ASSERT_TRUE(tanh.has_value());
    EXPECT_FALSE(tanh->applies_activations);  // the reference kernel runs it after
  }
  EXPECT_FALSE(conv(2, Act::kNone, false, kNchw).has_value());

  {
    MLGraphBuilder b(ref);
    MLOperand x = b.input("x", {kF32, {1, 4, 5, 5}});
    const std::vector<float> w(4 * 3 * 9, 0.25f);
    MLConvTranspose2dOptions o;
    o.strides = std::vector<uint32_t>{2, 2};
    o.groups = 2;
    MLOperand y = b.clamp(b.convTranspose2d(x, b.constant({kF32, {4, 3, 3, 3}}, to_bytes(w)), o),
                          {.minValue = MLNumber(0.0), .maxValue = MLNumber(1.0)});
    const auto k = fast_kernel_of(b, y, OpType::kConvTranspose2d);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(k->applies_activations);
  }
  {
    MLGraphBuilder b(ref);
    MLOperand y = b.matmul(b.input("a", {kF32, {2, 1, 5, 7}}), b.input("b", {kF32, {3, 7, 4}}));
    const auto k = fast_kernel_of(b, b.relu(y), OpType::kMatmul);
    ASSERT_TRUE(k.has_value());
    EXPECT_TRUE(k->applies_activations);
  }
  {
    MLGraphBuilder b(ref);
    MLGemmOptions o;
    o.c = b.input("c", {kF32, {5, 1}});
    o.aTranspose = true;
    MLOperand y = b.gemm(b.input("a", {kF32, {7, 5}}), b.input("b", {kF32, {7, 4}}), o);
    const auto k = fast_kernel_of(b, y, OpType::kGemm);
    ASSERT_TRUE(k.has_value());
  }
  {  // float16 stays on the reference kernels
    MLGraphBuilder b(ref);
    MLOperand y = b.matmul(b.input("a", {MLOperandDataType::kFloat16, {5, 7}}),
                           b.input("b", {MLOperandDataType::kFloat16, {7, 4}}));
    EXPECT_FALSE(fast_kernel_of(b, y, OpType::kMatmul).has_value());
  }
}

// NHWC convolutions reach the cpu kernels too: the kernels take NCHW only, and the cpu backend
// (src/backends/cpu/cpu_backend.cpp, convolution.cpp) relies on the layout pass to put every
// convolution in NCHW.
TEST(CpuConvFastPath, NhwcConvolutionsTakeTheFastKernels) {
  MLContext ref = testing::ref_context();
  std::mt19937 rng(11);
  for (uint32_t groups : {1u, 2u}) {
    SCOPED_TRACE("conv2d nhwc groups " + std::to_string(groups));
    MLGraphBuilder b(ref);
    ConvCase k;
    k.cin = 8;
    k.cout = 8;
    k.groups = groups;
    k.input_layout = kNhwc;
    k.layout = MLConv2dFilterOperandLayout::kOhwi;
    const ConvData d = conv_data(k, rng);
    EXPECT_TRUE(fast_kernel_of(b, b.relu(conv_operand(b, k, d)), OpType::kConv2d).has_value());
  }
  {
    SCOPED_TRACE("convTranspose2d nhwc");
    MLGraphBuilder b(ref);
    MLOperand x = b.input("x", {kF32, {1, 5, 5, 4}});
    const std::vector<float> w(4 * 3 * 9, 0.25f);
    MLConvTranspose2dOptions o;
    o.strides = std::vector<uint32_t>{2, 2};
    o.inputLayout = kNhwc;
    o.filterLayout = MLConvTranspose2dFilterOperandLayout::kOhwi;
    MLOperand y = b.convTranspose2d(x, b.constant({kF32, {3, 3, 3, 4}}, to_bytes(w)), o);
    EXPECT_TRUE(fast_kernel_of(b, y, OpType::kConvTranspose2d).has_value());
  }
}

}  // namespace
}  // namespace cppnn
