#include "src/ops/role_check.h"

namespace cppnn {
namespace {

std::string role_name(const OpLimits& limits, size_t i, bool list) {
  if (list) return "inputs[" + std::to_string(i) + "]";
  return i < limits.inputs.size() ? std::string(limits.inputs[i].name)
                                  : "operand " + std::to_string(i);
}

std::string rank_range(const RoleLimits& r) {
  if (r.max_rank == kRankN) return std::to_string(r.min_rank) + " or more";
  if (r.min_rank == r.max_rank) return std::to_string(r.min_rank);
  return std::to_string(r.min_rank) + " to " + std::to_string(r.max_rank);
}

// The types and rank of one operand against its role.
Status check_one(const RoleLimits& r, const std::string& name, const MLOperandDescriptor& d,
                 std::string_view whose) {
  if (r.allowed != 0 && !mask_has(r.allowed, d.dataType))
    return type_error(name, " data type ", data_type_name(d.dataType), " is not supported", whose,
                      " (allowed: ", data_type_list(r.allowed), ")");
  size_t rank = d.shape.size();
  if (rank < r.min_rank || (r.max_rank != kRankN && rank > r.max_rank))
    return type_error(name, " rank ", rank, " is not supported", whose,
                      " (allowed: ", rank_range(r), ")");
  return Ok{};
}

}  // namespace

std::string data_type_list(DataTypeMask m) {
  std::string s;
  for (int i = 0; i < kAllDataTypeCount; ++i) {
    auto t = static_cast<MLOperandDataType>(i);
    if (mask_has(m, t)) s += (s.empty() ? "" : ", ") + std::string(data_type_name(t));
  }
  return s.empty() ? "none" : s;
}

Status check_input_roles(const OpLimits& limits, std::span<const MLOperandDescriptor* const> descs,
                         bool list, std::string_view whose) {
  for (size_t i = 0; i < descs.size(); ++i) {
    const MLOperandDescriptor* d = descs[i];
    if (!d) continue;
    if (!list && i >= limits.inputs.size()) continue;
    const RoleLimits& r = limits.inputs[list ? 0 : i];
    std::string name = role_name(limits, i, list);
    CPPNN_RETURN_IF_ERROR(check_one(r, name, *d, whose));
    if (r.same_as >= 0) {
      const MLOperandDescriptor* other = descs[static_cast<size_t>(r.same_as)];
      if (other && other->dataType != d->dataType)
        return type_error(name, " data type ", data_type_name(d->dataType), " must match ",
                          limits.inputs[static_cast<size_t>(r.same_as)].name, " data type ",
                          data_type_name(other->dataType));
    }
    if (list && i > 0 && d->dataType != descs[0]->dataType)
      return type_error(name, " data type ", data_type_name(d->dataType),
                        " must match inputs[0] data type ", data_type_name(descs[0]->dataType));
  }
  return Ok{};
}

Status check_output_roles(const OpLimits& limits, std::span<const MLOperandDescriptor> outputs,
                          std::string_view whose) {
  if (limits.outputs.empty()) return Ok{};
  for (size_t i = 0; i < outputs.size(); ++i) {
    const RoleLimits& r = limits.outputs[std::min(i, limits.outputs.size() - 1)];
    std::string name = outputs.size() == 1 ? std::string(r.name) : "output " + std::to_string(i);
    CPPNN_RETURN_IF_ERROR(check_one(r, name, outputs[i], whose));
  }
  return Ok{};
}

}  // namespace cppnn
