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
          if (!eff.inputs.empty() && (types & native_types) != types)
            eff.inputs[0].allowed = types;
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
    limits_.tensor_types = backend_.tensor_types;
    limits_.preferred_layout = backend_.preferred_layout;
    limits_.max_tensor_byte_length = backend_.max_tensor_byte_length;
    return std::move(limits_);
  }

 private:
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
