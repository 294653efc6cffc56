// Per-op data type and rank limits (the "allowed [required]" columns of webnn-spec.md §2) and the
// implementation's global limits. Each op family file defines `limits_<method>` for its ops; the
// table in op_table.cpp collects them by OpType. opSupportLimits() is generated from them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/op_type.h"

namespace cppnn {

// The implementation's largest rank (the spec sets none, #456; WPT rejects rank 10).
inline constexpr uint32_t kMaxRank = 8;
// The largest valid dimension and element count (fits in `long`, §3.2).
inline constexpr uint64_t kMaxDimension = 0x7fffffffu;
// Largest tensor byte length this implementation accepts (MLOpSupportLimits.maxTensorByteLength):
// 4 GiB - 1, so that a float32 tensor of maxTensorByteLength / 4 elements is a valid input while
// doubling it fails on bytes, as the WPT byte-length tests assume.
inline constexpr uint64_t kMaxTensorByteLength = 0xffffffffu;
// Largest tensor count for concat inputs and split outputs (§3.2 valid tensor count, #933).
inline constexpr uint64_t kMaxTensorCount = 8192;

namespace dt {
using enum MLOperandDataType;
inline constexpr DataTypeMask kF32 = mask_of(kFloat32);
inline constexpr DataTypeMask kF16 = mask_of(kFloat16);
inline constexpr DataTypeMask kI32 = mask_of(kInt32);
inline constexpr DataTypeMask kU32 = mask_of(kUint32);
inline constexpr DataTypeMask kI64 = mask_of(kInt64);
inline constexpr DataTypeMask kU64 = mask_of(kUint64);
inline constexpr DataTypeMask kI8 = mask_of(kInt8);
inline constexpr DataTypeMask kU8 = mask_of(kUint8);
inline constexpr DataTypeMask kFloat = kF32 | kF16;
// "any": the 8 spec types.
inline constexpr DataTypeMask kAny = kF32 | kF16 | kI32 | kU32 | kI64 | kU64 | kI8 | kU8;
}  // namespace dt

// Sentinel for "no upper rank bound" (N in the spec table); reported as kMaxRank.
inline constexpr uint8_t kRankN = 255;
inline constexpr int8_t kNoRole = -1;

// Limits of one input or output role of an op.
struct RoleLimits {
  std::string_view name;      // the MLOpSupportLimits member name ("input", "filter", ...)
  DataTypeMask allowed = 0;   // types the spec allows (0 with same_as: whatever same_as has)
  DataTypeMask required = 0;  // types every implementation must support (#910)
  uint8_t min_rank = 0;
  uint8_t max_rank = kRankN;
  int8_t same_as = kNoRole;  // index of the input role whose data type this one must equal
  bool optional = false;     // an operand-valued option that may be absent
};

// The limits of one op: its input roles in Operation::inputs order and its output roles.
// For concat the single input role applies to every list element; for split the single output
// role applies to every output; recurrent ops list output0, output1, ... .
struct OpLimits {
  std::vector<RoleLimits> inputs;
  std::vector<RoleLimits> outputs;
};

// The limits of an op (from its family file's limits_<method>).
const OpLimits& op_limits(OpType t);

#define CPPNN_OP(E, m, S, O, F) extern const OpLimits limits_##m;
#include "cppnn/ops.def"
#undef CPPNN_OP

}  // namespace cppnn
