// ONNX indexing and constant-pattern operators of the misc family (ops_misc.def): GatherElements,
// GatherND (batch_dims by prepending the batch coordinates), ScatterElements/Scatter and ScatterND
// (reductions in ops_misc_scatter_reduce.cpp), OneHot (equal against an iota + where), EyeLike
// (a host constant) and ReverseSequence (gatherElements with a constant index). Indices may be
// negative in ONNX: they are wrapped on the host when known, else with where(i < 0, i + d, i).
#include <algorithm>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_misc_scatter_reduce.h"
#include "src/import/onnx/ops_util.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

using DT = MLOperandDataType;

bool is_float(DT t) {
  return t == DT::kFloat32 || t == DT::kFloat16;
}

// Row-major strides of `shape`.
std::vector<uint64_t> strides_of(const std::vector<uint32_t>& shape) {
  std::vector<uint64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// ScatterElements and the older Scatter (reductions in ops_misc_scatter_reduce.cpp).
void scatter_elements(NodeContext& c) {
  const std::string reduction = c.attr_string("reduction", "none");
  if (reduction != "none") return scatter_elements_reduce(c, reduction);
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), shape.size());
  MLOperand idx = wrapped_indices(c, 1, {static_cast<int64_t>(shape[axis])});
  MLScatterOptions o = c.opts<MLScatterOptions>();
  o.axis = axis;
  c.set_output(0, c.builder().scatterElements(c.input(0), idx, c.input(2), o));
}

// The last-axis sizes an ND index of length q addresses: shape[first .. first + q).
std::vector<int64_t> nd_dims(const NodeContext& c, const std::vector<uint32_t>& shape, size_t first,
                             size_t q) {
  if (first + q > shape.size()) c.invalid("the index length exceeds the data rank");
  std::vector<int64_t> dims;
  for (size_t k = 0; k < q; ++k) dims.push_back(shape[first + k]);
  if (dims.empty()) c.unsupported("indices with a last dimension of 0");
  return dims;
}

}  // namespace

void import_GatherElements(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), shape.size());
  MLOperand idx = wrapped_indices(c, 1, {static_cast<int64_t>(shape[axis])});
  MLGatherOptions o = c.opts<MLGatherOptions>();
  o.axis = axis;
  c.set_output(0, c.builder().gatherElements(c.input(0), idx, o));
}

// GatherND: with batch_dims b the batch coordinates of every index row are prepended, so that a
// plain gatherND addresses data[b0, .., b(b-1), i0, ..].
void import_GatherND(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const std::vector<uint32_t>& ishape = c.input_shape(1);
  const auto b = static_cast<size_t>(c.attr_int("batch_dims", 0));
  if (ishape.empty()) c.invalid("indices need rank >= 1");
  if (b >= ishape.size() || b >= shape.size()) c.invalid("batch_dims is too large");
  for (size_t k = 0; k < b; ++k)
    if (shape[k] != ishape[k]) c.invalid("the batch dimensions of data and indices differ");
  const size_t q = ishape.back();
  MLOperand idx = wrapped_indices(c, 1, nd_dims(c, shape, b, q));
  if (b > 0) {
    // coords[..., k] = the k-th batch coordinate of the row.
    std::vector<uint32_t> rows(ishape.begin(), ishape.end() - 1);
    const std::vector<uint64_t> st = strides_of(rows);
    const uint64_t n = element_count(rows);
    std::vector<int64_t> coords;
    coords.reserve(n * b);
    for (uint64_t r = 0; r < n; ++r)
      for (size_t k = 0; k < b; ++k) coords.push_back(static_cast<int64_t>(r / st[k] % rows[k]));
    std::vector<uint32_t> cshape = rows;
    cshape.push_back(static_cast<uint32_t>(b));
    MLOperand batch = c.constant_operand(HostTensor::of_int64(coords, cshape, idx.dataType()));
    idx = c.builder().concat({batch, idx}, static_cast<uint32_t>(rows.size()),
                             c.opts<MLOperatorOptions>());
  }
  c.set_output(0, c.builder().gatherND(c.input(0), idx, c.opts<MLOperatorOptions>()));
}

void import_ScatterElements(NodeContext& c) {
  scatter_elements(c);
}
void import_Scatter(NodeContext& c) {
  scatter_elements(c);
}

void import_ScatterND(NodeContext& c) {
  const std::string reduction = c.attr_string("reduction", "none");
  if (reduction != "none") return scatter_nd_reduce(c, reduction);
  const std::vector<uint32_t>& ishape = c.input_shape(1);
  if (ishape.empty()) c.invalid("indices need rank >= 1");
  MLOperand idx = wrapped_indices(c, 1, nd_dims(c, c.input_shape(0), 0, ishape.back()));
  c.set_output(0, c.builder().scatterND(c.input(0), idx, c.input(2), c.opts<MLOperatorOptions>()));
}

// OneHot: out = where(iota == wrap(indices), on, off) with the depth axis inserted at `axis`.
// Indices in [-depth, depth) wrap; others select `off` everywhere (ONNX). Float indices are
// truncated toward zero (cast to int32), as ONNX Runtime does.
void import_OneHot(NodeContext& c) {
  const std::vector<int64_t> depths = c.ints(1, "depth");
  if (depths.size() != 1) c.invalid("depth must hold one value");
  const int64_t depth = depths[0];
  if (depth <= 0 || depth > INT32_MAX) c.invalid("depth " + std::to_string(depth) + " is invalid");
  const std::vector<uint32_t>& ishape = c.input_shape(0);
  const size_t rank = ishape.size() + 1;
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", -1), rank);
  if (element_count(c.input_shape(2)) != 2) c.invalid("values must hold [off, on]");
  MLGraphBuilder& b = c.builder();
  MLOperand idx = c.input(0);
  DT it = idx.dataType();
  if (is_float(it) || it == DT::kInt8 || it == DT::kUint8) {
    it = DT::kInt32;
    idx = cast_to(c, idx, it);
  }
  if (it == DT::kInt32 || it == DT::kInt64) {
    MLOperand wrapped = b.add(idx, c.scalar(it, static_cast<double>(depth)));
    idx = b.where(b.lesser(idx, c.scalar(it, 0)), wrapped, idx);
  }
  std::vector<uint32_t> expanded = ishape;
  expanded.insert(expanded.begin() + axis, 1);
  idx = b.reshape(idx, expanded, c.opts<MLOperatorOptions>());
  std::vector<int64_t> iota(static_cast<size_t>(depth));
  for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<int64_t>(i);
  std::vector<uint32_t> ishape1(rank, 1);
  ishape1[axis] = static_cast<uint32_t>(depth);
  MLOperand range = c.constant_operand(HostTensor::of_int64(iota, ishape1, it));
  MLOperand hit = b.equal(range, idx, c.opts<MLOperatorOptions>());
  MLOperand off, on;
  if (c.is_constant(2)) {
    const HostTensor& v = c.constant(2, "values");
    const size_t size = element_size(v.desc.dataType);
    auto one = [&](size_t k) {
      std::vector<std::byte> bytes(
          v.data.bytes().begin() + static_cast<std::ptrdiff_t>(k * size),
          v.data.bytes().begin() + static_cast<std::ptrdiff_t>((k + 1) * size));
      return c.constant_operand(HostTensor::of_bytes({v.desc.dataType, {}}, std::move(bytes)));
    };
    off = one(0);
    on = one(1);
  } else {
    MLOperand values = b.reshape(c.input(2), {2}, c.opts<MLOperatorOptions>());
    off = b.reshape(b.slice(values, {0}, {1}), {}, c.opts<MLOperatorOptions>());
    on = b.reshape(b.slice(values, {1}, {1}), {}, c.opts<MLOperatorOptions>());
  }
  c.set_output(0, b.where(hit, on, off, c.opts<MLOperatorOptions>()));
}

// EyeLike: a constant of the input's 2-D shape with ones on diagonal k (columns - rows == k).
void import_EyeLike(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  if (shape.size() != 2) c.invalid("the input must be 2-D");
  DT type = c.input_type(0);
  if (c.has_attr("dtype")) {
    const auto onnx_type = static_cast<int32_t>(c.attr_int("dtype", 1));
    const auto t = webnn_type_of(onnx_type);
    if (!t) c.unsupported("dtype " + onnx_type_name(onnx_type) + ", which WebNN cannot express");
    type = *t;
  }
  const int64_t k = c.attr_int("k", 0);
  std::vector<int64_t> v(element_count(shape), 0);
  for (int64_t r = 0; r < shape[0]; ++r) {
    const int64_t col = r + k;
    if (col >= 0 && col < shape[1]) v[static_cast<size_t>(r * shape[1] + col)] = 1;
  }
  c.set_output(0, HostTensor::of_int64(v, shape, type));
}

// ReverseSequence: out[t, b] = in[len[b] - 1 - t, b] for t < len[b], else in[t, b], as a
// gatherElements along the time axis with a [T, B] index (a constant when the lengths are known,
// else computed from them) expanded to the input shape.
void import_ReverseSequence(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const size_t rank = shape.size();
  if (rank < 2) c.invalid("the input needs rank >= 2");
  const uint32_t time = normalize_axis(c, c.attr_int("time_axis", 0), rank);
  const uint32_t batch = normalize_axis(c, c.attr_int("batch_axis", 1), rank);
  if (time == batch || time > 1 || batch > 1) c.invalid("time_axis and batch_axis must be 0 and 1");
  const int64_t steps = shape[time];
  std::vector<uint32_t> ishape(rank, 1);
  ishape[time] = shape[time];
  ishape[batch] = shape[batch];
  MLGraphBuilder& b = c.builder();
  MLGatherOptions o = c.opts<MLGatherOptions>();
  o.axis = time;
  if (c.input_shape(1) != std::vector<uint32_t>{shape[batch]})
    c.invalid("sequence_lens needs one entry per batch");
  if (!c.is_constant(1)) {
    // src = where(t < len, len - 1 - t, t) from a time iota and the lengths.
    const DT lt = c.input_type(1);
    if (lt != DT::kInt64 && lt != DT::kInt32) c.invalid("sequence_lens must be an integer");
    std::vector<uint32_t> tshape(rank, 1), lshape(rank, 1);
    tshape[time] = shape[time];
    lshape[batch] = shape[batch];
    std::vector<int64_t> iota(static_cast<size_t>(steps));
    for (size_t t = 0; t < iota.size(); ++t) iota[t] = static_cast<int64_t>(t);
    const MLOperatorOptions oo = c.opts<MLOperatorOptions>();
    MLOperand t = c.constant_operand(HostTensor::of_int64(iota, tshape, lt));
    MLOperand len = b.reshape(c.input(1), lshape, oo);
    MLOperand rev = b.sub(b.sub(len, c.scalar(lt, 1), oo), t, oo);
    MLOperand src = b.where(b.lesser(t, len, oo), rev, t, oo);
    return c.set_output(0, b.gatherElements(c.input(0), b.expand(src, shape, oo), o));
  }
  const std::vector<int64_t> lens = c.ints(1, "sequence_lens");
  std::vector<int64_t> index(static_cast<size_t>(steps) * shape[batch]);
  for (int64_t t = 0; t < steps; ++t) {
    for (size_t bi = 0; bi < shape[batch]; ++bi) {
      const int64_t len = lens[bi];
      if (len < 0 || len > steps) c.invalid("sequence length " + std::to_string(len));
      const int64_t src = t < len ? len - 1 - t : t;
      const size_t pos = time == 0 ? static_cast<size_t>(t) * shape[batch] + bi
                                   : bi * static_cast<size_t>(steps) + static_cast<size_t>(t);
      index[pos] = src;
    }
  }
  MLOperand idx = c.constant_operand(HostTensor::of_int64(index, ishape, DT::kInt32));
  if (ishape != shape) idx = b.expand(idx, shape, c.opts<MLOperatorOptions>());
  c.set_output(0, b.gatherElements(c.input(0), idx, o));
}

}  // namespace cppnn::onnx_import
