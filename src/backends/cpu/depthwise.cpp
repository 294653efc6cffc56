// Depthwise conv2d on the cpu backend (webnn-spec.md §2 row 7 with groups == input channels, so
// filterCin == 1): float32, NCHW input, constant filter in any layout, optional bias, any padding,
// strides, dilations and channel multiplier (output channels = multiplier · input channels).
//
// Each task is one band of output rows of one (batch, input channel) plane. It copies the input
// rows the band reads into a zero-padded buffer split into stride_w column phases, so that every
// output row is a sum of contiguous scaled rows of that buffer: no bounds checks in the inner
// loop, which runs along the output width in blocks of up to 8 vector registers (AVX-512,
// AVX2+FMA or a portable 4-lane form, picked for the CPU at build). The
// padding holds zeros, exact because the filter is checked finite at build (0 · w = ±0 adds
// nothing, as the reference skips padded positions). Then the bias and the fused activations
// are applied to the band's output rows while they are in cache. Sums accumulate in float32
// (fused multiply-adds), within the conv2d tolerances of the double reference.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/depthwise_lanes.h"
#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/padded_band.h"
#include "src/ops/convolution_params.h"

namespace cppnn::cpu {
namespace {

// The geometry of one depthwise convolution, resolved at build time.
struct DwShape : WindowGeometry {
  size_t batches, channels, multiplier;  // input channels; output channels = channels·multiplier
};

// One output channel's rows of a band, for the row kernels below.
struct DwRows {
  const float* band;              // band row 0
  size_t row_step;                // floats from one output row's band row to the next (sh·cols)
  const std::ptrdiff_t* offsets;  // per tap, from the band row of the output row
  const float* weights;           // per tap
  size_t taps;
  float bias;
  float* out;  // output row 0
  size_t rows, width;
  const Epilogue* epilogue;  // applied to each row as it is written, or nullptr
};

// out[0..V·N) = bias + Σ_t w[t] · src[offs[t] + 0..V·N), in V vector registers of N lanes.
template <size_t N, size_t V>
[[gnu::always_inline]] inline void dw_block(const float* src, const DwRows& a, float* out) {
  using Vec = typename Simd<float, N>::type;
  using Unaligned = typename Simd<float, N>::unaligned;
  Vec acc[V];
  for (size_t j = 0; j < V; ++j) acc[j] = Vec{} + a.bias;
  for (size_t t = 0; t < a.taps; ++t) {
    const float* p = src + a.offsets[t];
    const float w = a.weights[t];
    for (size_t j = 0; j < V; ++j) acc[j] += w * *reinterpret_cast<const Unaligned*>(p + N * j);
  }
  for (size_t j = 0; j < V; ++j) *reinterpret_cast<Unaligned*>(out + N * j) = acc[j];
}

// Every row: out[ox] = bias + Σ_t w[t] · band_row[offs[t] + ox] for ox < width, in blocks of 8,
// 4, 2 and 1 vectors of N lanes, the last partial vector through a buffer (the band has the
// columns up to width rounded up to kLanes); then the epilogue on the rows, still in cache.
template <size_t N>
[[gnu::always_inline]] inline void dw_rows(const DwRows& a) {
  for (size_t r = 0; r < a.rows; ++r) {
    const float* src = a.band + r * a.row_step;
    float* out = a.out + r * a.width;
    const size_t n = a.width;
    size_t i = 0;
    for (; i + 8 * N <= n; i += 8 * N) dw_block<N, 8>(src + i, a, out + i);
    if (i + 4 * N <= n) {
      dw_block<N, 4>(src + i, a, out + i);
      i += 4 * N;
    }
    if (i + 2 * N <= n) {
      dw_block<N, 2>(src + i, a, out + i);
      i += 2 * N;
    }
    if (i + N <= n) {
      dw_block<N, 1>(src + i, a, out + i);
      i += N;
    }
    if (i < n) {
      float tail[N];
      dw_block<N, 1>(src + i, a, tail);
      std::memcpy(out + i, tail, (n - i) * sizeof(float));
    }
  }
  // The rows are consecutive in the output: one pass over them, still in cache (a pass per row
  // of a small feature map would pay the epilogue's set-up for a handful of elements).
  if (a.epilogue) a.epilogue->apply(a.out, a.rows * a.width);
}

// dw_rows for each instruction set (explicit targets, chosen once by dw_rows_for_this_cpu: the
// vector width is a type here, which function clones cannot vary).
using DwRowsFn = void (*)(const DwRows&);
void dw_rows_portable(const DwRows& a) {
  dw_rows<4>(a);
}
#if CPPNN_CPU_X86
CPPNN_TARGET_AVX2 void dw_rows_avx2(const DwRows& a) {
  dw_rows<8>(a);
}
CPPNN_TARGET_AVX512 void dw_rows_avx512(const DwRows& a) {
  dw_rows<16>(a);
}
#endif
DwRowsFn dw_rows_for_this_cpu() {
  switch (vector_isa_for_this_cpu()) {
#if CPPNN_CPU_X86
    case VectorIsa::kAvx512:
      return dw_rows_avx512;
    case VectorIsa::kAvx2:
      return dw_rows_avx2;
#endif
    default:
      return dw_rows_portable;
  }
}

// What the kernel keeps: the geometry, the filter as [Cout][kh][kw], the tap offsets into a band,
// the epilogue and the pool.
struct DepthwiseKernel {
  DwShape s;
  BandLayout b;
  OperandId input, bias, output;
  std::shared_ptr<const std::vector<float>> weights;           // [Cout][kh·kw]
  std::shared_ptr<const std::vector<std::ptrdiff_t>> offsets;  // per tap (ky, kx), in band floats
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;
  DwRowsFn rows_fn;

  void operator()(std::span<std::byte* const> slots) const {
    const float* x = reinterpret_cast<const float*>(slots[input.value]);
    float* y = reinterpret_cast<float*>(slots[output.value]);
    const float* bv = bias.valid() ? reinterpret_cast<const float*>(slots[bias.value]) : nullptr;
    const size_t bands = ceil_div(s.out_h, b.out_rows);
    parallel_chunks(*pool, s.batches * s.channels * bands,
                    b.out_rows * s.out_w * s.taps() * s.multiplier, [&](size_t begin, size_t end) {
                      for (size_t t = begin; t < end; ++t) run_band(x, bv, y, t / bands, t % bands);
                    });
  }

  // Output rows [band·out_rows, +out_rows) of the output channels of input plane nc = n·C + c.
  void run_band(const float* x, const float* bv, float* y, size_t nc, size_t band_index) const {
    const SubnormalsAsZero daz;
    thread_local std::vector<float> band;
    if (band.size() < b.size()) band.resize(b.size());
    const size_t oy0 = band_index * b.out_rows, rows = std::min(b.out_rows, s.out_h - oy0);
    const size_t taps = s.taps(), out_plane = s.out_h * s.out_w;
    fill_band(s, b, x + nc * s.in_h * s.in_w, oy0, rows, 0.0f, band.data());
    for (size_t m = 0; m < s.multiplier; ++m) {
      const size_t oc = (nc % s.channels) * s.multiplier + m;
      const size_t n = nc / s.channels;
      float* out = y + (n * s.channels * s.multiplier + oc) * out_plane + oy0 * s.out_w;
      const float* w = weights->data() + oc * taps;
      rows_fn({band.data(), s.stride_h * b.cols, offsets->data(), w, taps, bv ? bv[oc] : 0.0f, out,
               rows, s.out_w, epilogue && !epilogue->empty() ? &*epilogue : nullptr});
    }
  }
};

}  // namespace

// conv2d (§2 row 7) when it is depthwise: float32 NCHW, groups == Cin, filterCin == 1, a
// constant finite filter, not a single channel with more than 8 filters; nullopt otherwise (the
// GEMM convolution or the reference runs it).
std::optional<FastKernel> compile_fast_depthwise_conv2d(const CompileContext& cc,
                                                        const Operation& op) {
  const auto& o = attrs_of<OpType::kConv2d>(op.attrs).options;
  const OperandId input = op.inputs[0], filter = op.inputs[1], output = op.outputs[0];
  const OperandId bias = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  const std::byte* filter_bytes = cc.constant(filter);
  if (cc.desc(input).dataType != MLOperandDataType::kFloat32 ||
      cc.desc(output).dataType != MLOperandDataType::kFloat32 ||
      o.inputLayout != MLInputOperandLayout::kNchw || !filter_bytes)
    return std::nullopt;
  const Dims& xs = cc.desc(input).shape;
  const Dims& ys = cc.desc(output).shape;
  const Dims& fshape = cc.desc(filter).shape;
  const FilterAxes fa = conv2d_filter_axes(o.filterLayout);
  const FilterDims fd = filter_dims(fshape, fa);
  if (xs.size() != 4 || ys.size() != 4 || fshape.size() != 4 || o.groups != xs[1] ||
      fd.in_channels != 1 || xs[1] == 0 || ys[1] % xs[1] != 0 || fd.out_channels != ys[1])
    return std::nullopt;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  DwShape s{};
  s.batches = xs[0], s.channels = xs[1], s.multiplier = ys[1] / xs[1];
  s.in_h = xs[2], s.in_w = xs[3], s.out_h = ys[2], s.out_w = ys[3];
  s.kh = fd.height, s.kw = fd.width;
  s.pad_top = win.padding[0], s.pad_left = win.padding[2];
  s.stride_h = win.strides[0], s.stride_w = win.strides[1];
  s.dilation_h = win.dilations[0], s.dilation_w = win.dilations[1];
  if (s.batches == 0 || s.out_h == 0 || s.out_w == 0 || s.kh == 0 || s.kw == 0) return std::nullopt;
  // One input channel with many filters is an ordinary convolution (a short-time Fourier
  // transform's bank of frames): the GEMM or the dot products serve it better.
  if (s.channels == 1 && s.multiplier > 8) return std::nullopt;

  // The filter as [Cout][kh][kw], read through its layout's strides; every value finite (the
  // zero padding relies on it).
  size_t stride[4];
  stride[3] = 1;
  for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * fshape[i + 1];
  auto weights = std::make_shared<std::vector<float>>(ys[1] * s.taps());
  size_t k = 0;
  for (size_t oc = 0; oc < ys[1]; ++oc)
    for (size_t ky = 0; ky < s.kh; ++ky)
      for (size_t kx = 0; kx < s.kw; ++kx) {
        float v;
        const size_t at =
            oc * stride[fa.out_channels] + ky * stride[fa.height] + kx * stride[fa.width];
        std::memcpy(&v, filter_bytes + at * sizeof(float), sizeof v);
        if (!std::isfinite(v)) return std::nullopt;
        (*weights)[k++] = v;
      }

  if (depthwise_lanes_suits(s, s.multiplier))
    return make_depthwise_lanes_kernel(s, s.batches, s.channels, input, bias, output, *weights,
                                       Epilogue::from(op.activations), cc.pool);
  const BandLayout b = band_layout(s);
  auto offsets = std::make_shared<std::vector<std::ptrdiff_t>>(band_tap_offsets(s, b));
  DepthwiseKernel kernel{s,
                         b,
                         input,
                         bias,
                         output,
                         std::move(weights),
                         std::move(offsets),
                         Epilogue::from(op.activations),
                         cc.pool,
                         dw_rows_for_this_cpu()};
  const bool applies = kernel.epilogue.has_value();
  return FastKernel{std::move(kernel), applies};
}

}  // namespace cppnn::cpu
