// MLContext creation from hints, backend selection errors, and loss (§1, §4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cppnn/webnn.h"
#include "src/ops/op_limits.h"

namespace cppnn {
namespace {

TEST(Context, CreatesWithDefaultsAndHints) {
  MLContext a = MLContext::create();
  EXPECT_FALSE(a.is_lost());
  EXPECT_FALSE(a.backend().empty());
  MLContext b =
      MLContext::create({.powerPreference = MLPowerPreference::kLowPower, .accelerated = false});
  EXPECT_FALSE(b.accelerated());
  EXPECT_FALSE(a == b);
}

TEST(Context, UnknownBackendListsTheCompiledOnes) {
  try {
    MLContext::create({.backend = "tpu-of-the-future"});
    FAIL() << "expected NotSupportedError";
  } catch (const NotSupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("available"), std::string::npos);
  }
}

TEST(Context, UnknownBackendNameIsNotSupportedAndNamesTheRequestAndTheBackends) {
  for (const char* name : {"tpu-of-the-future", "Reference", "reference ", "none"}) {
    try {
      MLContext::create({.backend = name});
      FAIL() << "expected NotSupportedError for " << name;
    } catch (const NotSupportedError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(std::string("\"") + name + "\""), std::string::npos) << message;
      EXPECT_NE(message.find("reference"), std::string::npos) << message;
      EXPECT_EQ(e.kind(), ErrorKind::kNotSupportedError);
    }
  }
}

TEST(Context, BackendNamedExplicitlyOrByTheEnvironment) {
  EXPECT_EQ(MLContext::create({.backend = "reference"}).backend(), "reference");
  const char* saved = std::getenv("CPPNN_BACKEND");
  const std::string saved_value = saved ? saved : "";
  ::setenv("CPPNN_BACKEND", "no-such-backend", 1);
  EXPECT_THROW(MLContext::create(), NotSupportedError);
  // An explicit name wins over the environment.
  EXPECT_EQ(MLContext::create({.backend = "reference"}).backend(), "reference");
  ::setenv("CPPNN_BACKEND", "reference", 1);
  EXPECT_EQ(MLContext::create().backend(), "reference");
  if (saved)
    ::setenv("CPPNN_BACKEND", saved_value.c_str(), 1);
  else
    ::unsetenv("CPPNN_BACKEND");
}

TEST(Context, ReferenceBackendSupportLimits) {
  MLContext c = MLContext::create({.backend = "reference"});
  EXPECT_FALSE(c.accelerated());
  const MLOpSupportLimits s = c.opSupportLimits();
  EXPECT_EQ(s.preferredInputLayout, MLInputOperandLayout::kNchw);
  EXPECT_EQ(s.maxTensorByteLength, kMaxTensorByteLength);
  // Graph inputs, constants and outputs: the 8 spec types, ranks 0 to the implementation's max.
  const std::vector<MLOperandDataType> all = {
      MLOperandDataType::kFloat32, MLOperandDataType::kFloat16, MLOperandDataType::kInt32,
      MLOperandDataType::kUint32,  MLOperandDataType::kInt64,   MLOperandDataType::kUint64,
      MLOperandDataType::kInt8,    MLOperandDataType::kUint8};
  for (const MLTensorLimits* l : {&s.input, &s.constant, &s.output}) {
    std::vector<MLOperandDataType> types = l->dataTypes;
    std::sort(types.begin(), types.end());
    std::vector<MLOperandDataType> want = all;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(types, want);
    EXPECT_EQ(l->rankRange, (MLRankRange{0, kMaxRank}));
  }
  // Every op and role: the reference backend supports what the spec allows, which includes the
  // required types (#910), within the implementation's rank limit.
  ASSERT_EQ(s.operators.size(), kOpCount);
  for (size_t i = 0; i < kOpCount; ++i) {
    const auto op = static_cast<OpType>(i);
    const OpLimits& spec = op_limits(op);
    const MLOpLimits& got = s.op(op);
    EXPECT_EQ(got.op, op);
    ASSERT_EQ(got.roles.size(), spec.inputs.size() + spec.outputs.size()) << op_name(op);
    for (size_t r = 0; r < got.roles.size(); ++r) {
      const RoleLimits& want =
          r < spec.inputs.size() ? spec.inputs[r] : spec.outputs[r - spec.inputs.size()];
      const auto& [name, limits] = got.roles[r];
      const std::string where = std::string(op_name(op)) + "." + name;
      EXPECT_EQ(name, want.name) << where;
      EXPECT_FALSE(limits.dataTypes.empty()) << where;
      for (MLOperandDataType t : all) {
        if (!mask_has(want.required, t)) continue;
        EXPECT_NE(std::find(limits.dataTypes.begin(), limits.dataTypes.end(), t),
                  limits.dataTypes.end())
            << where << " lacks required " << data_type_name(t);
      }
      EXPECT_EQ(limits.rankRange.min, want.min_rank) << where;
      EXPECT_EQ(limits.rankRange.max,
                want.max_rank == kRankN ? kMaxRank : static_cast<uint32_t>(want.max_rank))
          << where;
    }
  }
  // Spot checks against the spec table (§2).
  using enum MLOperandDataType;
  EXPECT_EQ(s.op("add")["a"].dataTypes.size(), 8u);
  EXPECT_EQ(s.op("add")["output"].rankRange, (MLRankRange{0, kMaxRank}));
  EXPECT_EQ(s.op("greater")["output"].dataTypes, std::vector{kUint8});
  EXPECT_EQ(s.op("logicalAnd")["a"].dataTypes, std::vector{kUint8});
  EXPECT_EQ(s.op("isNaN")["a"].dataTypes, (std::vector{kFloat32, kFloat16}));
  EXPECT_EQ(s.op("conv2d")["input"].rankRange, (MLRankRange{4, 4}));
  EXPECT_EQ(s.op("conv2d")["input"].dataTypes, (std::vector{kFloat32, kFloat16}));
  // The same limits from every context of this backend.
  EXPECT_EQ(MLContext::create().opSupportLimits().to_json(), s.to_json());
}

TEST(Context, DestroyLosesTheContextOnce) {
  MLContext c = MLContext::create();
  c.destroy();
  ASSERT_TRUE(c.lost_info().has_value());
  std::string message = c.lost_info()->message;
  c.destroy();  // no-op
  EXPECT_EQ(c.lost_info()->message, message);
}

TEST(Context, GraphDestroyIsIdempotent) {
  MLContext c = MLContext::create();
  MLGraphBuilder b(c);
  MLOperand x = b.input("x", {MLOperandDataType::kFloat32, {1}});
  MLGraph g = b.build({{"y", b.relu(x)}});
  EXPECT_FALSE(g.is_destroyed());
  g.destroy();
  g.destroy();
  EXPECT_TRUE(g.is_destroyed());
}

}  // namespace
}  // namespace cppnn
