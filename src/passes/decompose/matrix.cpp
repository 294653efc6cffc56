// Decompositions of the matrix ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). matmul is the
// primitive; gemm is built from it.
#include <vector>

#include "src/passes/decompose.h"
#include "src/passes/decompose/helpers.h"

namespace cppnn::passes {

namespace {

// gemm: α·A'·B' + β·C (spec emulation) with A' = aᵀ when aTranspose, B' = bᵀ when bTranspose and
// c (optional) broadcast by add. α and β are cast to the input type first, as the reference
// kernel holds them (§3.6); a plain product stays one matmul in the input type (rounded once),
// anything more is computed in float32 for float16. Multiplying by α = 1 is skipped (exact);
// β·c is added whenever c is given, even for β = 0 (0·Inf is NaN in the reference too).
std::vector<MLOperand> decompose_gemm(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  const auto& o = c.attrs<OpType::kGemm>().options;
  const MLOperandDataType type = c.input_desc(0).dataType;
  const bool has_c = c.has_input(2);
  const bool scaled = MLNumber(o.alpha).cast_to_double(type) != 1.0;
  const bool plain = !has_c && !scaled;
  // The operand in the compute type: the input type for a plain product, else float32 for f16.
  auto in = [&](const MLOperand& x) { return plain ? x : widen(b, x); };
  const MLOperand a = o.aTranspose ? b.transpose(c.input(0)) : c.input(0);
  const MLOperand bb = o.bTranspose ? b.transpose(c.input(1)) : c.input(1);
  MLOperand y = b.matmul(in(a), in(bb));
  if (scaled) y = b.mul(y, in(scalar(b, type, o.alpha)));
  if (has_c) {
    MLOperand term = in(c.input(2));
    if (MLNumber(o.beta).cast_to_double(type) != 1.0)
      term = b.mul(term, in(scalar(b, type, o.beta)));
    y = b.add(y, term);
  }
  return {narrow(b, y, type)};
}

}  // namespace

void register_matrix(DecompositionTable& t) {
  using enum OpType;
  t.add(kGemm, decompose_gemm, {{kTranspose}, {kCast}, {kMatmul}, {kMul}, {kAdd}});
}

}  // namespace cppnn::passes
