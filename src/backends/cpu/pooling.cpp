// averagePool2d and maxPool2d on the cpu backend (webnn-spec.md §2 rows 65 and 67, numeric notes
// "Pooling"), float32, NCHW, any window, padding, strides, dilations and output size (the output
// descriptor has the resolved one). Padded positions never contribute: averagePool2d divides the
// sum of the in-bounds elements by their count (0/0 = NaN for a window entirely in the padding),
// maxPool2d takes their largest, NaN if one is NaN, -Infinity for an empty window. Sums
// accumulate in double and round once, like the reference.
//
// A window that covers the whole input plane with one output (global pooling) is one vectorised
// sum or max per plane. A maxPool2d with output rows narrower than a vector takes 16 planes at a
// time with the channels in the vector lanes (channel_lanes.h). Otherwise each task is a band of
// output rows of one (batch, channel) plane: the input rows the band reads are copied into a buffer
// padded with the reduction's neutral value (0 for the sum, -Infinity for the max) and split into
// stride_w column phases, so every output row reduces contiguous rows of that buffer, vectorised
// along the output width without bounds checks. The average's divisor is the product of the
// in-bounds window rows and columns of each output position, counted at build.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "src/backends/cpu/channel_lanes.h"
#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/padded_band.h"
#include "src/ops/pooling_params.h"

namespace cppnn::cpu {
namespace {

enum class PoolKind { kAverage, kMax };

// The geometry of one pooling, resolved at build time.
struct PoolShape : WindowGeometry {
  size_t batches, channels;
  // Whether the single output's window reads every input element once (global pooling): the
  // window starts at or before the first row and column and ends at or after the last, without
  // dilation gaps.
  bool global() const {
    auto covers = [](size_t in, size_t k, size_t pad, size_t d) {
      return (k == 1 || d == 1) && (k - 1) * d >= pad + in - 1;
    };
    return out_h == 1 && out_w == 1 && covers(in_h, kh, pad_top, dilation_h) &&
           covers(in_w, kw, pad_left, dilation_w);
  }
};

// ---- the reductions ---------------------------------------------------------------------------
// Written once over the vector width N (float lanes; the sums use N/2 double lanes) and compiled
// for each instruction set below. Vectors go by reference, never by value (-Wpsabi).

// One maxPool2d step over the N floats v at p, lane by lane: acc = v where v > acc (the
// reference's first-larger rule: ties keep the earlier element, a NaN v is not taken), and nan =
// v where v is NaN (it stays NaN). max_result then gives NaN where one was NaN. Single-comparison
// selects only (GCC 12 scalarises AVX-512 selects on two comparisons or on v == v).
template <size_t N>
[[gnu::always_inline]] inline void max_step(typename Simd<float, N>::type& acc,
                                            typename Simd<float, N>::type& nan, const float* p) {
  using F = typename Simd<float, N>::type;
  const F v = *reinterpret_cast<const typename Simd<float, N>::unaligned*>(p);
  const F lowest = F{} - std::numeric_limits<float>::infinity();
  acc = v > acc ? v : acc;
  nan = v >= lowest ? nan : v;  // false only for NaN
}
template <size_t N>
[[gnu::always_inline]] inline void max_result(typename Simd<float, N>::type& acc,
                                              const typename Simd<float, N>::type& nan) {
  using F = typename Simd<float, N>::type;
  const F lowest = F{} - std::numeric_limits<float>::infinity();
  acc = nan >= lowest ? acc : nan;
}
// The scalar step: the larger, NaN once either is NaN.
[[gnu::always_inline]] inline float max_nan(float acc, float v) {
  return v > acc || v != v ? v : acc;
}

// acc += the floats at p widened to double (forms both compilers turn into one vcvtps2pd).
[[gnu::always_inline]] inline void add_widened(Simd<double, 2>::type& acc, const float* p) {
  acc += Simd<double, 2>::type{p[0], p[1]};
}
[[gnu::always_inline]] inline void add_widened(Simd<double, 4>::type& acc, const float* p) {
  acc += Simd<double, 4>::type{p[0], p[1], p[2], p[3]};
}
[[gnu::always_inline]] inline void add_widened(Simd<double, 8>::type& acc, const float* p) {
  acc += Simd<double, 8>::type{p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]};
}

// Global pooling of planes [begin, end) of `size` floats each: y[i] = the mean (Σ in double) or
// the largest (NaN if one is NaN) of plane i.
struct PlanesJob {
  const float* x;
  float* y;
  size_t begin, end, size;
  bool max;
};
template <size_t N>
[[gnu::always_inline]] inline void global_planes(const PlanesJob& a) {
  using F = typename Simd<float, N>::type;
  using D = typename Simd<double, N / 2>::type;
  for (size_t plane = a.begin; plane < a.end; ++plane) {
    const float* p = a.x + plane * a.size;
    size_t i = 0;
    if (a.max) {
      F acc[4], nan[4] = {};
      for (F& v : acc) v = F{} - std::numeric_limits<float>::infinity();
      for (; i + 4 * N <= a.size; i += 4 * N)
        for (size_t j = 0; j < 4; ++j) max_step<N>(acc[j], nan[j], p + i + N * j);
      for (size_t j = 1; j < 4; ++j) {  // acc[0] = the max of the 4, NaN where one has NaN
        max_result<N>(acc[j], nan[j]);
        max_step<N>(acc[0], nan[0], reinterpret_cast<const float*>(&acc[j]));
      }
      max_result<N>(acc[0], nan[0]);
      float m = -std::numeric_limits<float>::infinity();
      for (size_t k = 0; k < N; ++k) m = max_nan(m, acc[0][k]);
      for (; i < a.size; ++i) m = max_nan(m, p[i]);
      a.y[plane] = m;
    } else {
      D acc[4] = {};
      for (; i + 2 * N <= a.size; i += 2 * N)
        for (size_t j = 0; j < 4; ++j) add_widened(acc[j], p + i + N / 2 * j);
      const D v = (acc[0] + acc[1]) + (acc[2] + acc[3]);
      double sum = 0;
      for (size_t j = 0; j < N / 2; ++j) sum += v[j];
      for (; i < a.size; ++i) sum += p[i];
      a.y[plane] = static_cast<float>(sum / static_cast<double>(a.size));
    }
  }
}

// One plane's rows of a band, for the row kernels below.
struct RowsJob {
  const float* band;              // band row 0
  size_t row_step;                // floats from one output row's band row to the next (sh·cols)
  const std::ptrdiff_t* offsets;  // per tap, from the band row of the output row
  size_t taps;
  bool max;
  double* sums;              // average: room for width rounded up to kLanes
  const double* row_counts;  // average: in-bounds window rows of each output row
  const double* col_counts;  // average: in-bounds window columns of each output column
  float* out;                // output row 0
  size_t rows, width;
};

// out[0..V·N) = max over taps t of src[offs[t] + 0..V·N).
template <size_t N, size_t V>
[[gnu::always_inline]] inline void max_block(const float* src, const RowsJob& a, float* out) {
  using F = typename Simd<float, N>::type;
  F acc[V], nan[V] = {};
  for (size_t j = 0; j < V; ++j) acc[j] = F{} - std::numeric_limits<float>::infinity();
  for (size_t t = 0; t < a.taps; ++t)
    for (size_t j = 0; j < V; ++j) max_step<N>(acc[j], nan[j], src + a.offsets[t] + N * j);
  for (size_t j = 0; j < V; ++j) {
    max_result<N>(acc[j], nan[j]);
    *reinterpret_cast<typename Simd<float, N>::unaligned*>(out + N * j) = acc[j];
  }
}

// sum[0..V·N/2) = Σ over taps t of src[offs[t] + 0..V·N/2), in double.
template <size_t N, size_t V>
[[gnu::always_inline]] inline void sum_block(const float* src, const RowsJob& a, double* sum) {
  using D = typename Simd<double, N / 2>::type;
  D acc[V] = {};
  for (size_t t = 0; t < a.taps; ++t)
    for (size_t j = 0; j < V; ++j) add_widened(acc[j], src + a.offsets[t] + N / 2 * j);
  for (size_t j = 0; j < V; ++j)
    *reinterpret_cast<typename Simd<double, N / 2>::unaligned*>(sum + N / 2 * j) = acc[j];
}

// Every row: maxPool2d's out[ox] = max_t band_row[offs[t] + ox], or averagePool2d's sums then
// out[ox] = sum[ox] / (row count · column count), for ox < width (the band has the columns up to
// width rounded up to kLanes).
template <size_t N>
[[gnu::always_inline]] inline void pool_rows(const RowsJob& a) {
  const size_t n = a.width;
  for (size_t r = 0; r < a.rows; ++r) {
    const float* src = a.band + r * a.row_step;
    float* out = a.out + r * n;
    size_t i = 0;
    if (a.max) {
      for (; i + 4 * N <= n; i += 4 * N) max_block<N, 4>(src + i, a, out + i);
      for (; i + N <= n; i += N) max_block<N, 1>(src + i, a, out + i);
      if (i < n) {
        float tail[N];
        max_block<N, 1>(src + i, a, tail);
        std::memcpy(out + i, tail, (n - i) * sizeof(float));
      }
      continue;
    }
    for (; i + 2 * N <= n; i += 2 * N) sum_block<N, 4>(src + i, a, a.sums + i);
    for (; i < n; i += N / 2) sum_block<N, 1>(src + i, a, a.sums + i);
    const double rows = a.row_counts[r];
    for (size_t j = 0; j < n; ++j)
      out[j] = static_cast<float>(a.sums[j] / (rows * a.col_counts[j]));
  }
}

// The kernels for each instruction set (explicit targets, chosen once by pool_fns_for_this_cpu:
// the vector width is a type here, which function clones cannot vary).
struct PoolFns {
  void (*planes)(const PlanesJob&);
  void (*rows)(const RowsJob&);
};
void global_planes_portable(const PlanesJob& a) {
  global_planes<4>(a);
}
void pool_rows_portable(const RowsJob& a) {
  pool_rows<4>(a);
}
#if CPPNN_CPU_X86
CPPNN_TARGET_AVX2 void global_planes_avx2(const PlanesJob& a) {
  global_planes<8>(a);
}
CPPNN_TARGET_AVX2 void pool_rows_avx2(const RowsJob& a) {
  pool_rows<8>(a);
}
CPPNN_TARGET_AVX512 void global_planes_avx512(const PlanesJob& a) {
  global_planes<16>(a);
}
CPPNN_TARGET_AVX512 void pool_rows_avx512(const RowsJob& a) {
  pool_rows<16>(a);
}
#endif
PoolFns pool_fns_for_this_cpu() {
  switch (vector_isa_for_this_cpu()) {
#if CPPNN_CPU_X86
    case VectorIsa::kAvx512:
      return {global_planes_avx512, pool_rows_avx512};
    case VectorIsa::kAvx2:
      return {global_planes_avx2, pool_rows_avx2};
#endif
    default:
      return {global_planes_portable, pool_rows_portable};
  }
}

// ---- the banded kernel ------------------------------------------------------------------------

// The number of in-bounds window positions along one dimension for each output position o:
// o·stride − pad + k·dilation in [0, in) for k < window.
std::vector<double> in_bounds_counts(size_t out, size_t in, size_t window, size_t pad,
                                     size_t stride, size_t dilation) {
  std::vector<double> counts(out);
  for (size_t o = 0; o < out; ++o) {
    size_t n = 0;
    for (size_t k = 0; k < window; ++k) {
      const size_t at = o * stride + k * dilation;  // padded position
      n += at >= pad && at - pad < in;
    }
    counts[o] = static_cast<double>(n);
  }
  return counts;
}

// What the kernel keeps: the geometry, the band layout, the tap offsets into a band and, for the
// average, the in-bounds counts of every output row and column.
struct PoolKernel {
  PoolKind kind;
  PoolShape s;
  BandLayout b;
  OperandId input, output;
  std::shared_ptr<const std::vector<std::ptrdiff_t>> offsets;  // per tap (ky, kx)
  std::shared_ptr<const std::vector<double>> row_counts, col_counts;
  std::shared_ptr<ThreadPool> pool;
  PoolFns fns;

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    const size_t planes = s.batches * s.channels, in_plane = s.in_h * s.in_w;
    if (s.global()) {
      parallel_chunks(*pool, planes, in_plane, [&](size_t begin, size_t end) {
        fns.planes({x, y, begin, end, in_plane, kind == PoolKind::kMax});
      });
      return;
    }
    const size_t bands = ceil_div(s.out_h, b.out_rows);
    parallel_chunks(*pool, planes * bands, b.out_rows * s.out_w * s.taps(),
                    [&](size_t begin, size_t end) {
                      for (size_t t = begin; t < end; ++t) run_band(x, y, t / bands, t % bands);
                    });
  }

  // Output rows [band·out_rows, +out_rows) of plane nc = n·C + c.
  void run_band(const float* x, float* y, size_t nc, size_t band_index) const {
    thread_local std::vector<float> band;
    thread_local std::vector<double> sums;
    if (band.size() < b.size()) band.resize(b.size());
    const size_t oy0 = band_index * b.out_rows, rows = std::min(b.out_rows, s.out_h - oy0);
    fill_band(s, b, x + nc * s.in_h * s.in_w, oy0, rows,
              kind == PoolKind::kMax ? -std::numeric_limits<float>::infinity() : 0.0f, band.data());
    const bool max = kind == PoolKind::kMax;
    if (!max && sums.size() < b.cols) sums.resize(b.cols);  // cols ≥ out_w rounded up to kLanes
    fns.rows({band.data(), s.stride_h * b.cols, offsets->data(), s.taps(), max, sums.data(),
              row_counts->data() + oy0, col_counts->data(),
              y + nc * s.out_h * s.out_w + oy0 * s.out_w, rows, s.out_w});
  }
};

// ---- maxPool2d on narrow planes, channels in lanes (channel_lanes.h) --------------------------

// Every output of a task: the largest element of its window, lane by lane, by max_step's rules
// (the first larger kept, NaN once one is NaN; the padding is -Infinity), kBlock positions at a
// time.
CPPNN_CPU_CLONES void max_lanes(const lanes::Plan& plan, const float* in, float* out) {
  using simd::VF;
  constexpr size_t B = lanes::kBlock;
  const VF lowest = simd::splat<VF>(-std::numeric_limits<float>::infinity());
  const size_t taps = plan.tap_offsets.size();
  for (size_t b = 0; b < plan.position_offsets.size(); b += B) {
    const uint32_t* at = plan.position_offsets.data() + b;
    VF acc[B], nan[B];
    for (size_t r = 0; r < B; ++r) acc[r] = lowest, nan[r] = VF{};
    for (size_t k = 0; k < taps; ++k) {
      const float* p = in + plan.tap_offsets[k];
      for (size_t r = 0; r < B; ++r) {
        const VF v = simd::load(p + at[r]);
        acc[r] = v > acc[r] ? v : acc[r];
        nan[r] = v >= lowest ? nan[r] : v;  // false only for NaN
      }
    }
    for (size_t r = 0; r < B; ++r)
      simd::store(out + (b + r) * lanes::W, nan[r] >= lowest ? acc[r] : nan[r]);
  }
}

// maxPool2d with output rows narrower than a vector: tasks of lanes::W planes of one image.
struct MaxPoolLanesKernel {
  PoolShape s;
  OperandId input, output;
  std::shared_ptr<const lanes::Plan> plan;
  std::shared_ptr<ThreadPool> pool;

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    const size_t groups = ceil_div(s.channels, lanes::W);
    parallel_chunks(*pool, s.batches * groups, s.out_h * s.out_w * s.taps() * lanes::W,
                    [&](size_t begin, size_t end) {
                      for (size_t t = begin; t < end; ++t) run(x, y, t / groups, t % groups);
                    });
  }

  // Channels [group·W, +W) of image n.
  void run(const float* x, float* y, size_t n, size_t group) const {
    thread_local std::vector<float> padded, out;
    const size_t c0 = group * lanes::W, count = std::min(lanes::W, s.channels - c0);
    const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
    lanes::fill_padded(s, *plan, x + (n * s.channels + c0) * in_plane, count,
                       -std::numeric_limits<float>::infinity(), padded);
    out.resize(plan->position_offsets.size() * lanes::W);
    max_lanes(*plan, padded.data(), out.data());
    lanes::write_planes(out.data(), out_plane, count, y + (n * s.channels + c0) * out_plane);
  }
};

}  // namespace

// averagePool2d (§2 row 65) and maxPool2d (§2 row 67) on float32 NCHW; nullopt otherwise.
std::optional<FastKernel> compile_fast_pool2d(const CompileContext& cc, const Operation& op) {
  const bool max = op.type == OpType::kMaxPool2d;
  if (!max && op.type != OpType::kAveragePool2d) return std::nullopt;
  const MLPool2dOptions& o = max ? attrs_of<OpType::kMaxPool2d>(op.attrs).options
                                 : attrs_of<OpType::kAveragePool2d>(op.attrs).options;
  const OperandId input = op.inputs[0], output = op.outputs[0];
  const Dims& xs = cc.desc(input).shape;
  const Dims& ys = cc.desc(output).shape;
  if (cc.desc(input).dataType != MLOperandDataType::kFloat32 ||
      cc.desc(output).dataType != MLOperandDataType::kFloat32 ||
      o.layout != MLInputOperandLayout::kNchw || xs.size() != 4 || ys.size() != 4)
    return std::nullopt;
  const PoolWindow w = pool_window(xs, o);
  PoolShape s{};
  s.batches = xs[0], s.channels = xs[1], s.in_h = xs[2], s.in_w = xs[3];
  s.out_h = ys[2], s.out_w = ys[3], s.kh = w.window[0], s.kw = w.window[1];
  s.pad_top = w.padding[0], s.pad_left = w.padding[2];
  s.stride_h = w.strides[0], s.stride_w = w.strides[1];
  s.dilation_h = w.dilations[0], s.dilation_w = w.dilations[1];
  if (s.batches == 0 || s.channels == 0 || s.out_h == 0 || s.out_w == 0 || s.in_h == 0 ||
      s.in_w == 0 || s.kh == 0 || s.kw == 0)
    return std::nullopt;
  if (max && !s.global() && lanes::suits(s))
    return FastKernel{
        MaxPoolLanesKernel{s, input, output,
                           std::make_shared<const lanes::Plan>(lanes::make_plan(s)), cc.pool},
        false};
  const BandLayout b = band_layout(s);
  auto offsets = std::make_shared<std::vector<std::ptrdiff_t>>(band_tap_offsets(s, b));
  auto row_counts = std::make_shared<std::vector<double>>(
      in_bounds_counts(s.out_h, s.in_h, s.kh, s.pad_top, s.stride_h, s.dilation_h));
  auto col_counts = std::make_shared<std::vector<double>>(
      in_bounds_counts(s.out_w, s.in_w, s.kw, s.pad_left, s.stride_w, s.dilation_w));
  PoolKernel kernel{max ? PoolKind::kMax : PoolKind::kAverage,
                    s,
                    b,
                    input,
                    output,
                    std::move(offsets),
                    std::move(row_counts),
                    std::move(col_counts),
                    cc.pool,
                    pool_fns_for_this_cpu()};
  return FastKernel{std::move(kernel), false};
}

}  // namespace cppnn::cpu
