// MLContext creation from hints, backend selection errors, and loss (§1, §4).
#include <gtest/gtest.h>

#include <cstdlib>

#include "cppnn/webnn.h"

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
