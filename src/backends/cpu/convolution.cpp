// conv2d on the cpu backend (webnn-spec.md §2 row 7), float32, NCHW input (NHWC through NCHW
// copies, nchw_adapter.h), constant filter in any layout: per batch and channel group a GEMM
// of the filter (packed once at build as [Cout/g, Cin/g·kh·kw]) with the input's implicit im2col
// matrix [Cin/g·kh·kw, OH·OW], packed block by block straight from the image (no im2col buffer),
// or with the input planes themselves for a 1×1 convolution without stride or padding. The bias
// and the fused activations are applied while the output tile is in cache. With fewer than 16
// output positions per image (short-time Fourier transforms as convolutions, the last layers of
// audio encoders) the patches are gathered once and each output is a dot product with a filter
// row, output channels split over the pool.
#include <algorithm>
#include <cstring>
#include <memory>

#include "src/backends/cpu/cpu_features.h"
#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/nchw_adapter.h"
#include "src/backends/cpu/row_math.h"
#include "src/backends/cpu/simd.h"
#include "src/ops/convolution_params.h"

namespace cppnn::cpu {
namespace {

// The geometry of one convolution.
struct ConvShape {
  size_t batches, in_channels, in_h, in_w;
  size_t out_channels, out_h, out_w;
  size_t groups, kh, kw;
  int64_t pad_top, pad_left, stride_h, stride_w, dilation_h, dilation_w;
  size_t in_per_group() const { return in_channels / groups; }
  size_t out_per_group() const { return out_channels / groups; }
  size_t depth() const { return in_per_group() * kh * kw; }
  bool pointwise() const {
    return kh == 1 && kw == 1 && pad_top == 0 && pad_left == 0 && stride_h == 1 && stride_w == 1 &&
           in_h == out_h && in_w == out_w;
  }
};

// One image and group of the input, zero-padded and split by stride phase: padded row q·sh + py
// and column r·sw + px of channel ci (x[ci, q·sh + py − pt, r·sw + px − pl], 0 outside the image)
// at ((ci·sh + py)·sw + px)·rows·cols + q·cols + r. The convolution is computed on a grid of
// out_h × cols positions (the output's rows widened to the planes' width, the extra columns
// dropped afterwards), on which the implicit im2col matrix's row l = (ci, ky, kx) is one run of
// this buffer: position J = oy·cols + ox reads run_offsets[l] + J, the offset of phase
// ((ky·dh) mod sh, (kx·dw) mod sw) of ci plus (ky·dh / sh)·cols + kx·dw / sw. Zeros follow the
// planes, as far as the last run of a packed block reaches.
struct PhaseLayout {
  size_t rows = 0, cols = 0;        // of one phase plane
  size_t size = 0;                  // floats, the slack included
  std::vector<size_t> run_offsets;  // per row of the im2col matrix

  explicit PhaseLayout(const ConvShape& s) {
    const size_t sh = size_t(s.stride_h), sw = size_t(s.stride_w);
    rows = s.out_h + (s.kh - 1) * size_t(s.dilation_h) / sh;
    cols = s.out_w + (s.kw - 1) * size_t(s.dilation_w) / sw;
    // A run starts at most plane + cols − out_w past its phase plane's start and is read in whole
    // panels (kGemmNR).
    size = s.in_per_group() * sh * sw * plane() + cols + 2 * kGemmNR;
    const size_t window = s.kh * s.kw;
    for (size_t l = 0; l < s.depth(); ++l) {
      const size_t ci = l / window, ky = (l % window) / s.kw, kx = l % s.kw;
      const size_t dy = ky * size_t(s.dilation_h), dx = kx * size_t(s.dilation_w);
      run_offsets.push_back(((ci * sh + dy % sh) * sw + dx % sw) * plane() + (dy / sh) * cols +
                            dx / sw);
    }
  }
  size_t plane() const { return rows * cols; }
};

// Fills channels [c0, c1) of the phases `p` from x, the image and group's NCHW planes; phases no
// filter tap reads are left as they are.
CPPNN_CPU_CLONES void fill_phases(const ConvShape& s, const PhaseLayout& layout, const float* x,
                                  size_t c0, size_t c1, float* p) {
  const size_t sh = size_t(s.stride_h), sw = size_t(s.stride_w), cols = layout.cols;
  for (size_t ci = c0; ci < c1; ++ci)
    for (size_t py = 0; py < sh; ++py)
      for (size_t px = 0; px < sw; ++px) {
        bool used_y = false, used_x = false;
        for (size_t ky = 0; ky < s.kh; ++ky) used_y |= (ky * size_t(s.dilation_h)) % sh == py;
        for (size_t kx = 0; kx < s.kw; ++kx) used_x |= (kx * size_t(s.dilation_w)) % sw == px;
        if (!used_y || !used_x) continue;
        float* plane = p + ((ci * sh + py) * sw + px) * layout.plane();
        // The columns r with 0 <= r·sw + px − pl < w: [lo, hi).
        const int64_t first = s.pad_left - int64_t(px);
        const size_t lo =
            first <= 0 ? 0 : std::min(cols, size_t((first + s.stride_w - 1) / s.stride_w));
        const int64_t end = int64_t(s.in_w) + s.pad_left - int64_t(px);
        const size_t hi =
            end <= 0 ? lo
                     : std::max(lo, std::min(cols, size_t((end + s.stride_w - 1) / s.stride_w)));
        const int64_t shift = int64_t(px) - s.pad_left;
        for (size_t q = 0; q < layout.rows; ++q) {
          float* d = plane + q * cols;
          const int64_t iy = int64_t(q * sh + py) - s.pad_top;
          if (iy < 0 || iy >= int64_t(s.in_h)) {
            std::fill(d, d + cols, 0.0f);
            continue;
          }
          const float* src = x + (ci * s.in_h + size_t(iy)) * s.in_w;
          std::fill(d, d + lo, 0.0f);
          if (sw == 1) {
            std::memcpy(d + lo, src + (int64_t(lo) + shift), (hi - lo) * sizeof(float));
          } else if (sw == 2) {  // a constant stride, so the loop is vectorised (permutes)
            const float* s2 = src + (int64_t(2 * lo) + shift);
            for (size_t r = 0; r < hi - lo; ++r) d[lo + r] = s2[2 * r];
          } else {
            for (size_t r = lo; r < hi; ++r) d[r] = src[int64_t(r * sw) + shift];
          }
          std::fill(d + hi, d + cols, 0.0f);
        }
      }
}

// The phases of x in `p` (sized here; channels split over the pool).
void build_phases(const ConvShape& s, const PhaseLayout& layout, const float* x,
                  std::vector<float>& p, ThreadPool& pool) {
  p.resize(layout.size);
  const size_t per_channel = size_t(s.stride_h) * size_t(s.stride_w) * layout.plane();
  const size_t planes = s.in_per_group() * per_channel;
  std::fill(p.begin() + ptrdiff_t(planes), p.end(), 0.0f);
  pool.parallel_ranges(s.in_per_group(), std::max<size_t>(16384 / (per_channel + 1), 1),
                       [&](size_t c0, size_t c1) { fill_phases(s, layout, x, c0, c1, p.data()); });
}

// Im2colPacker::pack's loops (a free function: virtual functions cannot be multi-versioned): rows
// [k0, k0 + kc) and grid columns [n0, n0 + nc) of the implicit im2col matrix packed as gemm.h's
// BPacker says, each panel row one run of kGemmNR floats of the phases p.
CPPNN_CPU_CLONES void pack_im2col(const PhaseLayout& layout, const float* p, size_t k0, size_t kc,
                                  size_t n0, size_t nc, float* dst) {
  using simd::kWidth;
  constexpr size_t nr = kGemmNR;
  const size_t* offsets = layout.run_offsets.data() + k0;
  for (size_t jp = 0; jp * nr < nc; ++jp) {
    const size_t valid = std::min(nr, nc - jp * nr);
    const float* runs = p + n0 + jp * nr;
    float* panel = dst + jp * kc * nr;
    for (size_t l = 0; l < kc; ++l) {
      const float* src = runs + offsets[l];
      float* d = panel + l * nr;
      for (size_t c = 0; c < nr; c += kWidth) simd::store(d + c, simd::load(src + c));
      for (size_t t = valid; t < nr; ++t) d[t] = 0.0f;
    }
  }
}

// The implicit im2col matrix of one batch and group on the grid as a BPacker (pack_im2col).
class Im2colPacker final : public BPacker {
 public:
  Im2colPacker(const PhaseLayout& layout, const float* p) : layout_(layout), p_(p) {}
  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override {
    pack_im2col(layout_, p_, k0, kc, n0, nc, dst);
  }
  // Rows [k0, ...) are runs of the phases at run_offsets[l], read in place (the slack after the
  // planes covers a panel's reads past the last column).
  Rows rows_in_place(size_t k0, size_t n0) const override {
    return {p_ + n0, layout_.run_offsets.data() + k0};
  }

 private:
  const PhaseLayout& layout_;
  const float* p_;
};

// The filter as OIHW float32 values, from any conv2d filter layout.
std::vector<float> filter_oihw(const float* w, const Dims& shape, FilterAxes axes) {
  const FilterDims d = filter_dims(shape, axes);
  size_t stride[4];
  stride[3] = 1;
  for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * shape[i + 1];
  std::vector<float> out(size_t(d.out_channels) * d.in_channels * d.height * d.width);
  size_t n = 0;
  for (size_t o = 0; o < d.out_channels; ++o)
    for (size_t i = 0; i < d.in_channels; ++i)
      for (size_t y = 0; y < d.height; ++y)
        for (size_t x = 0; x < d.width; ++x)
          out[n++] = w[o * stride[axes.out_channels] + i * stride[axes.in_channels] +
                       y * stride[axes.height] + x * stride[axes.width]];
  return out;
}

// Output positions per image below which a convolution runs as dot products (a GEMM tile is 32
// positions wide: a short-time Fourier transform's few frames would waste most of it).
constexpr size_t kFewPositions = 16;

// The im2col matrix of one image and group: value (l, j) for l = (ci, ky, kx) and output
// position j at dst[j·position_stride + l·depth_stride], 0 in the padding (as rows of patches,
// or as the columns of a [depth, positions] matrix).
void gather_patches(const ConvShape& s, const float* x, float* dst, size_t position_stride,
                    size_t depth_stride) {
  const size_t window = s.kh * s.kw;
  for (size_t l = 0; l < s.depth(); ++l) {
    const size_t ci = l / window, ky = (l % window) / s.kw, kx = l % s.kw;
    const float* plane = x + ci * s.in_h * s.in_w;
    float* d = dst + l * depth_stride;
    for (size_t oy = 0; oy < s.out_h; ++oy) {
      const int64_t iy = int64_t(oy) * s.stride_h - s.pad_top + int64_t(ky) * s.dilation_h;
      const bool row_inside = iy >= 0 && iy < int64_t(s.in_h);
      for (size_t ox = 0; ox < s.out_w; ++ox) {
        const int64_t ix = int64_t(ox) * s.stride_w - s.pad_left + int64_t(kx) * s.dilation_w;
        d[(oy * s.out_w + ox) * position_stride] = row_inside && ix >= 0 && ix < int64_t(s.in_w)
                                                       ? plane[size_t(iy) * s.in_w + size_t(ix)]
                                                       : 0.0f;
      }
    }
  }
}

// What the kernel keeps: the packed filter of each group (or, for few output positions, the
// filter rows), the bias and the epilogue.
struct ConvKernel {
  ConvShape s;
  OperandId input, bias, output;
  std::shared_ptr<const std::vector<PackedA>> filters;  // per group
  std::shared_ptr<const std::vector<float>> rows;       // OIHW, when out_h·out_w < kFewPositions
  std::shared_ptr<const PhaseLayout> layout;            // unless pointwise or few positions
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;
  bool nhwc = false;  // the tensors are NHWC: run on NCHW copies (nchw_adapter.h)

  void operator()(std::span<std::byte* const> slots) const {
    run_convolution(slots, input, bias, output, nhwc, {s.batches, s.in_h, s.in_w, s.in_channels},
                    {s.batches, s.out_h, s.out_w, s.out_channels}, *pool,
                    [this](const float* x, float* y, const float* b) { run(x, y, b); });
  }

  // The convolution on NCHW data with few output positions per image: the im2col matrices of
  // every image gathered once; with few positions in all, each output a dot product of a filter
  // row and a patch; else one GEMM of the filter with the im2col columns of every image side by
  // side (so the GEMM's tiles are filled across images), scattered back per image.
  void run_few(const float* x, float* y, const float* b) const {
    const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w, depth = s.depth();
    const size_t columns = s.batches * out_plane;
    thread_local std::vector<float> patches, matrix, product;
    for (size_t g = 0; g < s.groups; ++g) {
      const size_t o0 = g * s.out_per_group();
      auto image = [&](size_t n) {
        return x + (n * s.in_channels + g * s.in_per_group()) * in_plane;
      };
      if (!rows) {  // [depth, columns] for the GEMM, then [out/g, columns] back per image
        matrix.resize(depth * columns);
        for (size_t n = 0; n < s.batches; ++n)
          gather_patches(s, image(n), matrix.data() + n * out_plane, 1, columns);
        product.resize(s.out_per_group() * columns);
        GemmOutput out;
        out.c = product.data();
        out.ldc = columns;
        out.row_bias = b ? b + o0 : nullptr;
        out.epilogue = epilogue ? &*epilogue : nullptr;
        gemm((*filters)[g], RowsBPacker(matrix.data(), (*filters)[g].depth, columns, columns),
             columns, out, pool.get());
        for (size_t n = 0; n < s.batches; ++n)
          for (size_t o = 0; o < s.out_per_group(); ++o)
            std::memcpy(y + (n * s.out_channels + o0 + o) * out_plane,
                        product.data() + o * columns + n * out_plane, out_plane * sizeof(float));
        continue;
      }
      patches.resize(columns * depth);
      for (size_t n = 0; n < s.batches; ++n)
        gather_patches(s, image(n), patches.data() + n * out_plane * depth, depth, 1);
      const float* pp = patches.data();
      pool->parallel_ranges(s.out_per_group(), std::max<size_t>(8192 / (depth * columns + 1), 1),
                            [&](size_t a, size_t e) {
                              const SubnormalsAsZero daz;
                              for (size_t o = o0 + a; o < o0 + e; ++o)
                                for (size_t n = 0; n < s.batches; ++n) {
                                  float* yo = y + (n * s.out_channels + o) * out_plane;
                                  const float* wo = rows->data() + o * depth;
                                  rows::dots(wo, pp + n * out_plane * depth, depth, out_plane,
                                             depth, yo);
                                  if (b)
                                    for (size_t j = 0; j < out_plane; ++j) yo[j] += b[o];
                                  if (epilogue) epilogue->apply(yo, out_plane);
                                }
                            });
    }
  }

  // The convolution on NCHW data.
  void run(const float* x, float* y, const float* b) const {
    if (s.out_h * s.out_w < kFewPositions) return run_few(x, y, b);
    const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
    for (size_t n = 0; n < s.batches; ++n) {
      for (size_t g = 0; g < s.groups; ++g) {
        const float* xg = x + (n * s.in_channels + g * s.in_per_group()) * in_plane;
        GemmOutput out;
        out.c = y + (n * s.out_channels + g * s.out_per_group()) * out_plane;
        out.ldc = out_plane;
        out.row_bias = b ? b + g * s.out_per_group() : nullptr;
        out.epilogue = epilogue ? &*epilogue : nullptr;
        if (s.pointwise()) {
          gemm((*filters)[g], RowsBPacker(xg, s.in_per_group(), out_plane, in_plane), out_plane,
               out, pool.get());
        } else {
          thread_local std::vector<float> phases;
          build_phases(s, *layout, xg, phases, *pool);
          const Im2colPacker packer(*layout, phases.data());
          const size_t cols = layout->cols, grid = s.out_h * cols;
          if (cols == s.out_w) {
            gemm((*filters)[g], packer, grid, out, pool.get());
            continue;
          }
          // On the widened grid, then its rows cut back to the output's width.
          thread_local std::vector<float> wide;
          wide.resize(s.out_per_group() * grid);
          float* y0 = out.c;
          out.c = wide.data();
          out.ldc = grid;
          gemm((*filters)[g], packer, grid, out, pool.get());
          const float* w = wide.data();  // (thread_local: the pool's threads have their own)
          pool->parallel_ranges(s.out_per_group(), std::max<size_t>(16384 / (grid + 1), 1),
                                [&](size_t o0, size_t o1) {
                                  for (size_t o = o0; o < o1; ++o)
                                    for (size_t oy = 0; oy < s.out_h; ++oy)
                                      std::memcpy(y0 + o * out_plane + oy * s.out_w,
                                                  w + o * grid + oy * cols,
                                                  s.out_w * sizeof(float));
                                });
        }
      }
    }
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_conv2d(const CompileContext& cc, const Operation& op) {
  const auto& o = attrs_of<OpType::kConv2d>(op.attrs).options;
  const OperandId input = op.inputs[0], filter = op.inputs[1];
  const OperandId bias = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  if (cc.desc(input).dataType != MLOperandDataType::kFloat32 || !cc.constant(filter))
    return std::nullopt;
  const InputDims xs = input_dims(cc.desc(input).shape, o.inputLayout);
  const InputDims ys = input_dims(cc.desc(op.outputs[0]).shape, o.inputLayout);
  const FilterAxes fa = conv2d_filter_axes(o.filterLayout);
  const FilterDims fd = filter_dims(cc.desc(filter).shape, fa);
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  ConvShape s{xs.batches,     xs.channels,    xs.height,        xs.width,
              ys.channels,    ys.height,      ys.width,         o.groups,
              fd.height,      fd.width,       win.padding[0],   win.padding[2],
              win.strides[0], win.strides[1], win.dilations[0], win.dilations[1]};
  if (s.groups == 0 || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0 ||
      fd.in_channels != s.in_per_group())
    return std::nullopt;
  std::vector<float> w =
      filter_oihw(reinterpret_cast<const float*>(cc.constant(filter)), cc.desc(filter).shape, fa);
  auto filters = std::make_shared<std::vector<PackedA>>();
  std::shared_ptr<const std::vector<float>> rows;
  if (s.out_h * s.out_w < kFewPositions && s.batches * s.out_h * s.out_w < kFewPositions) {
    rows = std::make_shared<const std::vector<float>>(std::move(w));
  } else {
    for (size_t g = 0; g < s.groups; ++g)
      filters->push_back(PackedA::pack(w.data() + g * s.out_per_group() * s.depth(),
                                       s.out_per_group(), s.depth(), s.depth(), 1));
  }
  std::shared_ptr<const PhaseLayout> layout;
  if (!rows && !s.pointwise() && s.out_h * s.out_w >= kFewPositions)
    layout = std::make_shared<const PhaseLayout>(s);
  ConvKernel k{s,
               input,
               bias,
               op.outputs[0],
               std::move(filters),
               std::move(rows),
               std::move(layout),
               Epilogue::from(op.activations),
               cc.pool,
               o.inputLayout == MLInputOperandLayout::kNhwc};
  const bool applies = k.epilogue.has_value();
  return FastKernel{std::move(k), applies};
}

}  // namespace cppnn::cpu
