// ONNX Det (opset 11+): the determinant of the last two dimensions of [..., M, M] by Leibniz's
// formula, det = sum over permutations p of sign(p) * prod_i a[i, p(i)], for M <= kMaxDetOrder
// (M! terms). In WebNN: the matrices flattened to [..., M*M], one gather of the M! permutations'
// positions [M!, M], reduceProduct over the last axis, times the signs, reduceSum.
#include <algorithm>
#include <numeric>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// The largest order expanded (6! = 720 products of 6 factors per matrix).
constexpr uint32_t kMaxDetOrder = 6;

}  // namespace

void import_Det(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const size_t rank = shape.size();
  if (rank < 2) c.invalid("the input needs rank >= 2");
  const uint32_t m = shape[rank - 1];
  if (shape[rank - 2] != m) c.invalid("the last two dimensions must be equal (square matrices)");
  if (!is_float_type(c.input_type(0))) c.invalid("Det takes float32 or float16 only");
  if (m > kMaxDetOrder)
    c.unsupported("a determinant of order " + std::to_string(m) +
                  " (the Leibniz expansion is bounded to order " + std::to_string(kMaxDetOrder) +
                  ")");
  const std::vector<uint32_t> batch(shape.begin(), shape.end() - 2);
  // Every permutation p as the flat positions i * M + p(i), and its sign (parity of inversions).
  std::vector<int64_t> perm(m), positions, signs;
  std::iota(perm.begin(), perm.end(), int64_t{0});
  do {
    int64_t inversions = 0;
    for (uint32_t i = 0; i < m; ++i) {
      positions.push_back(i * static_cast<int64_t>(m) + perm[i]);
      for (uint32_t j = i + 1; j < m; ++j) inversions += perm[i] > perm[j] ? 1 : 0;
    }
    signs.push_back(inversions % 2 == 0 ? 1 : -1);
  } while (std::next_permutation(perm.begin(), perm.end()));
  const auto count = static_cast<uint32_t>(signs.size());
  bounded_product(c, {element_count(batch), count, m}, "the Leibniz expansion");

  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions oo = c.opts<MLOperatorOptions>();
  std::vector<uint32_t> flat = batch;
  flat.push_back(m * m);
  MLOperand x = b.reshape(c.input(0), flat, oo);
  MLGatherOptions g = c.opts<MLGatherOptions>();
  g.axis = static_cast<uint32_t>(batch.size());
  MLOperand idx =
      c.constant_operand(HostTensor::of_int64(positions, {count, m}, MLOperandDataType::kInt32));
  MLReduceOptions last = c.opts<MLReduceOptions>();
  last.axes = std::vector<uint32_t>{static_cast<uint32_t>(batch.size() + 1)};
  MLOperand terms = b.reduceProduct(b.gather(x, idx, g), last);  // [..., M!]
  if (count > 1) {
    const MLOperand s = c.constant_operand(HostTensor::of_int64(signs, {count}, c.input_type(0)));
    terms = b.mul(terms, s, oo);
  }
  last.axes = std::vector<uint32_t>{static_cast<uint32_t>(batch.size())};
  c.set_output(0, b.reduceSum(terms, last));
}

}  // namespace cppnn::onnx_import
