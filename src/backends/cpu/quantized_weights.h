// Block-quantized weights read in place by the cpu backend's GEMM. Language models keep their
// weights quantized in the graph (src/llm/decoder_graph.h): a linear layer is
//
//   gemm(a, reshape(dequantizeLinear(q, scale, zeroPoint = 0) [+ offset], [N, K]), bTranspose)
//
// with constants q [N, K/B, B] (int4, uint4, int8 or uint8), scale and offset [N, K/B, 1]
// (float32). Run op by op, every dispatch would expand each weight to float32 before the
// product. This rewrite, run by the cpu backend's compile() after the shared passes, gives each
// such gemm the inputs {a, q, c, scale, offset (or none)} instead, and drops the dequantization
// ops no other operation reads: the quantized GEMM kernel (quantized_gemm.cpp) computes the
// same product, each weight dequantized as dequantizeLinear computes it (q * scale, then
// + offset, in float32), a row at a time in cache. The result is the cpu plan's own graph: a
// gemm with an integer B operand is not a WebNN operation, and only the plan reads it.
#pragma once

#include "cppnn/graph_model.h"

namespace cppnn::cpu {

// The rewrite above; `changed` tells whether any gemm was rewritten (the graph is returned as it
// was otherwise).
Graph read_quantized_weights_in_gemm(const Graph& graph, bool* changed);

// True for a gemm the rewrite produced (its B operand holds integers).
bool is_quantized_gemm(const Graph& graph, const Operation& op);

}  // namespace cppnn::cpu
