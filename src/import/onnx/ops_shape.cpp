// ONNX shape and layout operators (ops_shape.def). Every handler computes the result on the host
// when its inputs are known (shape chains: Shape -> Gather -> Concat -> Reshape ...), so that
// sizes are static and empty intermediate tensors never reach the builder.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "src/import/onnx/host_ops.h"
#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_util.h"
#include "src/import/onnx/tensor_proto.h"

namespace cppnn::onnx_import {
namespace {

// Host fills above this many elements become expand() ops instead.
constexpr uint64_t kHostFillLimit = uint64_t{1} << 24;

bool is_float(MLOperandDataType t) {
  return t == MLOperandDataType::kFloat32 || t == MLOperandDataType::kFloat16;
}

// ONNX Cast on host values (to BOOL: x != 0).
HostTensor host_cast(const HostTensor& x, MLOperandDataType type, bool to_bool) {
  if (to_bool) {
    std::vector<int64_t> v;
    for (double d : x.to_double()) v.push_back(d != 0.0 ? 1 : 0);
    return HostTensor::of_int64(v, x.desc.shape, MLOperandDataType::kUint8);
  }
  if (is_float(type)) return HostTensor::of_double(x.to_double(), x.desc.shape, type);
  return HostTensor::of_int64(x.to_int64(), x.desc.shape, type);
}

void cast_node(NodeContext& c, int32_t to) {
  const auto type = webnn_type_of(to);
  if (!type) c.unsupported("cast to " + onnx_type_name(to) + ", which WebNN cannot express");
  const bool to_bool = to == onnx::TensorProto_DataType_BOOL;
  if (c.is_constant(0)) return c.set_output(0, host_cast(c.constant(0), *type, to_bool));
  MLOperand x = c.input(0);
  if (to_bool) {
    MLOperand zero = c.scalar(x.dataType(), 0);
    return c.set_output(0, c.builder().notEqual(x, zero, c.opts<MLOperatorOptions>()));
  }
  c.set_output(0, cast_to(c, x, *type));
}

// The ONNX Reshape target of `shape` for input `in` (0 copies a dimension unless allowzero).
std::vector<uint32_t> reshape_target(const NodeContext& c, const std::vector<uint32_t>& in,
                                     std::vector<int64_t> shape, bool allowzero) {
  int infer = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= in.size()) c.invalid("shape entry 0 at " + std::to_string(i) + " has no input dim");
      shape[i] = in[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) c.invalid("more than one -1 in the target shape");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      c.invalid("negative target dimension " + std::to_string(shape[i]));
    } else {
      known *= static_cast<uint64_t>(shape[i]);
    }
  }
  const uint64_t total = element_count(in);
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      c.invalid("cannot infer -1 reshaping " + shape_to_string(in));
    shape[static_cast<size_t>(infer)] = static_cast<int64_t>(total / known);
  }
  std::vector<uint32_t> out = to_dims(c, shape);
  if (element_count(out) != total)
    c.invalid("cannot reshape " + shape_to_string(in) + " to " + shape_to_string(out));
  return out;
}

// Output = input with a new shape (host or reshape op).
void set_reshaped(NodeContext& c, const std::vector<uint32_t>& shape) {
  if (c.is_constant(0)) return c.set_output(0, host_reshape(c.constant(0), shape));
  MLOperand x = c.input(0);
  if (x.shape() == shape) return c.set_output(0, x);
  c.set_output(0, c.builder().reshape(x, shape, c.opts<MLOperatorOptions>()));
}

void pass_through(NodeContext& c) {
  if (c.is_constant(0)) return c.set_output(0, c.constant(0));
  c.set_output(0, c.input(0));
}

}  // namespace

void import_Constant(NodeContext& c) {
  if (c.has_attr("value")) return c.set_output(0, c.attr_tensor("value"));
  if (c.has_attr("value_float"))
    return c.set_output(0, HostTensor::of_double({c.attr_float("value_float", 0)}, {}));
  if (c.has_attr("value_floats")) {
    std::vector<double> v;
    for (float f : c.attr_floats("value_floats")) v.push_back(f);
    return c.set_output(0, HostTensor::of_double(v, {static_cast<uint32_t>(v.size())}));
  }
  if (c.has_attr("value_int"))
    return c.set_output(0, HostTensor::of_int64({c.attr_int("value_int", 0)}, {}));
  if (c.has_attr("value_ints")) {
    const auto v = c.attr_ints("value_ints");
    return c.set_output(0, HostTensor::of_int64(v, {static_cast<uint32_t>(v.size())}));
  }
  c.unsupported("only tensor, float(s) and int(s) values are supported (not strings or sparse)");
}

void import_ConstantOfShape(NodeContext& c) {
  const std::vector<uint32_t> shape = to_dims(c, c.ints(0, "shape"));
  HostTensor value = HostTensor::of_double({0.0}, {});
  if (c.has_attr("value")) value = c.attr_tensor("value");
  if (value.elements() != 1) c.invalid("'value' must hold one element");
  const uint64_t count = element_count(shape);
  const size_t size = element_size(value.desc.dataType);
  if (count > kHostFillLimit) {
    MLOperand one = c.constant_operand(host_reshape(value, {}));
    return c.set_output(0, c.builder().expand(one, shape, c.opts<MLOperatorOptions>()));
  }
  std::vector<std::byte> bytes(count * size);
  for (uint64_t i = 0; i < count; ++i)
    std::copy_n(value.data.data(), size, bytes.data() + i * size);
  c.set_output(0, HostTensor::of_bytes({value.desc.dataType, shape}, std::move(bytes)));
}

void import_Shape(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const auto rank = static_cast<int64_t>(shape.size());
  auto clamp_index = [&](int64_t i) {
    if (i < 0) i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  const int64_t start = clamp_index(c.attr_int("start", 0));
  const int64_t end = clamp_index(c.attr_int("end", rank));
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(shape[static_cast<size_t>(i)]);
  c.set_output(0, HostTensor::of_int64(dims, {static_cast<uint32_t>(dims.size())}));
}

void import_Size(NodeContext& c) {
  c.set_output(0,
               HostTensor::of_int64({static_cast<int64_t>(element_count(c.input_shape(0)))}, {}));
}

void import_Range(NodeContext& c) {
  const MLOperandDataType type = c.input_type(0);
  if (is_float(type)) {
    const double start = c.constant(0, "start").to_double().at(0);
    const double limit = c.constant(1, "limit").to_double().at(0);
    const double delta = c.constant(2, "delta").to_double().at(0);
    if (delta == 0) c.invalid("delta is 0");
    const double n = std::max(0.0, std::ceil((limit - start) / delta));
    if (n > kHostFillLimit) c.unsupported("a Range of more than 2^24 elements");
    std::vector<double> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i) * delta;
    return c.set_output(0, HostTensor::of_double(v, {static_cast<uint32_t>(v.size())}, type));
  }
  const int64_t start = c.ints(0, "start").at(0);
  const int64_t limit = c.ints(1, "limit").at(0);
  const int64_t delta = c.ints(2, "delta").at(0);
  if (delta == 0) c.invalid("delta is 0");
  const double span = static_cast<double>(limit) - static_cast<double>(start);
  const double n = std::max(0.0, std::ceil(span / static_cast<double>(delta)));
  if (n > kHostFillLimit) c.unsupported("a Range of more than 2^24 elements");
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<int64_t>(i) * delta;
  c.set_output(0, HostTensor::of_int64(v, {static_cast<uint32_t>(v.size())}, type));
}

void import_Identity(NodeContext& c) {
  pass_through(c);
}

void import_Dropout(NodeContext& c) {
  if (c.has_input(2) && c.is_constant(2) && c.ints(2, "training_mode").at(0) != 0)
    c.unsupported("training mode");
  if (c.has_input(2) && !c.is_constant(2)) c.unsupported("a training_mode that is not constant");
  pass_through(c);
  if (c.wants_output(1)) {
    const std::vector<uint32_t>& shape = c.input_shape(0);
    std::vector<int64_t> ones(element_count(shape), 1);
    c.set_output(1, HostTensor::of_int64(ones, shape, MLOperandDataType::kUint8));
  }
}

void import_Cast(NodeContext& c) {
  cast_node(c, static_cast<int32_t>(c.attr_int("to", onnx::TensorProto_DataType_FLOAT)));
}

void import_CastLike(NodeContext& c) {
  cast_node(c, onnx_elem_type_of(c.input_type(1)));
}

void import_Reshape(NodeContext& c) {
  std::vector<int64_t> shape = c.opset() < 5 ? c.attr_ints("shape") : c.ints(1, "shape");
  set_reshaped(c, reshape_target(c, c.input_shape(0), shape, c.attr_int("allowzero", 0) != 0));
}

void import_Flatten(NodeContext& c) {
  const std::vector<uint32_t>& in = c.input_shape(0);
  const auto rank = static_cast<int64_t>(in.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < -rank || axis > rank) c.invalid("axis " + std::to_string(axis) + " out of range");
  if (axis < 0) axis += rank;
  uint64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[static_cast<size_t>(i)];
  if (outer > UINT32_MAX || inner > UINT32_MAX) c.unsupported("a dimension over 2^32-1");
  set_reshaped(c, {static_cast<uint32_t>(outer), static_cast<uint32_t>(inner)});
}

void import_Squeeze(NodeContext& c) {
  const std::vector<uint32_t>& in = c.input_shape(0);
  const auto axes = axes_attr_or_input(c, "axes", 13, 1);
  std::vector<bool> drop(in.size(), false);
  if (axes) {
    for (uint32_t a : normalize_axes(c, *axes, in.size())) {
      if (in[a] != 1)
        c.invalid("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(in[a]));
      drop[a] = true;
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  std::vector<uint32_t> out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  set_reshaped(c, out);
}

void import_Unsqueeze(NodeContext& c) {
  const std::vector<uint32_t>& in = c.input_shape(0);
  const auto axes = axes_attr_or_input(c, "axes", 13, 1);
  if (!axes) c.invalid("axes are required");
  const size_t rank = in.size() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (uint32_t a : normalize_axes(c, *axes, rank)) inserted[a] = true;
  std::vector<uint32_t> out;
  size_t next = 0;
  for (size_t i = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : in[next++]);
  set_reshaped(c, out);
}

void import_Concat(NodeContext& c) {
  const size_t rank = c.input_rank(0);
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), rank);
  std::vector<size_t> parts;
  for (size_t i = 0; i < c.input_count(); ++i)
    if (c.has_input(i) && element_count(c.input_shape(i)) > 0) parts.push_back(i);
  if (c.all_constant()) {
    std::vector<const HostTensor*> host;
    for (size_t i = 0; i < c.input_count(); ++i)
      if (c.has_input(i)) host.push_back(&c.constant(i));
    return c.set_output(0, host_concat(host, axis));
  }
  if (parts.size() == 1) return c.set_output(0, c.input(parts[0]));
  std::vector<MLOperand> operands;
  for (size_t i : parts) operands.push_back(c.input(i));
  c.set_output(0, c.builder().concat(operands, axis, c.opts<MLOperatorOptions>()));
}

void import_Gather(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), shape.size());
  const int64_t dim = shape.empty() ? 1 : shape[axis];
  if (c.is_constant(1)) {
    std::vector<int64_t> indices = c.ints(1, "indices");
    for (int64_t& i : indices) {
      if (i < -dim || i >= dim) c.invalid("index " + std::to_string(i) + " is out of range");
      if (i < 0) i += dim;
    }
    const std::vector<uint32_t>& ishape = c.input_shape(1);
    if (c.is_constant(0)) return c.set_output(0, host_gather(c.constant(0), indices, ishape, axis));
    MLOperand idx = c.constant_operand(HostTensor::of_int64(
        indices, ishape, dim <= INT32_MAX ? MLOperandDataType::kInt32 : MLOperandDataType::kInt64));
    MLGatherOptions o = c.opts<MLGatherOptions>();
    o.axis = axis;
    return c.set_output(0, c.builder().gather(c.input(0), idx, o));
  }
  MLOperand idx = c.input(1);
  MLGraphBuilder& b = c.builder();
  const MLOperandDataType it = idx.dataType();
  if (it != MLOperandDataType::kUint32 && it != MLOperandDataType::kUint64) {
    MLOperand zero = c.scalar(it, 0);
    MLOperand wrapped = b.add(idx, c.scalar(it, static_cast<double>(dim)));
    idx = b.where(b.lesser(idx, zero), wrapped, idx);
  }
  MLGatherOptions o = c.opts<MLGatherOptions>();
  o.axis = axis;
  c.set_output(0, b.gather(c.input(0), idx, o));
}

void import_Slice(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const size_t rank = shape.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    starts = c.ints(1, "starts");
    ends = c.ints(2, "ends");
    if (c.has_input(3)) axes = c.ints(3, "axes");
    if (c.has_input(4)) steps = c.ints(4, "steps");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.invalid("starts, ends, axes and steps differ in length");
  std::vector<int64_t> begin(rank, 0), step(rank, 1);
  std::vector<uint32_t> count(shape);
  const std::vector<uint32_t> axis = normalize_axes(c, axes, rank);
  for (size_t k = 0; k < axis.size(); ++k) {
    const auto d = static_cast<int64_t>(shape[axis[k]]);
    int64_t s = starts[k], e = ends[k], st = steps[k];
    if (st == 0) c.invalid("step 0");
    if (s < 0) s += d;
    if (e < 0) e += d;
    int64_t n = 0;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      n = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      n = s > e ? (s - e + (-st) - 1) / (-st) : 0;
    }
    begin[axis[k]] = s;
    step[axis[k]] = st;
    count[axis[k]] = static_cast<uint32_t>(n);
  }
  if (c.is_constant(0)) return c.set_output(0, host_slice(c.constant(0), begin, step, count));
  if (element_count(count) == 0) c.unsupported("an empty slice result");
  MLOperand x = c.input(0);
  bool whole = true;
  for (size_t i = 0; i < rank; ++i) whole = whole && count[i] == shape[i] && step[i] == 1;
  if (whole) return c.set_output(0, x);
  std::vector<uint32_t> reversed, start32, stride, extent;
  for (size_t i = 0; i < rank; ++i) {
    if (step[i] < 0) {
      reversed.push_back(static_cast<uint32_t>(i));
      begin[i] = static_cast<int64_t>(shape[i]) - 1 - begin[i];
      step[i] = -step[i];
    }
    start32.push_back(static_cast<uint32_t>(begin[i]));
    const int64_t st = std::min<int64_t>(step[i], static_cast<int64_t>(shape[i]));
    stride.push_back(static_cast<uint32_t>(st));
    // WebNN sizes are extents: ceil(extent / stride) elements.
    extent.push_back(static_cast<uint32_t>((static_cast<int64_t>(count[i]) - 1) * st + 1));
  }
  if (!reversed.empty()) {
    MLReverseOptions r = c.opts<MLReverseOptions>();
    r.axes = reversed;
    x = c.builder().reverse(x, r);
  }
  MLSliceOptions o = c.opts<MLSliceOptions>();
  if (std::any_of(stride.begin(), stride.end(), [](uint32_t s) { return s != 1; }))
    o.strides = stride;
  c.set_output(0, c.builder().slice(x, start32, extent, o));
}

void import_Split(NodeContext& c) {
  const std::vector<uint32_t>& shape = c.input_shape(0);
  const uint32_t axis = normalize_axis(c, c.attr_int("axis", 0), shape.size());
  std::vector<int64_t> sizes;
  if (c.opset() < 13)
    sizes = c.attr_ints("split");
  else if (c.has_input(1))
    sizes = c.ints(1, "split");
  const int64_t dim = shape[axis];
  if (sizes.empty()) {
    const auto n = static_cast<int64_t>(c.has_attr("num_outputs") ? c.attr_int("num_outputs", 1)
                                                                  : c.output_count());
    if (n <= 0) c.invalid("no outputs");
    const int64_t part = (dim + n - 1) / n;
    for (int64_t i = 0, left = dim; i < n; ++i, left -= part) sizes.push_back(std::min(part, left));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != dim) c.invalid("split sizes do not add up to dimension " + std::to_string(dim));
  if (std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s <= 0; }))
    c.unsupported("empty split outputs");
  MLSplitOptions o = c.opts<MLSplitOptions>();
  o.axis = axis;
  std::vector<MLOperand> parts = c.builder().split(c.input(0), to_dims(c, sizes), o);
  for (size_t i = 0; i < parts.size(); ++i) c.set_output(i, parts[i]);
}

void import_Transpose(NodeContext& c) {
  const size_t rank = c.input_rank(0);
  MLTransposeOptions o = c.opts<MLTransposeOptions>();
  if (c.has_attr("perm")) o.permutation = normalize_axes(c, c.attr_ints("perm"), rank);
  c.set_output(0, c.builder().transpose(c.input(0), o));
}

void import_Expand(NodeContext& c) {
  const std::vector<uint32_t> out =
      broadcast_shapes(c, c.input_shape(0), to_dims(c, c.ints(1, "shape")));
  MLOperand x = c.input(0);
  if (x.shape() == out) return c.set_output(0, x);
  c.set_output(0, c.builder().expand(x, out, c.opts<MLOperatorOptions>()));
}

void import_Tile(NodeContext& c) {
  const std::vector<uint32_t> repeats = to_dims(c, c.ints(1, "repeats"));
  if (std::find(repeats.begin(), repeats.end(), 0u) != repeats.end())
    c.unsupported("a repeat of 0 (an empty result)");
  c.set_output(0, c.builder().tile(c.input(0), repeats, c.opts<MLOperatorOptions>()));
}

}  // namespace cppnn::onnx_import
