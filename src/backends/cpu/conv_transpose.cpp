// convTranspose2d on the cpu backend (webnn-spec.md §2 row 8), float32, NCHW input (NHWC through
// NCHW copies, nchw_adapter.h), constant filter in any layout: per batch and group one GEMM of the
// transposed filter [Cout/g·kh·kw, Cin/g] (packed once at build) with the input planes [Cin/g, H·W]
// into a column buffer, then col2im: every column value is added to the output pixel (iy·sh − pt +
// ky·dh, ix·sw − pl + kx·dw) it scatters to, over the bias; then the fused activations.
#include <algorithm>
#include <memory>

#include "src/backends/cpu/fast_kernel.h"
#include "src/backends/cpu/gemm.h"
#include "src/backends/cpu/nchw_adapter.h"
#include "src/ops/convolution_params.h"

namespace cppnn::cpu {
namespace {

struct TransposeShape {
  size_t batches, in_channels, in_h, in_w;
  size_t out_channels, out_h, out_w;
  size_t groups, kh, kw;
  int64_t pad_top, pad_left, stride_h, stride_w, dilation_h, dilation_w;
  size_t in_per_group() const { return in_channels / groups; }
  size_t out_per_group() const { return out_channels / groups; }
};

// Per-thread column buffer (grown, never shrunk).
float* column_scratch(size_t floats) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}

// Adds the columns of output channels [c0, c1) (rows (c, ky, kx) of `cols`, H·W wide) into y.
void col2im(const TransposeShape& s, const float* cols, float* y, size_t c0, size_t c1) {
  const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  for (size_t c = c0; c < c1; ++c) {
    float* plane = y + c * out_plane;
    for (size_t ky = 0; ky < s.kh; ++ky) {
      for (size_t kx = 0; kx < s.kw; ++kx) {
        const float* col = cols + ((c * s.kh + ky) * s.kw + kx) * in_plane;
        const int64_t dy = int64_t(ky) * s.dilation_h - s.pad_top;
        const int64_t dx = int64_t(kx) * s.dilation_w - s.pad_left;
        for (size_t iy = 0; iy < s.in_h; ++iy) {
          const int64_t oy = int64_t(iy) * s.stride_h + dy;
          if (oy < 0 || oy >= int64_t(s.out_h)) continue;
          float* row = plane + size_t(oy) * s.out_w;
          const float* src = col + iy * s.in_w;
          for (size_t ix = 0; ix < s.in_w; ++ix) {
            const int64_t ox = int64_t(ix) * s.stride_w + dx;
            if (ox >= 0 && ox < int64_t(s.out_w)) row[ox] += src[ix];
          }
        }
      }
    }
  }
}

struct ConvTransposeKernel {
  TransposeShape s;
  OperandId input, bias, output;
  std::shared_ptr<const std::vector<PackedA>> filters;  // per group: [Cout/g·kh·kw, Cin/g]
  std::optional<Epilogue> epilogue;
  std::shared_ptr<ThreadPool> pool;
  bool nhwc = false;  // the tensors are NHWC: run on NCHW copies (nchw_adapter.h)

  void operator()(std::span<std::byte* const> slots) const {
    run_convolution(slots, input, bias, output, nhwc, {s.batches, s.in_h, s.in_w, s.in_channels},
                    {s.batches, s.out_h, s.out_w, s.out_channels}, *pool,
                    [this](const float* x, float* y, const float* b) { run(x, y, b); });
  }

  // The transposed convolution on NCHW data.
  void run(const float* x, float* y, const float* b) const {
    const size_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
    const size_t rows = s.out_per_group() * s.kh * s.kw;
    float* cols = column_scratch(rows * in_plane);
    const size_t tasks = std::min<size_t>(s.out_per_group(), pool->size() * 4);
    for (size_t n = 0; n < s.batches; ++n) {
      for (size_t g = 0; g < s.groups; ++g) {
        GemmOutput out;
        out.c = cols;
        out.ldc = in_plane;
        const float* xg = x + (n * s.in_channels + g * s.in_per_group()) * in_plane;
        gemm((*filters)[g], RowsBPacker(xg, s.in_per_group(), in_plane, in_plane), in_plane, out,
             pool.get());
        float* yg = y + (n * s.out_channels + g * s.out_per_group()) * out_plane;
        pool->parallel_for(tasks, [&](size_t t) {
          const size_t c0 = s.out_per_group() * t / tasks, c1 = s.out_per_group() * (t + 1) / tasks;
          for (size_t c = c0; c < c1; ++c)
            std::fill(yg + c * out_plane, yg + (c + 1) * out_plane,
                      b ? b[g * s.out_per_group() + c] : 0.0f);
          col2im(s, cols, yg, c0, c1);
          if (epilogue) epilogue->apply(yg + c0 * out_plane, (c1 - c0) * out_plane);
        });
      }
    }
  }
};

}  // namespace

std::optional<FastKernel> compile_fast_conv_transpose2d(const CompileContext& cc,
                                                        const Operation& op) {
  const auto& o = attrs_of<OpType::kConvTranspose2d>(op.attrs).options;
  const OperandId input = op.inputs[0], filter = op.inputs[1];
  const OperandId bias = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  if (cc.desc(input).dataType != MLOperandDataType::kFloat32 || !cc.constant(filter))
    return std::nullopt;
  const InputDims xs = input_dims(cc.desc(input).shape, o.inputLayout);
  const InputDims ys = input_dims(cc.desc(op.outputs[0]).shape, o.inputLayout);
  const Dims& fshape = cc.desc(filter).shape;
  const FilterAxes fa = conv_transpose2d_filter_axes(o.filterLayout);
  const FilterDims fd = filter_dims(fshape, fa);
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  TransposeShape s{xs.batches,     xs.channels,    xs.height,        xs.width,
                   ys.channels,    ys.height,      ys.width,         o.groups,
                   fd.height,      fd.width,       win.padding[0],   win.padding[2],
                   win.strides[0], win.strides[1], win.dilations[0], win.dilations[1]};
  if (s.groups == 0 || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0 ||
      fd.out_channels != s.out_per_group() || fd.in_channels != s.in_channels)
    return std::nullopt;
  // The filter as [Cin][Cout/g][kh][kw] (iohw), whatever its layout.
  const float* w = reinterpret_cast<const float*>(cc.constant(filter));
  size_t stride[4];
  stride[3] = 1;
  for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * fshape[i + 1];
  const size_t cout_g = s.out_per_group(), window = s.kh * s.kw;
  std::vector<float> iohw(s.in_channels * cout_g * window);
  for (size_t i = 0; i < s.in_channels; ++i)
    for (size_t oc = 0; oc < cout_g; ++oc)
      for (size_t y = 0; y < s.kh; ++y)
        for (size_t x = 0; x < s.kw; ++x)
          iohw[((i * cout_g + oc) * s.kh + y) * s.kw + x] =
              w[i * stride[fa.in_channels] + oc * stride[fa.out_channels] + y * stride[fa.height] +
                x * stride[fa.width]];
  // Per group the transpose: a(r, ci) = iohw[(g·Cin/g + ci)·(Cout/g·kh·kw) + r].
  auto filters = std::make_shared<std::vector<PackedA>>();
  const size_t rows = cout_g * window;
  for (size_t g = 0; g < s.groups; ++g)
    filters->push_back(
        PackedA::pack(iohw.data() + g * s.in_per_group() * rows, rows, s.in_per_group(), 1, rows));
  ConvTransposeKernel k{s,
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
