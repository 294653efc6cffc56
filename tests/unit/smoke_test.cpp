#include <gtest/gtest.h>

#include "cppnn/webnn.h"

TEST(Smoke, AddBroadcast) {
  using namespace cppnn;
  MLGraphBuilder b(MLContext::create());
  auto x = b.input("x", {MLOperandDataType::kFloat32, {2, 3}});
  auto y = b.input("y", {MLOperandDataType::kFloat32, {3}});
  auto z = b.add(x, y);
  EXPECT_EQ(z.shape(), (std::vector<uint32_t>{2, 3}));
}
