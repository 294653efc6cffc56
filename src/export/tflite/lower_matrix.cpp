// TFLite lowerings of the matrix products (lower.h; webnn-spec.md §2 rows 52 and 63), float32 and
// float16 (computed in float32), in the forms XNNPACK runs fastest:
// - a product whose right operand is a constant matrix (rank 2, or batch dimensions all 1) is
//   FULLY_CONNECTED with keep_num_dims (y[..., m, :] = W·x[..., m, :] + bias) and the constant
//   transposed at export to FULLY_CONNECTED's weights layout [N, K] (gemm's bTranspose operand
//   already is);
// - any other product is BATCH_MATMUL (numpy broadcasting of the batch dimensions, adj_x/adj_y
//   for gemm's aTranspose/bTranspose). The builtin kernel takes ranks up to 5: batch dimensions
//   that broadcast alike are merged first (a RESHAPE), so higher ranks run when they reduce.
// gemm (α·A'·B' + β·C) follows the shared decomposition (src/passes/decompose/matrix.cpp): α and
// β are cast to the input type first (§3.6), α = 1 skips the MUL, β·c is added whenever c is
// given. With α = 1 and a constant c that is one row ([N], [1, N], or one element), β·c is
// FULLY_CONNECTED's bias (computed at export); otherwise MUL by α and ADD of β·c follow.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/number.h"
#include "src/export/tflite/lower.h"
#include "src/export/tflite/lower_permute_util.h"
#include "src/export/tflite/lower_util.h"

namespace cppnn::tflite_export {
namespace {

using Op = tfl::BuiltinOperator;
using Opt = tfl::BuiltinOptions;
using Shape = std::vector<int32_t>;

// BATCH_MATMUL's largest rank (tensorflow/lite/kernels/batch_matmul.cc).
constexpr size_t kMaxBatchMatmulRank = 5;

// Checks the float compute type of the matrix products (float32, float16 as float32).
void require_float(const Emitter& e, const Operation& op) {
  if (!is_float(data_type_of(e.graph(), op.inputs[0])))
    throw NotSupportedError("tflite: matmul and gemm take float32 or float16");
}

// Whether the constant tensor `b` ([..., K, N]) is one matrix: rank 2 or batch dimensions 1.
bool is_constant_matrix(const Emitter& e, TensorIndex b) {
  if (!e.is_constant(b)) return false;
  const Shape& s = e.shape_of(b);
  for (size_t d = 0; d + 2 < s.size(); ++d)
    if (s[d] != 1) return false;
  return true;
}

// A binary float32 builtin (MUL, ADD) of `a` and `b` into a new tensor of `shape`.
TensorIndex binary(Emitter& e, Op code, TensorIndex a, TensorIndex b, Shape shape) {
  if (code == Op::MUL)
    return e.op1(code, {a, b}, tfl::TensorType::FLOAT32, std::move(shape), Opt::MulOptions,
                 tfl::CreateMulOptions(e.fbb()).Union());
  return e.op1(code, {a, b}, tfl::TensorType::FLOAT32, std::move(shape), Opt::AddOptions,
               tfl::CreateAddOptions(e.fbb()).Union());
}

// FULLY_CONNECTED of `x` ([..., K]) with the constant weights `w` ([N, K]) and `bias` ([N] or
// kOmitted), keeping x's leading dimensions: [..., N].
TensorIndex fully_connected(Emitter& e, TensorIndex x, TensorIndex w, TensorIndex bias) {
  Shape shape = e.shape_of(x);
  shape.back() = e.shape_of(w)[0];
  return e.op1(Op::FULLY_CONNECTED, {x, w, bias}, tfl::TensorType::FLOAT32, std::move(shape),
               Opt::FullyConnectedOptions,
               tfl::CreateFullyConnectedOptions(e.fbb(), tfl::ActivationFunctionType::NONE, 0, true)
                   .Union());
}

// `t` reshaped to `shape` (the same element count): a constant viewed so, else a RESHAPE.
TensorIndex reshaped(Emitter& e, TensorIndex t, const Shape& shape) {
  if (e.shape_of(t) == shape) return t;
  if (e.is_constant(t)) return e.constant_view(e.type_of(t), shape, e.constant_bytes(t));
  return e.reshape(t, shape);
}

// The batch dimensions of a and b (aligned to the output's rank, 1s in front) reduced for
// BATCH_MATMUL: dimensions of output extent 1 dropped and adjacent ones merged where a and b
// broadcast alike (both full, or the same one of them 1).
struct MergedBatch {
  Shape a, b;
};
MergedBatch merge_batch(const Shape& a, const Shape& b, const Shape& out) {
  const size_t batch = out.size() - 2;
  auto at = [&](const Shape& s, size_t d) {
    const size_t lead = out.size() - s.size();
    return d < lead ? 1 : s[d - lead];
  };
  MergedBatch m;
  int last = -1;  // the broadcast pattern of the last kept dimension
  for (size_t d = 0; d < batch; ++d) {
    if (out[d] == 1) continue;
    const int32_t da = at(a, d), db = at(b, d);
    const int pattern = (da == 1 ? 1 : 0) | (db == 1 ? 2 : 0);
    if (pattern == last) {
      m.a.back() *= da;
      m.b.back() *= db;
    } else {
      m.a.push_back(da);
      m.b.push_back(db);
      last = pattern;
    }
  }
  for (size_t d = 0; d < 2; ++d) {
    m.a.push_back(a[a.size() - 2 + d]);
    m.b.push_back(b[b.size() - 2 + d]);
  }
  return m;
}

// BATCH_MATMUL of `a` and `b` (adj_x / adj_y transpose their last two dimensions) into a tensor
// of `out` (the broadcast batch dimensions ++ [M, N]), through merged batch dimensions when the
// rank passes BATCH_MATMUL's limit.
TensorIndex batch_matmul(Emitter& e, TensorIndex a, TensorIndex b, bool adj_x, bool adj_y,
                         const Shape& out) {
  auto options = [&] {
    return tfl::CreateBatchMatMulOptions(e.fbb(), adj_x, adj_y, false).Union();
  };
  if (out.size() <= kMaxBatchMatmulRank)
    return e.op1(Op::BATCH_MATMUL, {a, b}, tfl::TensorType::FLOAT32, out, Opt::BatchMatMulOptions,
                 options());
  const MergedBatch m = merge_batch(e.shape_of(a), e.shape_of(b), out);
  if (m.a.size() > kMaxBatchMatmulRank)
    throw NotSupportedError("tflite: BATCH_MATMUL takes rank 5 at most");
  Shape merged_out(m.a.begin(), m.a.end() - 2);
  for (size_t d = 0; d < merged_out.size(); ++d) merged_out[d] = std::max(m.a[d], m.b[d]);
  merged_out.push_back(out[out.size() - 2]);
  merged_out.push_back(out.back());
  const TensorIndex y =
      e.op1(Op::BATCH_MATMUL, {reshaped(e, a, m.a), reshaped(e, b, m.b)}, tfl::TensorType::FLOAT32,
            merged_out, Opt::BatchMatMulOptions, options());
  return e.reshape(y, out);
}

// The [N] float32 bias β·c for FULLY_CONNECTED when the constant c is one row of [M, N] (shape
// [], [1], [N], [1, 1] or [1, N]); kOmitted otherwise.
TensorIndex row_bias(Emitter& e, TensorIndex c, double beta, int32_t n) {
  if (!e.is_constant(c)) return kOmitted;
  const Shape& s = e.shape_of(c);
  if (s.size() == 2 && s[0] != 1) return kOmitted;
  const size_t count = s.empty() ? 1 : static_cast<size_t>(s.back());
  if (count != 1 && count != static_cast<size_t>(n)) return kOmitted;
  const std::span<const std::byte> bytes = e.constant_bytes(c);
  std::vector<float> values(count);
  std::memcpy(values.data(), bytes.data(), count * sizeof(float));
  std::vector<std::byte> out(static_cast<size_t>(n) * sizeof(float));
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
    const float v = beta == 1.0 ? values[count == 1 ? 0 : i]
                                : static_cast<float>(beta) * values[count == 1 ? 0 : i];
    std::memcpy(out.data() + i * sizeof(float), &v, sizeof(float));
  }
  return e.constant(tfl::TensorType::FLOAT32, {n}, std::move(out));
}

}  // namespace

// Both products take every float case (their only data types).
bool lowers_matrix(const Graph& graph, const Operation& op) {
  return is_float(data_type_of(graph, op.inputs.at(0)));
}

// gemm (row 52): y = α·A'·B' + β·C, A' = aᵀ when aTranspose, B' = bᵀ when bTranspose, c
// broadcast to [M, N] (see the file comment).
void lower_gemm(Emitter& e, const Operation& op, const AttrsOf<OpType::kGemm>& attrs) {
  require_float(e, op);
  const MLGemmOptions& o = attrs.options;
  const MLOperandDataType type = data_type_of(e.graph(), op.inputs[0]);
  const double alpha = MLNumber(o.alpha).cast_to_double(type);
  const double beta = MLNumber(o.beta).cast_to_double(type);
  const Shape out = shape_of(e.graph(), op.outputs[0]);
  const TensorIndex a = e.value(op.inputs[0]), b = e.value(op.inputs[1]);
  const bool has_c = has_input(op, 2);
  TensorIndex y;
  bool c_added = false;
  if (e.is_constant(b)) {
    const TensorIndex weights = o.bTranspose ? b : spatial::permuted(e, b, {1, 0});
    const TensorIndex x = o.aTranspose ? spatial::permuted(e, a, {1, 0}) : a;
    TensorIndex bias = kOmitted;
    if (has_c && alpha == 1.0) bias = row_bias(e, e.value(op.inputs[2]), beta, out[1]);
    c_added = bias != kOmitted;
    y = fully_connected(e, x, weights, bias);
  } else {
    y = batch_matmul(e, a, b, o.aTranspose, o.bTranspose, out);
  }
  if (alpha != 1.0) y = binary(e, Op::MUL, y, e.scalar(tfl::TensorType::FLOAT32, alpha), out);
  if (has_c && !c_added) {
    TensorIndex term = e.value(op.inputs[2]);
    if (beta != 1.0)
      term = binary(e, Op::MUL, term, e.scalar(tfl::TensorType::FLOAT32, beta), e.shape_of(term));
    y = binary(e, Op::ADD, y, term, out);
  }
  e.bind(op.outputs[0], y);
}

// matmul (row 63): FULLY_CONNECTED when b is a constant matrix, else BATCH_MATMUL.
void lower_matmul(Emitter& e, const Operation& op, const AttrsOf<OpType::kMatmul>&) {
  require_float(e, op);
  const Shape out = shape_of(e.graph(), op.outputs[0]);
  const TensorIndex a = e.value(op.inputs[0]), b = e.value(op.inputs[1]);
  if (is_constant_matrix(e, b)) {
    const Shape& bs = e.shape_of(b);
    const TensorIndex matrix = reshaped(e, b, {bs[bs.size() - 2], bs.back()});
    const TensorIndex y = fully_connected(e, a, spatial::permuted(e, matrix, {1, 0}), kOmitted);
    e.bind(op.outputs[0], reshaped(e, y, out));
    return;
  }
  e.bind(op.outputs[0], batch_matmul(e, a, b, false, false, out));
}

}  // namespace cppnn::tflite_export
