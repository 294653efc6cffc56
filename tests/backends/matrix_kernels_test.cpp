// Reference kernels of gemm and matmul (§2 rows 52, 63).
#include <cstdint>
#include <vector>

#include "tests/backends/ref_test_fixture.h"

namespace cppnn::testing {
namespace {

using RefMatrixTest = RefGraphTest;

// ---- matmul -------------------------------------------------------------------------------------

TEST_F(RefMatrixTest, Matmul2D) {
  const MLOperand a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const MLOperand b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  ExpectFloats(run1<float>(builder.matmul(a, b)), {58, 64, 139, 154});
}

// Batch dims [2, 1] and [3] broadcast to [2, 3].
TEST_F(RefMatrixTest, MatmulBroadcastsBatchDims) {
  std::vector<float> av(2 * 1 * 2 * 2), bv(3 * 2 * 1);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<float>(i + 1);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<float>(i) - 2;
  const MLOperand y = builder.matmul(f32({2, 1, 2, 2}, av), f32({3, 2, 1}, bv));
  EXPECT_EQ(y.shape(), (std::vector<uint32_t>{2, 3, 2, 1}));
  std::vector<float> expected;
  for (size_t p = 0; p < 2; ++p)
    for (size_t q = 0; q < 3; ++q)
      for (size_t i = 0; i < 2; ++i)
        expected.push_back(av[p * 4 + i * 2] * bv[q * 2] + av[p * 4 + i * 2 + 1] * bv[q * 2 + 1]);
  ExpectFloats(run1<float>(y), expected);
}

// A rank-2 b is shared by every batch of a.
TEST_F(RefMatrixTest, MatmulRank2RightHandSide) {
  const MLOperand a = f32({2, 1, 2}, {1, 2, 3, 4});
  const MLOperand b = f32({2, 2}, {1, 0, 0, -1});
  ExpectFloats(run1<float>(builder.matmul(a, b)), {1, -2, 3, -4});
}

// The dot product accumulates in double: 2048 + 1 + 1 = 2050 in float16 (an fp16 accumulator
// would stay at 2048).
TEST_F(RefMatrixTest, MatmulFloat16AccumulatesInDouble) {
  const MLOperand a = f16_input({1, 3}, {2048, 1, 1});
  const MLOperand b = f16_input({3, 1}, {1, 1, 1});
  ExpectFloats(run_f16(builder.matmul(a, b)), {2050});
}

// ---- gemm ---------------------------------------------------------------------------------------

// A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]]: A·B = [[58, 64], [139, 154]].
class RefGemmTest : public RefGraphTest {
 protected:
  MLOperand a() { return f32({2, 3}, {1, 2, 3, 4, 5, 6}); }
  MLOperand b() { return f32({3, 2}, {7, 8, 9, 10, 11, 12}); }
};

TEST_F(RefGemmTest, DefaultOptions) {
  ExpectFloats(run1<float>(builder.gemm(a(), b())), {58, 64, 139, 154});
}

TEST_F(RefGemmTest, AlphaBetaAndBroadcastC) {
  const auto r = run(
      {{"full", builder.gemm(a(), b(), {.c = f32({2, 2}, {1, 2, 3, 4}), .alpha = 2, .beta = 3})},
       {"row", builder.gemm(a(), b(), {.c = f32({2}, {1, 2}), .beta = -1})},
       {"column", builder.gemm(a(), b(), {.c = f32({2, 1}, {10, 20})})},
       {"scalar", builder.gemm(a(), b(), {.c = f32({}, {0.5}), .alpha = 0.5})},
       {"betaOnly", builder.gemm(a(), b(), {.beta = 5})}});
  ExpectFloats(as<float>(r.at("full")), {119, 134, 287, 320});
  ExpectFloats(as<float>(r.at("row")), {57, 62, 138, 152});
  ExpectFloats(as<float>(r.at("column")), {68, 74, 159, 174});
  ExpectFloats(as<float>(r.at("scalar")), {29.5, 32.5, 70, 77.5});
  ExpectFloats(as<float>(r.at("betaOnly")), {58, 64, 139, 154});  // no c: β has no effect
}

// aTranspose and bTranspose read the stored matrices transposed.
TEST_F(RefGemmTest, Transposes) {
  const MLOperand at = f32({3, 2}, {1, 4, 2, 5, 3, 6});     // Aᵀ
  const MLOperand bt = f32({2, 3}, {7, 9, 11, 8, 10, 12});  // Bᵀ
  const auto r = run({{"a", builder.gemm(at, b(), {.aTranspose = true})},
                      {"b", builder.gemm(a(), bt, {.bTranspose = true})},
                      {"both", builder.gemm(at, bt, {.aTranspose = true, .bTranspose = true})}});
  for (const char* n : {"a", "b", "both"}) {
    SCOPED_TRACE(n);
    ExpectFloats(as<float>(r.at(n)), {58, 64, 139, 154});
  }
}

// float16: α is cast to float16 (§3.6) and the result rounds once.
TEST_F(RefGemmTest, Float16) {
  const MLOperand a16 = f16_input({1, 3}, {2048, 1, 1});
  const MLOperand b16 = f16_input({3, 1}, {1, 1, 1});
  const MLOperand c16 = f16_input({1}, {0.5});
  const auto r = run({{"sum", builder.gemm(a16, b16)},
                      {"alpha", builder.gemm(a16, b16, {.c = c16, .alpha = 0.1, .beta = 2})}});
  EXPECT_EQ(f16(as<uint16_t>(r.at("sum"))[0]), 2050);
  const double alpha = f16(h16(0.1));
  EXPECT_EQ(f16(as<uint16_t>(r.at("alpha"))[0]), f16(h16(alpha * 2050 + 2 * 0.5)));
}

}  // namespace
}  // namespace cppnn::testing
