// The cpu backend's element-wise binary kernels: float32 add, sub, mul, div, max and min
// (webnn-spec.md §2 rows 10-15) with bidirectional (numpy) broadcasting (§3.4). Every result is
// bit-identical to the reference kernel (reference/elementwise_binary_kernels.cpp): the reference
// computes in double and rounds once, which for one IEEE add/sub/mul/div of two float32 values is
// the float32 operation itself; max/min return NaN (0x7FC00000) when either side is NaN, else
// `a > b ? a : b` (`a < b ? a : b`), so that equal values (+0 and -0) give b.
//
// The kernel coalesces the broadcast into runs: output dimensions of size 1 are dropped and
// neighbours where each operand is either full or broadcast alike are merged, leaving outer
// dimensions (walked with an odometer) over one contiguous inner run of one of three forms:
// vector op vector, vector op scalar or scalar op vector. Same shapes and a scalar side become a
// single run; a per-channel operand ([C,1,1] against [N,C,H,W]) becomes C rows of vector op
// scalar. The output is split into chunks of kChunk elements spread over the pool.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"

namespace cppnn::cpu {
namespace {

// The binary ops this file computes.
enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin };

// The three shapes of the innermost contiguous run.
enum class RunKind : uint8_t {
  kVectorVector,  // a and b both advance
  kVectorScalar,  // a advances, b is one value for the run
  kScalarVector,  // a is one value for the run, b advances
};

// Elements per pool task (a multiple of every vector width).
constexpr size_t kChunk = 64 * 1024;
// The most coalesced outer dimensions a plan holds (broadcast patterns alternate at most once per
// dimension, so this is far beyond any valid rank).
constexpr size_t kMaxOuter = 16;

// max and min of the reference (arithmetic<kMax/kMin, float>): NaN on either side gives the
// default quiet NaN; otherwise the comparison picks a, and ties (+0 against -0) pick b.
inline float max_of(float a, float b) {
  const float r = a > b ? a : b;
  return (a != a || b != b) ? std::numeric_limits<float>::quiet_NaN() : r;
}
inline float min_of(float a, float b) {
  const float r = a < b ? a : b;
  return (a != a || b != b) ? std::numeric_limits<float>::quiet_NaN() : r;
}

// One loop per op over [0, n) with element expressions A (the a side) and B (the b side).
#define CPPNN_BINARY_LOOPS(A, B)                              \
  switch (op) {                                               \
    case BinaryOp::kAdd:                                      \
      for (size_t i = 0; i < n; ++i) o[i] = (A) + (B);        \
      break;                                                  \
    case BinaryOp::kSub:                                      \
      for (size_t i = 0; i < n; ++i) o[i] = (A) - (B);        \
      break;                                                  \
    case BinaryOp::kMul:                                      \
      for (size_t i = 0; i < n; ++i) o[i] = (A) * (B);        \
      break;                                                  \
    case BinaryOp::kDiv:                                      \
      for (size_t i = 0; i < n; ++i) o[i] = (A) / (B);        \
      break;                                                  \
    case BinaryOp::kMax:                                      \
      for (size_t i = 0; i < n; ++i) o[i] = max_of((A), (B)); \
      break;                                                  \
    case BinaryOp::kMin:                                      \
      for (size_t i = 0; i < n; ++i) o[i] = min_of((A), (B)); \
      break;                                                  \
  }

// o[i] = a[i] op b[i] for i in [0, n).
CPPNN_CPU_CLONES void run_vector_vector(BinaryOp op, const float* a, const float* b, float* o,
                                        size_t n){CPPNN_BINARY_LOOPS(a[i], b[i])}
// o[i] = a[i] op b for i in [0, n).
CPPNN_CPU_CLONES void run_vector_scalar(BinaryOp op, const float* a, float b, float* o, size_t n){
    CPPNN_BINARY_LOOPS(a[i], b)}  // o[i] = a op b[i] for i in [0, n).
CPPNN_CPU_CLONES void run_scalar_vector(BinaryOp op, float a, const float* b, float* o, size_t n) {
  CPPNN_BINARY_LOOPS(a, b[i])
}

#undef CPPNN_BINARY_LOOPS

// One coalesced outer dimension: its size and the element stride of each input along it (0 where
// that input is broadcast); the output is dense, so its stride is implied.
struct OuterDim {
  size_t size = 1;
  size_t stride_a = 0, stride_b = 0;
};

// The compiled broadcast of one op: outer dimensions (outermost first) over inner runs of
// `inner` elements.
struct BinaryPlan {
  BinaryOp op = BinaryOp::kAdd;
  RunKind kind = RunKind::kVectorVector;
  OperandId a, b, out;
  size_t count = 0;  // output elements
  size_t inner = 1;  // elements per inner run
  std::array<OuterDim, kMaxOuter> outer{};
  size_t outer_count = 0;
};

// Computes output elements [begin, end) of `p` (begin and end anywhere, runs may be partial).
void run_range(const BinaryPlan& p, const float* a, const float* b, float* o, size_t begin,
               size_t end) {
  const size_t inner = p.inner, dims = p.outer_count;
  size_t col = begin % inner;
  // The outer index of the first row, and each input's offset there.
  std::array<size_t, kMaxOuter> idx{};
  size_t off_a = 0, off_b = 0;
  for (size_t row = begin / inner, k = dims; k-- > 0;) {
    const OuterDim& d = p.outer[k];
    idx[k] = row % d.size;
    row /= d.size;
    off_a += idx[k] * d.stride_a;
    off_b += idx[k] * d.stride_b;
  }
  // Inside a run, a full input advances by 1 and a broadcast one stays.
  const size_t step_a = p.kind == RunKind::kScalarVector ? 0 : 1;
  const size_t step_b = p.kind == RunKind::kVectorScalar ? 0 : 1;
  for (size_t pos = begin; pos < end;) {
    const size_t len = std::min(inner - col, end - pos);
    const float* ra = a + off_a + col * step_a;
    const float* rb = b + off_b + col * step_b;
    switch (p.kind) {
      case RunKind::kVectorVector:
        run_vector_vector(p.op, ra, rb, o + pos, len);
        break;
      case RunKind::kVectorScalar:
        run_vector_scalar(p.op, ra, *rb, o + pos, len);
        break;
      case RunKind::kScalarVector:
        run_scalar_vector(p.op, *ra, rb, o + pos, len);
        break;
    }
    pos += len;
    col = 0;
    // The next row: an odometer over the outer dimensions.
    for (size_t k = dims; k-- > 0;) {
      const OuterDim& d = p.outer[k];
      off_a += d.stride_a;
      off_b += d.stride_b;
      if (++idx[k] < d.size) break;
      off_a -= d.stride_a * d.size;
      off_b -= d.stride_b * d.size;
      idx[k] = 0;
    }
  }
}

// The coalesced plan of out = a op b, or nullopt when it needs more than kMaxOuter dimensions.
std::optional<BinaryPlan> make_plan(BinaryOp op, const Operation& operation,
                                    const std::vector<uint32_t>& shape_a,
                                    const std::vector<uint32_t>& shape_b,
                                    const std::vector<uint32_t>& shape_out) {
  BinaryPlan p;
  p.op = op;
  p.a = operation.inputs[0];
  p.b = operation.inputs[1];
  p.out = operation.outputs[0];
  // The output dimensions of size > 1, each with whether a and b are full along it
  // (right-aligned: a missing leading dimension is a broadcast one).
  struct Dim {
    size_t size;
    bool full_a, full_b;
  };
  std::vector<Dim> dims;
  const size_t rank = shape_out.size();
  p.count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const size_t n = shape_out[d];
    p.count *= n;
    if (n == 1) continue;
    auto full = [&](const std::vector<uint32_t>& s) {
      const size_t lead = rank - s.size();
      return d >= lead && s[d - lead] == n;
    };
    const Dim dim{n, full(shape_a), full(shape_b)};
    if (!dims.empty() && dims.back().full_a == dim.full_a && dims.back().full_b == dim.full_b)
      dims.back().size *= n;
    else
      dims.push_back(dim);
  }
  if (dims.empty()) dims.push_back({1, true, true});  // a single element
  if (dims.size() - 1 > kMaxOuter) return std::nullopt;
  const Dim& last = dims.back();
  p.inner = last.size;
  p.kind = last.full_a && last.full_b ? RunKind::kVectorVector
           : last.full_a              ? RunKind::kVectorScalar
                                      : RunKind::kScalarVector;
  // Each input's strides: the product of its full dimensions inside.
  size_t inside_a = last.full_a ? last.size : 1, inside_b = last.full_b ? last.size : 1;
  p.outer_count = dims.size() - 1;
  for (size_t k = p.outer_count; k-- > 0;) {
    const Dim& d = dims[k];
    p.outer[k] = {d.size, d.full_a ? inside_a : 0, d.full_b ? inside_b : 0};
    if (d.full_a) inside_a *= d.size;
    if (d.full_b) inside_b *= d.size;
  }
  return p;
}

}  // namespace

// add, sub, mul, div, max, min on float32 (§2 rows 10-15, broadcast per §3.4), bit-identical to
// the reference; other data types (float16, integers) return nullopt and run the reference.
std::optional<FastKernel> compile_fast_binary(const CompileContext& cc, const Operation& op) {
  BinaryOp kind;
  switch (op.type) {
    case OpType::kAdd:
      kind = BinaryOp::kAdd;
      break;
    case OpType::kSub:
      kind = BinaryOp::kSub;
      break;
    case OpType::kMul:
      kind = BinaryOp::kMul;
      break;
    case OpType::kDiv:
      kind = BinaryOp::kDiv;
      break;
    case OpType::kMax:
      kind = BinaryOp::kMax;
      break;
    case OpType::kMin:
      kind = BinaryOp::kMin;
      break;
    default:
      return std::nullopt;
  }
  if (op.inputs.size() != 2 || op.outputs.size() != 1) return std::nullopt;
  const MLOperandDescriptor &da = cc.desc(op.inputs[0]), &db = cc.desc(op.inputs[1]),
                            &dout = cc.desc(op.outputs[0]);
  constexpr MLOperandDataType f32 = MLOperandDataType::kFloat32;
  if (da.dataType != f32 || db.dataType != f32 || dout.dataType != f32) return std::nullopt;
  std::optional<BinaryPlan> plan = make_plan(kind, op, da.shape, db.shape, dout.shape);
  if (!plan) return std::nullopt;
  std::shared_ptr<ThreadPool> pool = cc.pool;
  return FastKernel{[p = *plan, pool](std::span<std::byte* const> slots) {
                      const auto* a = reinterpret_cast<const float*>(slots[p.a.value]);
                      const auto* b = reinterpret_cast<const float*>(slots[p.b.value]);
                      auto* o = reinterpret_cast<float*>(slots[p.out.value]);
                      if (p.count == 0) return;
                      const size_t tasks = (p.count + kChunk - 1) / kChunk;
                      if (tasks <= 1 || pool->size() == 1) {
                        run_range(p, a, b, o, 0, p.count);
                        return;
                      }
                      pool->parallel_for(tasks, [&](size_t t) {
                        run_range(p, a, b, o, t * kChunk, std::min(p.count, (t + 1) * kChunk));
                      });
                    },
                    false};
}

}  // namespace cppnn::cpu
