// conv2d on the cpu backend (webnn-spec.md §2 row 7), float32, NCHW input (NHWC through NCHW
// copies, nchw_adapter.h), constant filter in any layout: per batch and channel group a GEMM
// of the filter (packed once at build as [Cout/g, Cin/g·kh·kw]) with the input's implicit im2col
// matrix [Cin/g·kh·kw, OH·OW], packed block by block straight from the image (no im2col buffer),
// or with the input planes themselves for a 1×1 convolution without stride or padding. The bias
// and the fused activations are applied while the output tile is in cache.
#include <algorithm>
#include <cstring>
#include <memory>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/nchw_adapter.h"
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

// The implicit im2col matrix of one batch and group: row l = (ci, ky, kx), column j = (oy, ox),
// value x[ci, oy·sh − pt + ky·dh, ox·sw − pl + kx·dw] (0 in the padding).
class Im2colPacker final : public BPacker {
 public:
  Im2colPacker(const ConvShape& s, const float* x) : s_(s), x_(x) {}

  void pack(size_t k0, size_t kc, size_t n0, size_t nc, float* dst) const override {
    const size_t nr = kGemmNR;
    const size_t window = s_.kh * s_.kw;
    for (size_t l = 0; l < kc; ++l) {
      const size_t row = k0 + l;
      const size_t ci = row / window, ky = (row % window) / s_.kw, kx = row % s_.kw;
      const float* plane = x_ + ci * s_.in_h * s_.in_w;
      const int64_t dy = int64_t(ky) * s_.dilation_h - s_.pad_top;
      const int64_t dx = int64_t(kx) * s_.dilation_w - s_.pad_left;
      size_t j = 0;
      size_t oy = n0 / s_.out_w, ox = n0 % s_.out_w;
      while (j < nc) {
        // One output row's run of columns, cut where the packed panels change.
        const size_t run = std::min(nc - j, s_.out_w - ox);
        const int64_t iy = int64_t(oy) * s_.stride_h + dy;
        const float* src =
            iy >= 0 && iy < int64_t(s_.in_h) ? plane + size_t(iy) * s_.in_w : nullptr;
        for (size_t t = 0; t < run;) {
          const size_t jj = j + t, offset = jj % nr;
          const size_t len = std::min(run - t, nr - offset);
          float* d = dst + (jj / nr) * kc * nr + l * nr + offset;
          copy_row(src, int64_t(ox + t) * s_.stride_w + dx, len, d);
          t += len;
        }
        j += run;
        ox = 0;
        ++oy;
      }
      for (size_t jj = nc; jj % nr != 0; ++jj) dst[(jj / nr) * kc * nr + l * nr + jj % nr] = 0.0f;
    }
  }

 private:
  // d[t] = src[ix + t·sw] for t < len, 0 outside the row (or everywhere when src is null).
  void copy_row(const float* src, int64_t ix, size_t len, float* d) const {
    const int64_t w = int64_t(s_.in_w), sw = s_.stride_w;
    if (!src) {
      std::fill(d, d + len, 0.0f);
      return;
    }
    // The valid range [lo, hi) of t: 0 <= ix + t·sw < w.
    const int64_t lo = ix >= 0 ? 0 : std::min<int64_t>(int64_t(len), (-ix + sw - 1) / sw);
    const int64_t hi =
        ix >= w ? lo
                : std::max<int64_t>(lo, std::min<int64_t>(int64_t(len), (w - ix + sw - 1) / sw));
    std::fill(d, d + lo, 0.0f);
    if (sw == 1) {
      std::memcpy(d + lo, src + ix + lo, size_t(hi - lo) * sizeof(float));
    } else {
      for (int64_t t = lo; t < hi; ++t) d[t] = src[ix + t * sw];
    }
    std::fill(d + hi, d + len, 0.0f);
  }

  const ConvShape& s_;
  const float* x_;
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

// What the kernel keeps: the packed filter of each group, the bias and the epilogue.
struct ConvKernel {
  ConvShape s;
  OperandId input, bias, output;
  std::shared_ptr<const std::vector<PackedA>> filters;  // per group
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;
  bool nhwc = false;  // the tensors are NHWC: run on NCHW copies (nchw_adapter.h)

  void operator()(std::span<std::byte* const> slots) const {
    run_convolution(slots, input, bias, output, nhwc, {s.batches, s.in_h, s.in_w, s.in_channels},
                    {s.batches, s.out_h, s.out_w, s.out_channels}, *pool,
                    [this](const float* x, float* y, const float* b) { run(x, y, b); });
  }

  // The convolution on NCHW data.
  void run(const float* x, float* y, const float* b) const {
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
          gemm((*filters)[g], MatrixBPacker(xg, in_plane, 1), out_plane, out, pool.get());
        } else {
          gemm((*filters)[g], Im2colPacker(s, xg), out_plane, out, pool.get());
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
  const std::vector<float> w =
      filter_oihw(reinterpret_cast<const float*>(cc.constant(filter)), cc.desc(filter).shape, fa);
  auto filters = std::make_shared<std::vector<PackedA>>();
  for (size_t g = 0; g < s.groups; ++g)
    filters->push_back(PackedA::pack(w.data() + g * s.out_per_group() * s.depth(),
                                     s.out_per_group(), s.depth(), s.depth(), 1));
  ConvKernel k{s,
               input,
               bias,
               op.outputs[0],
               std::move(filters),
               Epilogue::from(op.activations),
               cc.pool,
               o.inputLayout == MLInputOperandLayout::kNhwc};
  const bool applies = k.epilogue.has_value();
  return FastKernel{std::move(k), applies};
}

}  // namespace cppnn::cpu
