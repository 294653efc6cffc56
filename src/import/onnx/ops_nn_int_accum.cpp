// Exact integer accumulation on float32 WebNN ops (see ops_nn_int_accum.h for the rule).
#include "src/import/onnx/ops_nn_int_accum.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "src/import/onnx/host_ops.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

// float32 represents every integer of magnitude <= 2^24.
constexpr double kExactFloat32 = 16777216.0;
// Results must stay within int32 (ONNX leaves overflowing accumulation undefined).
constexpr double kInt32Limit = 2147483648.0;

// A float32 host tensor of `values` (exact small integers here).
HostTensor float_tensor(const std::vector<float>& values, std::vector<uint32_t> shape) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return HostTensor::of_bytes({DT::kFloat32, std::move(shape)}, std::move(bytes));
}

// Row-major strides of `shape`, 0 where the dimension is 1 (a broadcast axis).
std::vector<uint64_t> broadcast_strides(const std::vector<uint32_t>& shape) {
  std::vector<uint64_t> s(shape.size(), 0);
  uint64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = shape[d] == 1 ? 0 : stride;
    stride *= shape[d];
  }
  return s;
}

// The bounds of what a reduction of shifted products adds up: per reduction index r and output
// j, a bound on the magnitude r contributes to output j. Known weights give exact per-(r, j)
// sums of |w'| times max|x'|; otherwise every r contributes `uniform` to a single output class.
struct ReductionBounds {
  uint32_t length = 0;     // reduction indices (K, or input channels per group)
  size_t outputs = 1;      // output classes j
  std::vector<double> at;  // length x outputs, row-major; empty: uniform
  double uniform = 0;

  double contribution(uint32_t r, size_t j) const {
    return at.empty() ? uniform : at[r * outputs + j];
  }
  // The largest contribution of index r to any output.
  double row_max(uint32_t r) const {
    if (at.empty()) return uniform;
    if (outputs == 0) return 0;
    return *std::max_element(at.begin() + static_cast<std::ptrdiff_t>(r * outputs),
                             at.begin() + static_cast<std::ptrdiff_t>((r + 1) * outputs));
  }
  // A bound on every output element: max over j of the sum over r.
  double total() const {
    if (at.empty()) return uniform * length;
    if (outputs == 0) return 0;
    std::vector<double> sums(outputs, 0.0);
    for (uint32_t r = 0; r < length; ++r)
      for (size_t j = 0; j < outputs; ++j) sums[j] += at[r * outputs + j];
    return *std::max_element(sums.begin(), sums.end());
  }
};

// Contiguous chunks [begin, end) of the reduction, greedy, each with a bound <= 2^24 on every
// output. NotSupportedError when one index alone exceeds it.
std::vector<std::pair<uint32_t, uint32_t>> plan_chunks(const NodeContext& c,
                                                       const ReductionBounds& b) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  std::vector<double> running(b.outputs, 0.0);
  uint32_t begin = 0;
  for (uint32_t r = 0; r < b.length; ++r) {
    if (b.row_max(r) > kExactFloat32)
      c.unsupported(
          "the partial sum of one input channel's kernel window may exceed 2^24, which "
          "float32 accumulation cannot hold exactly");
    bool fits = true;
    for (size_t j = 0; j < b.outputs && fits; ++j)
      fits = running[j] + b.contribution(r, j) <= kExactFloat32;
    if (!fits) {
      out.emplace_back(begin, r);
      begin = r;
      std::fill(running.begin(), running.end(), 0.0);
    }
    for (size_t j = 0; j < b.outputs; ++j) running[j] += b.contribution(r, j);
  }
  out.emplace_back(begin, b.length);
  return out;
}

// NotSupportedError when the accumulation may leave int32.
void check_int32(const NodeContext& c, double bound) {
  if (bound >= kInt32Limit)
    c.unsupported("the integer accumulation may overflow int32 (bound " +
                  std::to_string(static_cast<uint64_t>(bound)) + ")");
}

// `s` sliced to [start, start + len) along `axis` (on the host when known).
MLOperand slice_axis(NodeContext& c, const ShiftedInput& s, size_t axis, uint32_t start,
                     uint32_t len) {
  std::vector<uint32_t> counts = s.value.shape();
  if (start == 0 && len == counts[axis]) return s.value;
  counts[axis] = len;
  if (s.known) {
    std::vector<int64_t> starts(counts.size(), 0), steps(counts.size(), 1);
    starts[axis] = start;
    return c.constant_operand(host_slice(*s.known, starts, steps, counts));
  }
  std::vector<uint32_t> starts(counts.size(), 0);
  starts[axis] = start;
  return c.builder().slice(s.value, starts, counts, c.opts<MLSliceOptions>());
}

// Adds the int32 value of an exact float32 part to `sum`.
void add_part(NodeContext& c, std::optional<MLOperand>& sum, const MLOperand& part) {
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  MLOperand p = c.builder().cast(part, DT::kInt32, o);
  sum = sum ? c.builder().add(*sum, p, o) : p;
}

// The reduction bounds of a · b (a [..., M, K], b [..., K, N]).
ReductionBounds matmul_bounds(const ShiftedInput& a, const ShiftedInput& b) {
  const std::vector<uint32_t>& as = a.value.shape();
  const std::vector<uint32_t>& bs = b.value.shape();
  ReductionBounds r;
  r.length = as.back();
  if (r.length == 0) return r;
  r.uniform = static_cast<double>(a.max_abs) * b.max_abs;
  if (b.known) {  // per column of each batch: j = batch · N + n
    const uint32_t n = bs.back();
    const std::vector<double> v = b.known->to_double();
    r.outputs = v.size() / r.length;
    r.at.assign(v.size(), 0.0);
    for (size_t f = 0; f < v.size(); ++f) {
      const size_t k = (f / n) % r.length;
      const size_t j = f / (size_t{n} * r.length) * n + f % n;
      r.at[k * r.outputs + j] = std::fabs(v[f]) * a.max_abs;
    }
  } else if (a.known) {  // per row: j = f / K
    const std::vector<double> v = a.known->to_double();
    r.outputs = v.size() / r.length;
    r.at.assign(v.size(), 0.0);
    for (size_t f = 0; f < v.size(); ++f)
      r.at[(f % r.length) * r.outputs + f / r.length] = std::fabs(v[f]) * b.max_abs;
  }
  return r;
}

// The reduction bounds of conv2d(x, w) over the input channels of a group (w [M, Cg, kH, kW]).
ReductionBounds conv_bounds(const ShiftedInput& x, const ShiftedInput& w) {
  const std::vector<uint32_t>& ws = w.value.shape();
  const uint64_t window = uint64_t{ws[2]} * ws[3];
  ReductionBounds r;
  r.length = ws[1];
  r.uniform = static_cast<double>(window) * x.max_abs * w.max_abs;
  if (w.known) {  // per output channel m
    const std::vector<double> v = w.known->to_double();
    r.outputs = ws[0];
    r.at.assign(size_t{r.length} * r.outputs, 0.0);
    for (size_t f = 0; f < v.size(); ++f) {
      const size_t m = f / (window * r.length);
      const size_t ci = (f / window) % r.length;
      r.at[ci * r.outputs + m] += std::fabs(v[f]) * x.max_abs;
    }
  }
  return r;
}

}  // namespace

ShiftedInput shifted_input(NodeContext& c, size_t i, std::optional<size_t> zp,
                           const std::vector<uint32_t>& shape,
                           const std::vector<uint32_t>& zp_shape) {
  const DT t = c.input_type(i);
  if (t != DT::kUint8 && t != DT::kInt8)
    c.unsupported("input " + std::to_string(i) + " of type " + std::string(data_type_name(t)) +
                  " (int8 or uint8 only)");
  const double lo = t == DT::kUint8 ? 0 : -128;
  const double hi = t == DT::kUint8 ? 255 : 127;
  if (zp && !c.has_input(*zp)) zp.reset();
  if (zp) {
    if (c.input_type(*zp) != t) c.invalid("a zero point's type differs from its input's");
    if (element_count(c.input_shape(*zp)) != element_count(zp_shape))
      c.invalid("a zero point of shape " + shape_to_string(c.input_shape(*zp)) +
                " does not fit its input");
  }
  ShiftedInput s;
  std::vector<double> zv{0.0};
  if (zp && c.is_constant(*zp)) zv = c.constant(*zp).to_double();
  double max_abs = zp && !c.is_constant(*zp) ? hi - lo : 0;
  for (double z : zv) max_abs = std::max({max_abs, z - lo, hi - z});
  s.max_abs = static_cast<uint32_t>(max_abs);
  MLGraphBuilder& b = c.builder();
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  if (c.is_constant(i) && (!zp || c.is_constant(*zp))) {
    const std::vector<double> xv = c.constant(i).to_double();
    const std::vector<uint64_t> zs = broadcast_strides(zp_shape);
    std::vector<float> v(xv.size());
    double seen = 0;
    for (uint64_t f = 0; f < xv.size(); ++f) {
      uint64_t rest = f, off = 0;
      for (size_t d = shape.size(); d-- > 0;) {
        off += rest % shape[d] * (zp ? zs[d] : 0);
        rest /= shape[d];
      }
      v[f] = static_cast<float>(xv[f] - zv[off]);
      seen = std::max(seen, std::fabs(xv[f] - zv[off]));
    }
    s.max_abs = static_cast<uint32_t>(seen);
    s.known = float_tensor(v, shape);
    s.value = c.constant_operand(*s.known);
    return s;
  }
  s.value = b.cast(reshaped_input(c, i, shape), DT::kFloat32, o);
  if (!zp) return s;
  if (c.is_constant(*zp)) {
    if (std::all_of(zv.begin(), zv.end(), [](double z) { return z == 0; })) return s;
    std::vector<float> zf(zv.begin(), zv.end());
    s.value = b.sub(s.value, c.constant_operand(float_tensor(zf, zp_shape)), o);
  } else {
    s.value = b.sub(s.value, b.cast(reshaped_input(c, *zp, zp_shape), DT::kFloat32, o), o);
  }
  return s;
}

IntegerSum integer_matmul(NodeContext& c, const ShiftedInput& a, const ShiftedInput& b) {
  const ReductionBounds bounds = matmul_bounds(a, b);
  const double total = bounds.total();
  check_int32(c, total);
  const MLOperatorOptions o = c.opts<MLOperatorOptions>();
  if (total <= kExactFloat32) return {c.builder().matmul(a.value, b.value, o), false};
  const size_t ra = a.value.shape().size(), rb = b.value.shape().size();
  std::optional<MLOperand> sum;
  for (const auto& [begin, end] : plan_chunks(c, bounds)) {
    MLOperand ac = slice_axis(c, a, ra - 1, begin, end - begin);
    MLOperand bc = slice_axis(c, b, rb - 2, begin, end - begin);
    add_part(c, sum, c.builder().matmul(ac, bc, o));
  }
  return {*sum, true};
}

IntegerSum integer_conv2d(NodeContext& c, const ShiftedInput& x, const ShiftedInput& w,
                          const MLConv2dOptions& options, const std::optional<HostTensor>& bias,
                          bool& bias_added) {
  bias_added = false;
  const ReductionBounds bounds = conv_bounds(x, w);
  const double total = bounds.total();
  check_int32(c, total);
  MLGraphBuilder& b = c.builder();
  if (total <= kExactFloat32) {
    MLConv2dOptions o = options;
    if (bias) {
      const std::vector<double> bv = bias->to_double();
      double bmax = 0;
      for (double v : bv) bmax = std::max(bmax, std::fabs(v));
      if (total + bmax <= kExactFloat32) {
        o.bias = c.constant_operand(
            float_tensor(std::vector<float>(bv.begin(), bv.end()), bias->desc.shape));
        bias_added = true;
      }
    }
    return {b.conv2d(x.value, w.value, o), false};
  }
  // Chunks of input channels within each group: x [N, G·Cg, H, W] viewed as [N, G, Cg, H, W].
  const std::vector<uint32_t>& xs = x.value.shape();
  const uint32_t groups = options.groups;
  const uint32_t cg = bounds.length;
  std::optional<MLOperand> grouped;
  if (groups > 1) grouped = reshape_to(c, x.value, {xs[0], groups, cg, xs[2], xs[3]});
  std::optional<MLOperand> sum;
  for (const auto& [begin, end] : plan_chunks(c, bounds)) {
    const uint32_t len = end - begin;
    MLOperand xc = x.value;
    if (groups == 1) {
      xc = slice_axis(c, x, 1, begin, len);
    } else {
      xc = b.slice(*grouped, {0, 0, begin, 0, 0}, {xs[0], groups, len, xs[2], xs[3]},
                   c.opts<MLSliceOptions>());
      xc = reshape_to(c, xc, {xs[0], groups * len, xs[2], xs[3]});
    }
    add_part(c, sum, b.conv2d(xc, slice_axis(c, w, 1, begin, len), options));
  }
  return {*sum, true};
}

MLOperand sum_as_int32(NodeContext& c, const IntegerSum& s) {
  if (s.is_int32) return s.value;
  return c.builder().cast(s.value, DT::kInt32, c.opts<MLOperatorOptions>());
}

MLOperand sum_as_float32(NodeContext& c, const IntegerSum& s) {
  if (!s.is_int32) return s.value;
  return c.builder().cast(s.value, DT::kFloat32, c.opts<MLOperatorOptions>());
}

}  // namespace cppnn::onnx_import
