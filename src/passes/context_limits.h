// A context's limits (webnn-spec.md §1 opSupportLimits): what its backend can really run,
// natively or after decomposition, computed once from the BackendDescriptor and the
// decomposition table. The builder checks every call against them (a TypeError at the call), and
// MLContext::opSupportLimits() reports them. The spec's own validation stays separate.
#pragma once

#include <vector>

#include "cppnn/support_limits.h"
#include "src/backends/backend_descriptor.h"

namespace cppnn::passes {

// How a context runs an op.
enum class Support : uint8_t { kNone, kNative, kDecomposed };

struct ContextLimits {
  std::vector<OpLimits> ops;  // by OpType: roles as the spec's, narrowed
  std::vector<Support> how;   // by OpType
  DataTypeMask tensor_types = dt::kAny;
  MLInputOperandLayout preferred_layout = MLInputOperandLayout::kNchw;
  uint64_t max_tensor_byte_length = kMaxTensorByteLength;

  bool supported(OpType t) const { return how.at(static_cast<size_t>(t)) != Support::kNone; }
  const OpLimits& op(OpType t) const { return ops.at(static_cast<size_t>(t)); }
  // The spec's dictionary (an unsupported op lists no data types).
  MLOpSupportLimits support_limits() const;
};

// Native limits where the backend has them; for the other ops the spec's limits, narrowed to the
// data types that every op their decomposition uses supports (recursively).
ContextLimits compute_context_limits(const BackendDescriptor& backend);

}  // namespace cppnn::passes
