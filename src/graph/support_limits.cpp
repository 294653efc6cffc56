// MLOpSupportLimits generation from the op limits table, lookup and JSON rendering.
#include "cppnn/support_limits.h"

#include <sstream>

#include "cppnn/errors.h"
#include "src/graph/support_limits_table.h"
#include "src/ops/op_limits.h"

namespace cppnn {
namespace {

std::vector<MLOperandDataType> types_of(DataTypeMask m) {
  std::vector<MLOperandDataType> out;
  for (int i = 0; i < kAllDataTypeCount; ++i)
    if (mask_has(m, static_cast<MLOperandDataType>(i)))
      out.push_back(static_cast<MLOperandDataType>(i));
  return out;
}

MLTensorLimits tensor_limits(const RoleLimits& r, const std::vector<RoleLimits>& inputs) {
  DataTypeMask allowed = r.allowed;
  if (allowed == 0 && r.same_as >= 0) allowed = inputs[static_cast<size_t>(r.same_as)].allowed;
  return {types_of(allowed),
          {r.min_rank, r.max_rank == kRankN ? kMaxRank : static_cast<uint32_t>(r.max_rank)}};
}

void json_tensor_limits(std::ostringstream& os, const MLTensorLimits& l) {
  os << "{\"dataTypes\":[";
  for (size_t i = 0; i < l.dataTypes.size(); ++i)
    os << (i ? "," : "") << '"' << data_type_name(l.dataTypes[i]) << '"';
  os << "],\"rankRange\":{\"min\":" << l.rankRange.min << ",\"max\":" << l.rankRange.max << "}}";
}

}  // namespace

MLOpSupportLimits make_support_limits(std::span<const OpLimits* const> per_op,
                                      MLInputOperandLayout layout, uint64_t max_tensor_bytes,
                                      DataTypeMask tensor_types) {
  MLOpSupportLimits s;
  s.preferredInputLayout = layout;
  s.maxTensorByteLength = max_tensor_bytes;
  MLTensorLimits tensors{types_of(tensor_types), {0, kMaxRank}};
  s.input = tensors;
  s.constant = tensors;
  s.output = tensors;
  for (size_t i = 0; i < kOpCount; ++i) {
    auto t = static_cast<OpType>(i);
    const OpLimits& spec = op_limits(t);
    MLOpLimits ol;
    ol.op = t;
    // An unsupported op keeps its members, with no data types.
    const OpLimits* l = per_op[i];
    auto add = [&](const RoleLimits& r, const RoleLimits* have) {
      ol.roles.emplace_back(std::string(r.name),
                            have ? tensor_limits(*have, l->inputs) : MLTensorLimits{{}, {0, 0}});
    };
    for (size_t k = 0; k < spec.inputs.size(); ++k)
      add(spec.inputs[k], l && k < l->inputs.size() ? &l->inputs[k] : nullptr);
    for (size_t k = 0; k < spec.outputs.size(); ++k)
      add(spec.outputs[k], l && k < l->outputs.size() ? &l->outputs[k] : nullptr);
    s.operators.push_back(std::move(ol));
  }
  return s;
}

MLOpSupportLimits spec_support_limits() {
  std::vector<const OpLimits*> per_op;
  for (size_t i = 0; i < kOpCount; ++i) per_op.push_back(&op_limits(static_cast<OpType>(i)));
  return make_support_limits(per_op, MLInputOperandLayout::kNchw, kMaxTensorByteLength, dt::kAny);
}

const MLTensorLimits& MLOpLimits::operator[](std::string_view role) const {
  for (const auto& [name, limits] : roles)
    if (name == role) return limits;
  throw TypeError("opSupportLimits: " + std::string(op_name(op)) + " has no member \"" +
                  std::string(role) + "\"");
}

const MLOpLimits& MLOpSupportLimits::op(std::string_view method) const {
  OpType t;
  if (!op_from_name(method, t))
    throw TypeError("opSupportLimits: unknown operator \"" + std::string(method) + "\"");
  return op(t);
}

std::string MLOpSupportLimits::to_json() const {
  std::ostringstream os;
  os << "{\"preferredInputLayout\":\"" << enum_to_string(preferredInputLayout)
     << "\",\"maxTensorByteLength\":" << maxTensorByteLength << ",\"input\":";
  json_tensor_limits(os, input);
  os << ",\"constant\":";
  json_tensor_limits(os, constant);
  os << ",\"output\":";
  json_tensor_limits(os, output);
  for (const auto& o : operators) {
    os << ",\"" << op_name(o.op) << "\":{";
    for (size_t i = 0; i < o.roles.size(); ++i) {
      os << (i ? "," : "") << '"' << o.roles[i].first << "\":";
      json_tensor_limits(os, o.roles[i].second);
    }
    os << "}";
  }
  os << "}";
  return os.str();
}

}  // namespace cppnn
