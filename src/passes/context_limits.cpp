#include "src/passes/context_limits.h"

#include "src/graph/support_limits_table.h"
#include "src/passes/decompose.h"

namespace cppnn::passes {
namespace {

// The types of the first input role (what DecompositionUse::types 0 means), 0 when unsupported.
DataTypeMask first_role_types(const OpLimits& l) {
  if (l.inputs.empty()) return dt::kAny;
  return l.inputs[0].allowed == 0 ? dt::kAny : l.inputs[0].allowed;
}

class Resolver {
 public:
  explicit Resolver(const BackendDescriptor& b) : backend_(b), done_(kOpCount, 0) {
    limits_.ops.resize(kOpCount);
    limits_.how.assign(kOpCount, Support::kNone);
  }

  // The effective limits of `t` (memoized; decompositions form no cycle).
  void resolve(OpType t) {
    const auto i = static_cast<size_t>(t);
    if (done_[i] == 2) return;
    if (done_[i] == 1) return;  // a cycle would be a table bug: treat as unsupported
    done_[i] = 1;
    const OpLimits& spec = op_limits(t);
    OpLimits eff = spec;
    DataTypeMask native_types = 0;
    if (backend_.native[i]) {
      eff = *backend_.native[i];
      native_types = first_role_types(eff);
      limits_.how[i] = Support::kNative;
    }
    if (const Decomposition* d = decompositions().find(t)) {
      DataTypeMask types = first_role_types(spec);
      bool usable = true;
      for (const DecompositionUse& u : d->uses) {
        resolve(u.op);
        const auto ui = static_cast<size_t>(u.op);
        if (limits_.how[ui] == Support::kNone) {
          usable = false;
          break;
        }
        const DataTypeMask have = first_role_types(limits_.ops[ui]);
        if (u.types == 0)
          types &= have;
        else if ((have & u.types) != u.types)
          usable = false;
      }
      if (usable && types != 0) {
        if (limits_.how[i] == Support::kNone) {
          eff = spec;
          if (!eff.inputs.empty() && (types & native_types) != types) eff.inputs[0].allowed = types;
          // Decompositions compute on unpacked data: 4-bit operands only through the int4
          // unpacking pass (widen_to_four_bit), and no 4-bit result.
          for (auto* roles : {&eff.inputs, &eff.outputs})
            for (RoleLimits& r : *roles)
              if (r.allowed != 0)
                r.allowed &= static_cast<DataTypeMask>(
                    ~(mask_of(MLOperandDataType::kInt4) | mask_of(MLOperandDataType::kUint4)));
          limits_.how[i] = Support::kDecomposed;
        } else if (!eff.inputs.empty() && eff.inputs[0].allowed != 0) {
          eff.inputs[0].allowed |= types;  // native for some types, decomposed for the others
        }
      }
    }
    limits_.ops[i] = std::move(eff);
    done_[i] = 2;
  }

  ContextLimits take() {
    for (size_t i = 0; i < kOpCount; ++i) resolve(static_cast<OpType>(i));
    if (backend_.passes.unpack_int4) widen_to_four_bit();
    limits_.tensor_types = backend_.tensor_types;
    limits_.preferred_layout = backend_.preferred_layout;
    limits_.max_tensor_byte_length = backend_.max_tensor_byte_length;
    return std::move(limits_);
  }

 private:
  // With the int4 unpacking pass, int4/uint4 constants reach the backend as int8/uint8: every
  // role taking int8 (uint8) takes int4 (uint4) too. (An int4 graph input cannot be unpacked at
  // build: its build() fails with NotSupportedError naming the op.)
  void widen_to_four_bit() {
    using enum MLOperandDataType;
    for (size_t i = 0; i < limits_.ops.size(); ++i) {
      OpLimits& l = limits_.ops[i];
      const OpLimits& spec = op_limits(static_cast<OpType>(i));
      for (size_t k = 0; k < l.inputs.size() && k < spec.inputs.size(); ++k) {
        RoleLimits& r = l.inputs[k];
        const DataTypeMask four_bit = mask_of(kInt4) | mask_of(kUint4);
        if (r.allowed == 0 || (spec.inputs[k].allowed & four_bit) == 0) continue;
        // An output of the role's type (quantizeLinear's int4 zeroPoint) would be 4-bit: no op
        // writes one once 4-bit data is unpacked.
        bool typed_output = false;
        for (const RoleLimits& o : l.outputs)
          typed_output = typed_output || o.same_as == static_cast<int8_t>(k);
        if (typed_output) continue;
        if (mask_has(r.allowed, kInt8)) r.allowed |= mask_of(kInt4);
        if (mask_has(r.allowed, kUint8)) r.allowed |= mask_of(kUint4);
        r.allowed &= spec.inputs[k].allowed;
      }
    }
  }

  const BackendDescriptor& backend_;
  std::vector<int> done_;
  ContextLimits limits_;
};

}  // namespace

ContextLimits compute_context_limits(const BackendDescriptor& backend) {
  return Resolver(backend).take();
}

MLOpSupportLimits ContextLimits::support_limits() const {
  std::vector<const OpLimits*> per_op(kOpCount, nullptr);
  for (size_t i = 0; i < kOpCount; ++i)
    if (how[i] != Support::kNone) per_op[i] = &ops[i];
  return make_support_limits(per_op, preferred_layout, max_tensor_byte_length, tensor_types);
}

}  // namespace cppnn::passes
