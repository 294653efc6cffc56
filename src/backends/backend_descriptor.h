// What a backend declares about itself, as data (design.md "Capabilities are data"): the ops it
// runs natively with their data types and ranks per operand role, its preferred layout, and the
// shared passes its pipeline runs. The context's limits (opSupportLimits(), the builder's checks)
// and the pass pipeline are computed from it (src/passes/context_limits.h, src/passes/pipeline.h).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/enums.h"
#include "cppnn/graph_model.h"
#include "src/ops/op_limits.h"

namespace cppnn {

// The shared passes a backend's pipeline runs at build() (passes::prepare_graph), in this order
// after decomposition, which always runs for the ops without a native form.
struct PassSelection {
  bool unpack_int4 = false;     // int4/uint4 constants become int8/uint8 once at build
  bool fold_constants = false;  // operations on constants only are computed at build
  bool convert_layout =
      false;  // convolutions, pools, resample in preferred_layout, transposes sunk
  bool fold_batch_norm = false;        // conv2d + per-channel affine ops on constants: one conv2d
  bool recognize_activations = false;  // elementwise spellings of hardSwish and linear
  bool recognize_normalizations = false;  // spelled-out layer normalizations: layerNormalization
  bool fuse = false;       // conv2d/convTranspose2d/matmul/gemm + bias add + activation/clamp
  bool fuse_silu = false;  // with fuse: also mul(x, sigmoid(x)) on float32, as a times_input
                           // sigmoid (FusedActivation)
};

// One backend's declaration.
struct BackendDescriptor {
  std::string name;
  MLInputOperandLayout preferred_layout = MLInputOperandLayout::kNchw;
  // Indexed by OpType: the limits the op runs natively with (its roles in the order of the op's
  // spec limits), or nullopt when the op has no native form.
  std::vector<std::optional<OpLimits>> native;
  // Optional refinement: false when one particular operation (an option value) has no native form
  // although its data types fit, so that the pipeline decomposes it (ONNX's LSTM has no WebNN
  // peepholes semantics, say).
  bool (*runs_natively)(const Graph& graph, const Operation& op) = nullptr;
  // Data types of graph inputs, constants and outputs (MLOpSupportLimits input/constant/output).
  DataTypeMask tensor_types = dt::kAny;
  uint64_t max_tensor_byte_length = kMaxTensorByteLength;
  PassSelection passes;

  // Every op native with the spec's limits.
  static BackendDescriptor with_all_ops(std::string name);
  // Only `ops` native, with the spec's limits.
  static BackendDescriptor with_ops(std::string name, std::initializer_list<OpType> ops);
  // Removes `types` from every native role and from the tensor types.
  void remove_data_types(DataTypeMask types);

  bool is_native(OpType t) const { return native.at(static_cast<size_t>(t)).has_value(); }
  // Whether `op` of `graph` runs natively: a native op, every operand's data type and rank within
  // the native limits, and runs_natively (when set) agrees.
  bool fits_natively(const Graph& graph, const Operation& op) const;
};

}  // namespace cppnn
