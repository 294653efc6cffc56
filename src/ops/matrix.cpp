// Matrix products (webnn-spec.md §2 rows 52 and 63): gemm (2-D, optional transposes and an added
// c) and matmul (batched, with bidirectionally broadcast batch dimensions).
#include "src/ops/infer.h"
#include "src/ops/op_limits.h"
#include "src/ops/shape_utils.h"

namespace cppnn {
namespace {
using namespace dt;
}  // namespace

// gemm: alpha·A·B + beta·C with optionally transposed A and B (row 52).
const OpLimits limits_gemm{
    {{"a", kFloat, kFloat, 2, 2}, {"b", 0, 0, 2, 2, 0}, {"c", 0, 0, 0, 2, 0, true}},
    {{"output", kFloat, kFloat, 2, 2}}};
Result<OutputDescs> infer_gemm(const InferInput& in, const AttrsOf<OpType::kGemm>& attrs) {
  const auto& options = attrs.options;
  CPPNN_RETURN_IF_ERROR(check_finite(options.alpha, "alpha"));
  CPPNN_RETURN_IF_ERROR(check_finite(options.beta, "beta"));
  const Dims& a = in[0].shape;
  const Dims& b = in[1].shape;
  const uint32_t m = options.aTranspose ? a[1] : a[0];
  const uint32_t k_a = options.aTranspose ? a[0] : a[1];
  const uint32_t k_b = options.bTranspose ? b[1] : b[0];
  const uint32_t n = options.bTranspose ? b[0] : b[1];
  if (k_a != k_b)
    return type_error("the inner dimension of a ", dims_str(a), " (", k_a,
                      ") differs from that of b ", dims_str(b), " (", k_b, ")");
  const Dims output{m, n};
  if (const MLOperandDescriptor* c = in.optional(2);
      c && !is_unidirectionally_broadcastable(c->shape, output))
    return type_error("c shape ", dims_str(c->shape),
                      " is not unidirectionally broadcastable to the output shape ",
                      dims_str(output));
  return OutputDescs{{in[0].dataType, output}};
}

// matmul: batched matrix product of the last two dimensions (row 63).
const OpLimits limits_matmul{{{"a", kFloat, kFloat, 2}, {"b", 0, 0, 2, kRankN, 0}},
                             {{"output", kFloat, kFloat, 2}}};
Result<OutputDescs> infer_matmul(const InferInput& in, const AttrsOf<OpType::kMatmul>&) {
  const Dims& a = in[0].shape;
  const Dims& b = in[1].shape;
  const uint32_t cols_a = a[a.size() - 1];
  const uint32_t rows_b = b[b.size() - 2];
  if (cols_a != rows_b)
    return type_error("the columns of a ", dims_str(a), " (", cols_a,
                      ") differ from the rows of b ", dims_str(b), " (", rows_b, ")");
  auto batch = broadcast_bidirectional(Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
  if (!batch)
    return type_error("the batch dimensions of a ", dims_str(a), " and b ", dims_str(b),
                      " are not broadcastable");
  Dims output = std::move(*batch);
  output.push_back(a[a.size() - 2]);
  output.push_back(b[b.size() - 1]);
  return OutputDescs{{in[0].dataType, std::move(output)}};
}

}  // namespace cppnn
