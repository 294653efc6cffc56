// Slicing and stacking of values for unrolled Loop and Scan (ops_control_util.h).
#include "src/import/onnx/ops_control_util.h"

#include <set>

#include "cppnn/errors.h"
#include "src/import/onnx/host_ops.h"
#include "src/import/onnx/ops_util.h"

namespace cppnn::onnx_import {

std::shared_ptr<Value> host_value(const std::string& name, HostTensor t) {
  auto v = std::make_shared<Value>();
  v->name = name;
  v->desc = t.desc;
  v->host = std::move(t);
  return v;
}

std::shared_ptr<Value> operand_value(const std::string& name, const MLOperand& o,
                                     std::vector<std::string> depends_on) {
  auto v = std::make_shared<Value>();
  v->name = name;
  v->desc = o.descriptor();
  v->operand = o;
  v->depends_on = std::move(depends_on);
  return v;
}

std::vector<std::shared_ptr<Value>> unstack_value(NodeContext& c,
                                                  const std::shared_ptr<Value>& value,
                                                  uint32_t axis) {
  const std::vector<uint32_t>& shape = value->desc.shape;
  if (axis >= shape.size()) c.invalid("scan axis " + std::to_string(axis) + " is out of range");
  std::vector<uint32_t> slice_shape = shape;
  slice_shape.erase(slice_shape.begin() + axis);
  std::vector<std::shared_ptr<Value>> out;
  if (value->host) {
    for (uint32_t i = 0; i < shape[axis]; ++i)
      out.push_back(host_value(value->name, host_gather(*value->host, {i}, {}, axis)));
    return out;
  }
  const MLOperand whole = c.importer().materialize(*value);
  std::vector<MLOperand> parts{whole};
  if (shape[axis] > 1) {
    MLSplitOptions options;
    options.axis = axis;
    options.label = c.label();
    parts = c.builder().split(whole, shape[axis], options);
  }
  for (const MLOperand& part : parts)
    out.push_back(operand_value(value->name,
                                c.builder().reshape(part, slice_shape, c.opts<MLOperatorOptions>()),
                                value->depends_on));
  return out;
}

std::shared_ptr<Value> stack_values(NodeContext& c,
                                    const std::vector<std::shared_ptr<Value>>& parts, uint32_t axis,
                                    const std::string& name, const std::string& what) {
  const MLOperandDescriptor& first = parts.front()->desc;
  if (axis > first.shape.size())
    c.invalid(what + ": axis " + std::to_string(axis) + " is out of range");
  bool all_host = true;
  for (size_t i = 0; i < parts.size(); ++i) {
    const MLOperandDescriptor& d = parts[i]->desc;
    if (d.dataType != first.dataType || d.shape != first.shape)
      c.unsupported(what + ": iteration " + std::to_string(i) + " gives " + to_string(d) +
                    " where iteration 0 gave " + to_string(first) +
                    " (stacked values need one shape and type)");
    all_host = all_host && parts[i]->host.has_value();
  }
  std::vector<uint32_t> part_shape = first.shape;
  part_shape.insert(part_shape.begin() + axis, 1);
  if (all_host) {
    std::vector<HostTensor> reshaped;
    reshaped.reserve(parts.size());
    for (const auto& p : parts) reshaped.push_back(host_reshape(*p->host, part_shape));
    std::vector<const HostTensor*> pointers;
    for (const HostTensor& t : reshaped) pointers.push_back(&t);
    return host_value(name, host_concat(pointers, axis));
  }
  std::vector<MLOperand> operands;
  std::set<std::string> deps;
  for (const auto& p : parts) {
    operands.push_back(
        c.builder().reshape(c.importer().materialize(*p), part_shape, c.opts<MLOperatorOptions>()));
    deps.insert(p->depends_on.begin(), p->depends_on.end());
  }
  const MLOperand stacked = operands.size() == 1
                                ? operands.front()
                                : c.builder().concat(operands, axis, c.opts<MLOperatorOptions>());
  std::vector<std::string> depends_on;
  if (deps.size() <= 8) depends_on.assign(deps.begin(), deps.end());
  return operand_value(name, stacked, std::move(depends_on));
}

}  // namespace cppnn::onnx_import
