#include "src/backends/backend_descriptor.h"

#include "src/ops/role_check.h"

namespace cppnn {
namespace {

// Narrows one role's allowed types (0 without same_as means any spec type); false when no type
// is left (0 would read as "any").
bool narrow(RoleLimits& r, DataTypeMask removed) {
  if (r.allowed == 0 && r.same_as >= 0) return true;  // follows another role
  const DataTypeMask allowed = r.allowed == 0 ? dt::kAny : r.allowed;
  r.allowed = allowed & static_cast<DataTypeMask>(~removed);
  return r.allowed != 0;
}

}  // namespace

BackendDescriptor BackendDescriptor::with_all_ops(std::string name) {
  BackendDescriptor d;
  d.name = std::move(name);
  d.native.resize(kOpCount);
  for (size_t i = 0; i < kOpCount; ++i) d.native[i] = op_limits(static_cast<OpType>(i));
  return d;
}

BackendDescriptor BackendDescriptor::with_ops(std::string name, std::initializer_list<OpType> ops) {
  BackendDescriptor d;
  d.name = std::move(name);
  d.native.resize(kOpCount);
  for (OpType t : ops) d.native[static_cast<size_t>(t)] = op_limits(t);
  return d;
}

void BackendDescriptor::remove_data_types(DataTypeMask types) {
  tensor_types &= static_cast<DataTypeMask>(~types);
  for (auto& limits : native) {
    if (!limits) continue;
    bool left = true;
    for (RoleLimits& r : limits->inputs) left = narrow(r, types) && left;
    for (RoleLimits& r : limits->outputs) left = narrow(r, types) && left;
    if (!left) limits.reset();  // a role with no type left: the op is not native at all
  }
}

bool BackendDescriptor::fits_natively(const Graph& graph, const Operation& op) const {
  const auto& limits = native.at(static_cast<size_t>(op.type));
  if (!limits) return false;
  std::vector<const MLOperandDescriptor*> descs;
  descs.reserve(op.inputs.size());
  for (OperandId in : op.inputs) descs.push_back(in.valid() ? &graph.descriptor(in) : nullptr);
  if (!check_input_roles(*limits, descs, op.type == OpType::kConcat)) return false;
  std::vector<MLOperandDescriptor> outs;
  outs.reserve(op.outputs.size());
  for (OperandId out : op.outputs) outs.push_back(graph.descriptor(out));
  if (!check_output_roles(*limits, outs)) return false;
  return !runs_natively || runs_natively(graph, op);
}

}  // namespace cppnn
