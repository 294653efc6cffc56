// ONNX Clip, Where and BitShift (ops_elementwise.def).
#include <cmath>
#include <optional>

#include "src/import/onnx/op_registry.h"
#include "src/import/onnx/ops_elementwise_util.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {
namespace {

// One Clip bound: a number known at conversion time, or an operand (a scalar input computed by
// the graph).
struct Bound {
  std::optional<MLNumber> number;
  double value = 0;  // the number as a double, to order the bounds
  std::optional<MLOperand> operand;
  bool present() const { return number || operand; }
};

// The Clip bound given as input i (opset 11 on): absent, known, or computed.
Bound bound_input(NodeContext& c, size_t i, MLOperandDataType type) {
  Bound b;
  if (!c.has_input(i)) return b;
  if (element_count(c.input_shape(i)) != 1)
    c.invalid("input " + std::to_string(i) + " (min/max) must hold one value");
  if (!c.is_constant(i)) {
    MLOperand o = c.input(i);
    if (!o.shape().empty()) o = c.builder().reshape(o, {}, c.opts<MLOperatorOptions>());
    b.operand = o;
    return b;
  }
  const HostTensor& t = c.constant(i);
  if (is_float_type(type)) {
    b.value = t.to_double().at(0);
    b.number = MLNumber(b.value);
  } else {
    const long long v = t.to_int64().at(0);
    b.value = static_cast<double>(v);
    b.number = MLNumber(v);
  }
  return b;
}

// The Clip bound given as float attribute `name` (before opset 11).
Bound bound_attr(const NodeContext& c, const char* name) {
  Bound b;
  if (!c.has_attr(name)) return b;
  b.value = c.attr_float(name, 0);
  b.number = MLNumber(b.value);
  return b;
}

// An unsigned tensor of `type` holding `values` (little-endian, each below 2^bits).
HostTensor unsigned_tensor(const std::vector<uint64_t>& values, const std::vector<uint32_t>& shape,
                           MLOperandDataType type) {
  const size_t size = element_size(type);
  std::vector<std::byte> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t k = 0; k < size; ++k)
      bytes[i * size + k] = static_cast<std::byte>((values[i] >> (8 * k)) & 0xff);
  return HostTensor::of_bytes({type, shape}, std::move(bytes));
}

MLOperand bound_operand(NodeContext& c, const Bound& b, MLOperandDataType type) {
  return b.operand ? *b.operand : c.builder().constant(type, *b.number);
}

}  // namespace

// ONNX Clip: min/max attributes before opset 11, optional scalar inputs from then on (integer
// types from opset 12). Known, ordered bounds become a WebNN clamp; computed bounds, or min > max
// (where ONNX gives max and WebNN clamp throws), become min(max(x, lo), hi).
void import_Clip(NodeContext& c) {
  MLOperand x = c.input(0);
  const MLOperandDataType type = x.dataType();
  Bound lo, hi;
  if (c.opset() < 11) {
    lo = bound_attr(c, "min");
    hi = bound_attr(c, "max");
  } else {
    lo = bound_input(c, 1, type);
    hi = bound_input(c, 2, type);
  }
  const bool numbers = !lo.operand && !hi.operand;
  const bool nan = (lo.number && std::isnan(lo.value)) || (hi.number && std::isnan(hi.value));
  if (numbers && !nan && !(lo.number && hi.number && lo.value > hi.value)) {
    MLClampOptions o = c.opts<MLClampOptions>();
    o.minValue = lo.number;
    o.maxValue = hi.number;
    return c.set_output(0, c.builder().clamp(x, o));
  }
  Ops f(c);
  MLOperand r = x;
  if (lo.present()) r = f.b().max(r, bound_operand(c, lo, type), f.o);
  if (hi.present()) r = f.b().min(r, bound_operand(c, hi, type), f.o);
  c.set_output(0, r);
}

// ONNX Where: condition (BOOL, WebNN uint8) selects X or Y, all three broadcast.
void import_Where(NodeContext& c) {
  if (c.input_type(0) != MLOperandDataType::kUint8) c.invalid("the condition must be BOOL");
  Ops f(c);
  c.set_output(0, f.where(c.input(0), c.input(1), c.input(2)));
}

// ONNX BitShift on unsigned integers: x * 2^y (LEFT, wrapping) or x / 2^y (RIGHT, exact since
// WebNN integer division truncates); shifts by the bit width or more give 0.
void import_BitShift(NodeContext& c) {
  const std::string direction = c.attr_string("direction");
  if (direction != "LEFT" && direction != "RIGHT")
    c.invalid("direction must be LEFT or RIGHT, not '" + direction + "'");
  const bool left = direction == "LEFT";
  MLOperand x = c.input(0);
  const MLOperandDataType type = x.dataType();
  if (!is_unsigned_type(type)) c.invalid("BitShift takes unsigned integers");
  if (c.input_type(1) != type) c.invalid("X and Y differ in type");
  const auto bits = static_cast<int64_t>(8 * element_size(type));
  Ops f(c);
  if (c.is_constant(1)) {
    const std::vector<int64_t> shifts = c.ints(1, "Y");
    const std::vector<uint32_t>& shape = c.input_shape(1);
    std::vector<uint64_t> power, keep;
    bool all_kept = true;
    for (int64_t s : shifts) {
      const auto clamped =
          static_cast<uint64_t>(std::min<int64_t>(std::max<int64_t>(s, 0), bits - 1));
      power.push_back(uint64_t{1} << clamped);
      keep.push_back(static_cast<uint64_t>(s) < static_cast<uint64_t>(bits) ? 1 : 0);
      all_kept = all_kept && keep.back() == 1;
    }
    MLOperand p = c.constant_operand(unsigned_tensor(power, shape, type));
    MLOperand r = left ? f.mul(x, p) : f.div(x, p);
    if (!all_kept) r = f.mul(r, c.constant_operand(unsigned_tensor(keep, shape, type)));
    return c.set_output(0, r);
  }
  MLOperand y = c.input(1);
  MLOperand clamped = f.b().min(y, f.k(y, static_cast<double>(bits - 1)), f.o);
  MLOperand p = f.b().pow(f.k(x, 2), clamped, f.o);
  MLOperand r = left ? f.mul(x, p) : f.div(x, p);
  MLOperand too_far = f.b().greaterOrEqual(y, f.k(y, static_cast<double>(bits)), f.o);
  c.set_output(0, f.where(too_far, f.k(x, 0), r));
}

}  // namespace cppnn::onnx_import
