// CoreML lowering of the matrix products (see lower.h; webnn-spec.md §2 rows 52 and 63), float32
// and float16. matmul is MIL matmul (numpy broadcasting of the batch dimensions; WebNN's operands
// are rank >= 2, so MIL's 1-D promotion never applies). gemm is a MIL matmul with its
// transpose_x/transpose_y flags for aTranspose/bTranspose, then α and β·c as elementwise ops, as
// the shared decomposition (src/passes/decompose/matrix.cpp) writes it: α and β are cast to the
// input type first (§3.6); a plain product stays one matmul in the input type, anything more is
// computed in float32 for float16 and cast back; α = 1 is skipped, β·c is added whenever c is
// given (0·Inf is NaN in the reference too).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cppnn/errors.h"
#include "src/export/coreml/lower.h"
#include "src/export/coreml/lower_util.h"

namespace cppnn::coreml_export {
namespace {

// Checks that the op computes in a float type (gemm and matmul take float32/float16).
void require_float(const Emitter& e, const Operation& op) {
  const mil::DataType t = e.mil_type(op.inputs.at(0)).type;
  if (t != mil::FLOAT32 && t != mil::FLOAT16)
    throw NotSupportedError("input must be float32 or float16");
}

}  // namespace

bool lowers_matrix(const Graph&, const Operation&) {
  return true;
}

// gemm (row 52): y = α·A'·B' + β·C with A' = aᵀ (transpose_x) when aTranspose, B' = bᵀ
// (transpose_y) when bTranspose and c (optional) broadcast to [M, N] by MIL's add.
void lower_gemm(Emitter& e, const Operation& op, const AttrsOf<OpType::kGemm>& attrs) {
  require_float(e, op);
  const MLGemmOptions& o = attrs.options;
  const MLOperandDataType webnn_type = e.type(op.inputs[0]);
  const MilType out = out_type(e, op);
  const double alpha = MLNumber(o.alpha).cast_to_double(webnn_type);
  const double beta = MLNumber(o.beta).cast_to_double(webnn_type);
  const bool has_c = has(op, 2), scaled = alpha != 1.0;
  const mil::DataType compute = !has_c && !scaled ? out.type : mil::FLOAT32;
  const MilType compute_type{compute, out.shape};
  // The last op writes the output, directly or through a cast back to float16.
  auto emit_last = [&](std::string_view type, std::vector<Param> params) {
    if (compute == out.type) {
      e.op_to(type, std::move(params), op.outputs[0]);
      return;
    }
    const std::string v = e.op(type, std::move(params), compute_type);
    e.op_to("cast", {{"x", v}, {"dtype", e.const_string(mil_dtype_name(out.type))}}, op.outputs[0]);
  };
  std::vector<Param> product{{"x", e.cast(in(e, op, 0), compute)},
                             {"y", e.cast(in(e, op, 1), compute)}};
  if (o.aTranspose) product.push_back({"transpose_x", e.const_bool(true)});
  if (o.bTranspose) product.push_back({"transpose_y", e.const_bool(true)});
  if (!scaled && !has_c) {
    emit_last("matmul", std::move(product));
    return;
  }
  std::string y = e.op("matmul", std::move(product), compute_type);
  if (scaled) {
    std::vector<Param> times{{"x", y}, {"y", e.const_scalar(compute, alpha)}};
    if (!has_c) {
      emit_last("mul", std::move(times));
      return;
    }
    y = e.op("mul", std::move(times), compute_type);
  }
  std::string term = e.cast(in(e, op, 2), compute);
  if (beta != 1.0)
    term = e.op("mul", {{"x", term}, {"y", e.const_scalar(compute, beta)}},
                MilType{compute, e.type_of(term).shape});
  emit_last("add", {{"x", y}, {"y", term}});
}

// matmul (row 63): MIL matmul, the batch dimensions broadcast like numpy.
void lower_matmul(Emitter& e, const Operation& op, const AttrsOf<OpType::kMatmul>&) {
  require_float(e, op);
  e.op_to("matmul", {{"x", in(e, op, 0)}, {"y", in(e, op, 1)}}, op.outputs[0]);
}

}  // namespace cppnn::coreml_export
