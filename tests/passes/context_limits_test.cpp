// A context's limits come from its backend's descriptor (src/passes/context_limits.h): the builder
// rejects what the backend cannot run at the call with TypeError, opSupportLimits() says so, and
// ops without a native form are reported supported when their decomposition is.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cppnn/webnn.h"
#include "src/backends/reference/reference_backend.h"
#include "src/backends/selection.h"

namespace cppnn {
namespace {

using enum MLOperandDataType;

// A test backend on the reference kernels with `descriptor`.
class DescribedBackend final : public Backend {
 public:
  explicit DescribedBackend(BackendDescriptor d) : d_(std::move(d)) {}
  const BackendDescriptor& descriptor() const override { return d_; }
  std::unique_ptr<CompiledGraph> compile(std::shared_ptr<const Graph> graph) override {
    for (const Operation& op : graph->operations)
      if (!d_.fits_natively(*graph, op))
        throw OperationError(std::string(op_name(op.type)) + " reached compile() non-native");
    return make_reference_plan(std::move(graph));
  }

 private:
  BackendDescriptor d_;
};

// Registers a backend named `name` with `d` while the test runs.
ScopedTestBackend register_backend(const std::string& name, const BackendDescriptor& d) {
  return ScopedTestBackend(
      name, [d](const MLContextOptions&) { return std::make_unique<DescribedBackend>(d); });
}

bool lists(const MLTensorLimits& l, MLOperandDataType t) {
  return std::find(l.dataTypes.begin(), l.dataTypes.end(), t) != l.dataTypes.end();
}

BackendDescriptor without_uint64() {
  BackendDescriptor d = BackendDescriptor::with_all_ops("no-uint64");
  d.remove_data_types(mask_of(kUint64));
  return d;
}

TEST(ContextLimits, BackendWithoutUint64RejectsAUint64AddAtTheCall) {
  ScopedTestBackend registered = register_backend("no-uint64", without_uint64());
  MLContext context = MLContext::create({.backend = "no-uint64"});
  const MLOpSupportLimits limits = context.opSupportLimits();
  EXPECT_FALSE(lists(limits.op("add")["a"], kUint64));
  EXPECT_FALSE(lists(limits.op("add")["b"], kUint64));
  EXPECT_TRUE(lists(limits.op("add")["a"], kInt64));
  EXPECT_FALSE(lists(limits.input, kUint64));

  // The reference backend takes the same call.
  MLGraphBuilder ref_builder(MLContext::create({.backend = "reference"}));
  MLOperand ra = ref_builder.constant(kUint64, 1);
  EXPECT_NO_THROW(ref_builder.add(ra, ra));

  MLGraphBuilder builder(context);
  MLOperand x = builder.input("x", {kInt64, {2}});
  EXPECT_NO_THROW(builder.add(x, x));
  try {
    builder.input("y", {kUint64, {2}});
    FAIL() << "expected TypeError for a uint64 input";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("no-uint64 backend"), std::string::npos) << e.what();
  }
  try {
    builder.constant(kUint64, 3);
    FAIL() << "expected TypeError for a uint64 constant";
  } catch (const TypeError&) {
  }
}

TEST(ContextLimits, NarrowerOpLimitsAreATypeErrorNamingTheBackend) {
  // Tensors may be uint64, but add may not: the check is the op's, at the call.
  BackendDescriptor d = without_uint64();
  d.name = "no-uint64-add";
  d.tensor_types |= mask_of(kUint64);
  ScopedTestBackend registered = register_backend("no-uint64-add", d);
  MLGraphBuilder builder(MLContext::create({.backend = "no-uint64-add"}));
  MLOperand a = builder.input("a", {kUint64, {3}});
  try {
    builder.add(a, a, {.label = "sum"});
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("add [sum]"), std::string::npos) << m;
    EXPECT_NE(m.find("uint64"), std::string::npos) << m;
    EXPECT_NE(m.find("no-uint64-add backend"), std::string::npos) << m;
  }
}

TEST(ContextLimits, DecomposedOpsAreSupportedAndRunOnlyNativeOps) {
  // gelu and softmax have no native form on the minimal backend: their decompositions run.
  MLContext context = MLContext::create({.backend = "minimal"});
  const MLOpSupportLimits limits = context.opSupportLimits();
  EXPECT_TRUE(lists(limits.op("add")["a"], kUint64));
  EXPECT_TRUE(lists(limits.op("conv2d")["input"], kFloat32));
}

TEST(ContextLimits, AnOpWithoutNativeFormOrUsableDecompositionIsATypeError) {
  // Only add and sub: conv2d has no decomposition, so it is not supported at all.
  ScopedTestBackend registered = register_backend(
      "add-sub-only", BackendDescriptor::with_ops("add-sub-only", {OpType::kAdd, OpType::kSub}));
  MLContext context = MLContext::create({.backend = "add-sub-only"});
  const MLOpSupportLimits limits = context.opSupportLimits();
  EXPECT_TRUE(limits.op("conv2d")["input"].dataTypes.empty());
  EXPECT_FALSE(limits.op("add")["a"].dataTypes.empty());
  MLGraphBuilder builder(context);
  MLOperand x = builder.input("x", {kFloat32, {1, 1, 3, 3}});
  const float one = 1;
  MLOperand w =
      builder.constant({kFloat32, {1, 1, 1, 1}}, std::as_bytes(std::span<const float>(&one, 1)));
  EXPECT_THROW(builder.conv2d(x, w, {.label = "c"}), TypeError);
  MLOperand y = builder.sub(builder.add(x, x), x);
  MLGraph graph = builder.build({{"y", y}});
  EXPECT_EQ(graph.outputs().at("y").shape, (std::vector<uint32_t>{1, 1, 3, 3}));
}

TEST(ContextLimits, TheDefaultBackendsKeepTheSpecLimits) {
  for (const std::string& name : compiled_backends()) {
    const MLOpSupportLimits limits = MLContext::create({.backend = name}).opSupportLimits();
    EXPECT_TRUE(lists(limits.op("add")["a"], kUint64)) << name;
    EXPECT_TRUE(lists(limits.op("gelu")["input"], kFloat16)) << name;
  }
}

TEST(ContextLimits, TestOnlyBackendsAreNeverTheDefault) {
  const std::vector<std::string> all = compiled_backends(true);
  EXPECT_NE(std::find(all.begin(), all.end(), "minimal"), all.end());
  const std::vector<std::string> product = compiled_backends();
  EXPECT_EQ(std::find(product.begin(), product.end(), "minimal"), product.end());
  EXPECT_NE(MLContext::create().backend(), "minimal");
}

}  // namespace
}  // namespace cppnn
