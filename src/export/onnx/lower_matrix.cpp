// ONNX lowering of the matrix ops (see lower.h): gemm and matmul (webnn-spec.md §2 rows 52 and
// 63), each one ONNX node with the same semantics (Gemm's C broadcasts unidirectionally to
// [M, N]; MatMul broadcasts the batch dimensions like numpy).
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/onnx/lower.h"
#include "src/export/onnx/lower_reduction_util.h"
#include "src/export/onnx/lower_util.h"

namespace cppnn::onnx_export {

// gemm: y = α·A'·B' + β·C (row 52). α and β are cast to the data type first (§3.6); only
// non-default attributes are written.
void lower_gemm(Emitter& e, const Operation& op, const AttrsOf<OpType::kGemm>& attrs) {
  const MLGemmOptions& o = attrs.options;
  const MLOperandDataType t = e.type(op.inputs[0]);
  std::vector<Attr> a;
  const float alpha = float_attr(o.alpha, t), beta = float_attr(o.beta, t);
  if (alpha != 1.0f) a.push_back({"alpha", alpha});
  if (has(op, 2) && beta != 1.0f) a.push_back({"beta", beta});
  if (o.aTranspose) a.push_back({"transA", int64_t{1}});
  if (o.bTranspose) a.push_back({"transB", int64_t{1}});
  e.node_to("Gemm", {in(e, op, 0), in(e, op, 1), in(e, op, 2)}, {out(e, op)}, std::move(a));
}

// matmul: the batched matrix product (row 63).
void lower_matmul(Emitter& e, const Operation& op, const AttrsOf<OpType::kMatmul>&) {
  e.node_to("MatMul", {in(e, op, 0), in(e, op, 1)}, {out(e, op)});
}

}  // namespace cppnn::onnx_export
