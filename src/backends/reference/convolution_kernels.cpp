// Reference kernels for conv2d and convTranspose2d (webnn-spec.md §2 rows 7-8) over float32 and
// float16. Every input and filter layout is read in place through the strides of its named
// dimensions. Each output element is a dot product accumulated in double (the products of two
// float32 values are exact in double), plus the bias, rounded once to the output type. Positions
// that fall into the padding contribute nothing.
#include <cstdint>
#include <string>

#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"
#include "src/ops/convolution_params.h"

namespace cppnn::ref {
namespace {

// Element strides of the four named dimensions of a 4-D operand.
struct NamedStrides {
  int64_t batches = 0, channels = 0, height = 0, width = 0;  // input / output
};
NamedStrides input_strides(const Dims& shape, MLInputOperandLayout layout) {
  const Strides s = contiguous_strides(shape);
  const InputAxes a = input_axes(layout);
  return {s[a.batches], s[a.channels], s[a.height], s[a.width]};
}
struct FilterStrides {
  int64_t in_channels = 0, out_channels = 0, height = 0, width = 0;
};
FilterStrides filter_strides(const Dims& shape, FilterAxes a) {
  const Strides s = contiguous_strides(shape);
  return {s[a.in_channels], s[a.out_channels], s[a.height], s[a.width]};
}

// Everything a convolution kernel needs, resolved at compile time.
struct ConvPlan {
  OperandId input, filter, bias, output;
  InputDims in, out;    // input and output dims by name
  FilterDims f;         // filter dims by name
  uint32_t groups = 1;  // the channel groups
  int64_t pad_top = 0, pad_left = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  NamedStrides xs, ys;  // input and output strides
  FilterStrides fs;     // filter strides
};

// The plan of either convolution from its operands and resolved options.
template <class Options>
ConvPlan make_plan(const KernelContext& kc, const Operation& op, const Options& o, FilterAxes fa) {
  ConvPlan p;
  p.input = op.inputs[0];
  p.filter = op.inputs[1];
  p.bias = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  p.output = op.outputs[0];
  const Dims& x = kc.desc(p.input).shape;
  const Dims& w = kc.desc(p.filter).shape;
  const Dims& y = kc.desc(p.output).shape;
  p.in = input_dims(x, o.inputLayout);
  p.out = input_dims(y, o.inputLayout);
  p.f = filter_dims(w, fa);
  p.groups = o.groups;
  const WindowOptions win = window_defaults(o.padding, o.strides, o.dilations);
  p.pad_top = win.padding[0];
  p.pad_left = win.padding[2];
  p.stride_h = win.strides[0];
  p.stride_w = win.strides[1];
  p.dilation_h = win.dilations[0];
  p.dilation_w = win.dilations[1];
  p.xs = input_strides(x, o.inputLayout);
  p.ys = input_strides(y, o.inputLayout);
  p.fs = filter_strides(w, fa);
  return p;
}

// conv2d: out[n,oc,oy,ox] = bias[oc] + Σ x[n, g·Cin/g + i, oy·sh − pt + ky·dh, ox·sw − pl + kx·dw]
// · filter[oc, i, ky, kx] over i < Cin/groups and the window, where g = oc / (Cout/groups).
template <class T>
Kernel conv2d_kernel(const ConvPlan& p) {
  return [p](std::span<std::byte* const> slots) {
    const T* x = data_of<T>(slots, p.input);
    const T* w = data_of<T>(slots, p.filter);
    const T* b = p.bias.valid() ? data_of<T>(slots, p.bias) : nullptr;
    T* y = data_of<T>(slots, p.output);
    const uint32_t cin_g = p.in.channels / p.groups, cout_g = p.out.channels / p.groups;
    for (uint32_t n = 0; n < p.out.batches; ++n) {
      for (uint32_t oc = 0; oc < p.out.channels; ++oc) {
        const uint32_t first_ic = oc / cout_g * cin_g;
        for (uint32_t oy = 0; oy < p.out.height; ++oy) {
          for (uint32_t ox = 0; ox < p.out.width; ++ox) {
            double acc = 0;
            for (uint32_t i = 0; i < cin_g; ++i) {
              const int64_t x_c = n * p.xs.batches + (first_ic + i) * p.xs.channels;
              const int64_t w_c = oc * p.fs.out_channels + i * p.fs.in_channels;
              for (uint32_t ky = 0; ky < p.f.height; ++ky) {
                const int64_t iy = int64_t{oy} * p.stride_h - p.pad_top + ky * p.dilation_h;
                if (iy < 0 || iy >= p.in.height) continue;
                for (uint32_t kx = 0; kx < p.f.width; ++kx) {
                  const int64_t ix = int64_t{ox} * p.stride_w - p.pad_left + kx * p.dilation_w;
                  if (ix < 0 || ix >= p.in.width) continue;
                  acc += to_double(x[x_c + iy * p.xs.height + ix * p.xs.width]) *
                         to_double(w[w_c + ky * p.fs.height + kx * p.fs.width]);
                }
              }
            }
            if (b) acc += to_double(b[oc]);
            y[n * p.ys.batches + oc * p.ys.channels + oy * p.ys.height + ox * p.ys.width] =
                from_double<T>(acc);
          }
        }
      }
    }
  };
}

// convTranspose2d, as the gather form of the scatter definition: out[n,oc,oy,ox] = bias[oc] +
// Σ x[n, ic, iy, ix] · filter[ic, oc mod (Cout/g), ky, kx] over the input channels ic of oc's
// group and the window positions with iy·sh − pt + ky·dh = oy and ix·sw − pl + kx·dw = ox.
template <class T>
Kernel conv_transpose2d_kernel(const ConvPlan& p) {
  return [p](std::span<std::byte* const> slots) {
    const T* x = data_of<T>(slots, p.input);
    const T* w = data_of<T>(slots, p.filter);
    const T* b = p.bias.valid() ? data_of<T>(slots, p.bias) : nullptr;
    T* y = data_of<T>(slots, p.output);
    const uint32_t cin_g = p.in.channels / p.groups, cout_g = p.f.out_channels;
    for (uint32_t n = 0; n < p.out.batches; ++n) {
      for (uint32_t oc = 0; oc < p.out.channels; ++oc) {
        const uint32_t first_ic = oc / cout_g * cin_g, oc_g = oc % cout_g;
        for (uint32_t oy = 0; oy < p.out.height; ++oy) {
          for (uint32_t ox = 0; ox < p.out.width; ++ox) {
            double acc = 0;
            for (uint32_t i = 0; i < cin_g; ++i) {
              const uint32_t ic = first_ic + i;
              const int64_t x_c = n * p.xs.batches + ic * p.xs.channels;
              const int64_t w_c = ic * p.fs.in_channels + oc_g * p.fs.out_channels;
              for (uint32_t ky = 0; ky < p.f.height; ++ky) {
                const int64_t ty = int64_t{oy} + p.pad_top - ky * p.dilation_h;
                if (ty < 0 || ty % p.stride_h != 0 || ty / p.stride_h >= p.in.height) continue;
                const int64_t iy = ty / p.stride_h;
                for (uint32_t kx = 0; kx < p.f.width; ++kx) {
                  const int64_t tx = int64_t{ox} + p.pad_left - kx * p.dilation_w;
                  if (tx < 0 || tx % p.stride_w != 0 || tx / p.stride_w >= p.in.width) continue;
                  const int64_t ix = tx / p.stride_w;
                  acc += to_double(x[x_c + iy * p.xs.height + ix * p.xs.width]) *
                         to_double(w[w_c + ky * p.fs.height + kx * p.fs.width]);
                }
              }
            }
            if (b) acc += to_double(b[oc]);
            y[n * p.ys.batches + oc * p.ys.channels + oy * p.ys.height + ox * p.ys.width] =
                from_double<T>(acc);
          }
        }
      }
    }
  };
}

// Calls f(Tag<T>{}) with the float element type `t` (convolutions take float32 and float16).
template <class F>
Kernel for_float_type(MLOperandDataType t, F&& f) {
  if (t == MLOperandDataType::kFloat16) return f(Tag<Half>{});
  if (t == MLOperandDataType::kFloat32) return f(Tag<float>{});
  throw OperationError("reference backend: convolutions take float32 and float16 only");
}

}  // namespace

// conv2d (§2 row 7): grouped, strided, dilated and padded 2-D convolution plus optional bias.
Kernel compile_conv2d(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kConv2d>& attrs) {
  const auto& o = attrs.options;
  const ConvPlan p = make_plan(kc, op, o, conv2d_filter_axes(o.filterLayout));
  return for_float_type(kc.desc(p.input).dataType,
                        [&](auto tag) { return conv2d_kernel<typename decltype(tag)::type>(p); });
}

// convTranspose2d (§2 row 8): grouped, strided, dilated transposed convolution with padding
// cropped from the output, outputPadding/outputSizes extending it, plus optional bias.
Kernel compile_convTranspose2d(const KernelContext& kc, const Operation& op,
                               const AttrsOf<OpType::kConvTranspose2d>& attrs) {
  const auto& o = attrs.options;
  const ConvPlan p = make_plan(kc, op, o, conv_transpose2d_filter_axes(o.filterLayout));
  // The spec does not require Cin % groups == 0 here, but without it the channel groups (and so
  // the result) are undefined.
  if (p.in.channels % p.groups != 0)
    throw OperationError("reference backend: convTranspose2d input channels " +
                         std::to_string(p.in.channels) + " are not divisible by groups " +
                         std::to_string(p.groups) + ", so its channel groups are undefined");
  return for_float_type(kc.desc(p.input).dataType, [&](auto tag) {
    return conv_transpose2d_kernel<typename decltype(tag)::type>(p);
  });
}

}  // namespace cppnn::ref
