// ONNX MaxUnpool (ops_nn.def): the values X scattered to their flat indices I (as MaxPool's
// Indices give them: row-major into the whole tensor) in a zero tensor of the inferred shape
// ((in − 1)·stride + kernel − pad_begin − pad_end per spatial axis), as a WebNN scatterElements
// over the flattened tensor. An `output_shape` input pads that result at the end of each spatial
// axis, as the ONNX reference and node tests define it (ONNX Runtime instead scatters the indices
// straight into the output_shape tensor; the two agree when output_shape is the inferred shape).
#include <string>
#include <vector>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_bound.h"
#include "src/import/onnx/ops_nn_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// The inferred output shape of MaxUnpool, from the attributes.
std::vector<uint32_t> inferred_shape(const NodeContext& c) {
  const std::vector<uint32_t>& xs = c.input_shape(0);
  const size_t n = xs.size() - 2;
  const SpatialParams p = spatial_params(c, std::vector<uint32_t>(xs.begin() + 2, xs.end()), {});
  std::vector<uint32_t> out(xs.begin(), xs.begin() + 2);
  for (size_t i = 0; i < n; ++i) {
    const int64_t d =
        (int64_t{xs[2 + i]} - 1) * p.strides[i] + p.kernel[i] - p.pad_begin[i] - p.pad_end[i];
    if (d <= 0)
      c.invalid("the output size of spatial axis " + std::to_string(i) + " is not positive");
    out.push_back(to_dims(c, {d})[0]);
  }
  return out;
}

// The output_shape input (or `inferred` when absent): NotSupportedError when it is smaller than
// `inferred` on a spatial axis or changes N or C (no zero padding expresses that).
std::vector<uint32_t> padded_shape(const NodeContext& c, const std::vector<uint32_t>& inferred) {
  if (!c.has_input(2)) return inferred;
  const std::vector<uint32_t> out = to_dims(c, c.ints(2, "output_shape"));
  if (out.size() != inferred.size()) c.invalid("output_shape must have the input's rank");
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] < inferred[i] || (i < 2 && out[i] != inferred[i]))
      c.unsupported("an output_shape below the inferred shape or changing N or C");
  return out;
}

}  // namespace

void import_MaxUnpool(NodeContext& c) {
  const size_t rank = c.input_rank(0);
  if (rank < 3) c.invalid("input rank " + std::to_string(rank) + " is below 3");
  if (!c.has_attr("kernel_shape")) c.invalid("kernel_shape is required");
  if (c.input_shape(1) != c.input_shape(0)) c.invalid("I must have the shape of X");
  const std::vector<uint32_t> out = inferred_shape(c);
  const std::vector<uint32_t> padded = padded_shape(c, out);
  uint64_t total = 1;
  for (const uint32_t d : padded) total = bounded_product(c, {total, d}, "MaxUnpool's output");
  const auto flat_in = static_cast<uint32_t>(dims_product(c, c.input_shape(0), 0, rank));
  const auto flat_out = static_cast<uint32_t>(dims_product(c, out, 0, rank));
  const MLOperand values = reshaped_input(c, 0, {flat_in});
  const MLOperand indices = reshaped_input(c, 1, {flat_in});
  const MLOperand zeros =
      c.builder().expand(c.scalar(c.input_type(0), 0.0), {flat_out}, c.opts<MLOperatorOptions>());
  MLScatterOptions o = c.opts<MLScatterOptions>();
  o.axis = 0;
  const MLOperand y = reshape_to(c, c.builder().scatterElements(zeros, indices, values, o), out);
  if (padded == out) return c.set_output(0, y);
  std::vector<uint32_t> begin(out.size(), 0), end(out.size(), 0);
  for (size_t i = 0; i < out.size(); ++i) end[i] = padded[i] - out[i];
  c.set_output(0, c.builder().pad(y, begin, end, c.opts<MLPadOptions>()));
}

}  // namespace cppnn::onnx_import
