// OpType, the per-op attribute types, and the positional-parameter structs of each signature kind,
// all derived from ops.def.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "cppnn/data_type.h"
#include "cppnn/options.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// One enumerator per builder operation, in ops.def order.
enum class OpType : uint8_t {
#define CPPNN_OP(E, m, S, O, F) k##E,
#include "cppnn/ops.def"
#undef CPPNN_OP
};

inline constexpr size_t kOpCount = 0
#define CPPNN_OP(E, m, S, O, F) +1
#include "cppnn/ops.def"
#undef CPPNN_OP
    ;
static_assert(kOpCount == 95, "webnn-spec.md §2 has 95 builder operations");

// The spec method name of an op ("conv2d").
std::string_view op_name(OpType t) noexcept;
// Looks an op up by its method name.
bool op_from_name(std::string_view name, OpType& out) noexcept;

// Positional (non-operand) parameters of each signature kind.
struct NoParams {
  friend bool operator==(const NoParams&, const NoParams&) = default;
};
// argMin/argMax/cumulativeSum/softmax `axis`, concat `axis`.
struct AxisParams {
  uint32_t axis = 0;
  friend bool operator==(const AxisParams&, const AxisParams&) = default;
};
// cast `dataType`.
struct CastParams {
  MLOperandDataType dataType = MLOperandDataType::kFloat32;
  friend bool operator==(const CastParams&, const CastParams&) = default;
};
// expand/reshape `newShape`, tile `repetitions`.
struct ShapeParams {
  std::vector<uint32_t> shape;
  friend bool operator==(const ShapeParams&, const ShapeParams&) = default;
};
// pad (beginningPadding, endingPadding), slice (starts, sizes).
struct TwoListParams {
  std::vector<uint32_t> first;
  std::vector<uint32_t> second;
  friend bool operator==(const TwoListParams&, const TwoListParams&) = default;
};
// split `splits`: a count of equal parts, or a list of sizes.
struct SplitParams {
  std::variant<uint32_t, std::vector<uint32_t>> splits = uint32_t{1};
  friend bool operator==(const SplitParams&, const SplitParams&) = default;
};
// gru/lstm `steps`, `hiddenSize`.
struct RecurrentParams {
  uint32_t steps = 0;
  uint32_t hiddenSize = 0;
  friend bool operator==(const RecurrentParams&, const RecurrentParams&) = default;
};
// gruCell/lstmCell `hiddenSize`.
struct CellParams {
  uint32_t hiddenSize = 0;
  friend bool operator==(const CellParams&, const CellParams&) = default;
};

// Signature kind -> params type, operand count and whether the method returns a sequence.
template <class Tag>
struct SignatureTraits;
// Signature kinds (the Signature column of ops.def).
namespace sig {
struct Unary {};
struct Binary {};
struct Ternary {};
struct Axis {};
struct Cast {};
struct Concat {};
struct Shape {};
struct TwoLists {};
struct Split {};
struct Recurrent {};
struct GruCell {};
struct LstmCell {};
}  // namespace sig
#define CPPNN_SIG(Tag, P, N, Many)                       \
  template <>                                            \
  struct SignatureTraits<sig::Tag> {                     \
    using Params = P;                                    \
    static constexpr int kOperands = N; /* -1: a list */ \
    static constexpr bool kReturnsSequence = Many;       \
  };
CPPNN_SIG(Unary, NoParams, 1, false)
CPPNN_SIG(Binary, NoParams, 2, false)
CPPNN_SIG(Ternary, NoParams, 3, false)
CPPNN_SIG(Axis, AxisParams, 1, false)
CPPNN_SIG(Cast, CastParams, 1, false)
CPPNN_SIG(Concat, AxisParams, -1, false)
CPPNN_SIG(Shape, ShapeParams, 1, false)
CPPNN_SIG(TwoLists, TwoListParams, 1, false)
CPPNN_SIG(Split, SplitParams, 1, true)
CPPNN_SIG(Recurrent, RecurrentParams, 3, true)
CPPNN_SIG(GruCell, CellParams, 4, false)
CPPNN_SIG(LstmCell, CellParams, 5, true)
#undef CPPNN_SIG

// The recorded attributes of one op: its positional parameters and its options. In a recorded
// graph, operand-valued options (bias, scale, c, ...) are cleared: those operands are the op's
// inputs after the positional operands (see Operation::inputs).
template <class P, class O>
struct OpAttrs {
  using Params = P;
  using Options = O;
  P params;
  O options;
};

// Per-op info from ops.def: OpInfo<OpType::kX>::Signature, ::Options, ::Attrs.
template <OpType T>
struct OpInfo;
#define CPPNN_OP(E, m, S, O, F)                                \
  template <>                                                  \
  struct OpInfo<OpType::k##E> {                                \
    using Signature = sig::S;                                  \
    using Options = O;                                         \
    using Attrs = OpAttrs<SignatureTraits<sig::S>::Params, O>; \
    static constexpr std::string_view kName = #m;              \
  };
#include "cppnn/ops.def"
#undef CPPNN_OP

// The attributes of any op: a variant indexed by OpType (index i holds OpInfo<OpType(i)>::Attrs;
// several ops share a type, so access by index, see attrs_of()).
using OpAttributes = std::variant<
#define CPPNN_OP(E, m, S, O, F) OpInfo<OpType::k##E>::Attrs,
#include "cppnn/ops.def"
#undef CPPNN_OP
    std::monostate>;

template <OpType T>
using AttrsOf = typename OpInfo<T>::Attrs;

template <OpType T>
const AttrsOf<T>& attrs_of(const OpAttributes& a) {
  return std::get<static_cast<size_t>(T)>(a);
}
template <OpType T>
AttrsOf<T>& attrs_of(OpAttributes& a) {
  return std::get<static_cast<size_t>(T)>(a);
}
// The label of any op's options.
const std::string& label_of(const OpAttributes& a);

}  // namespace cppnn

#pragma GCC visibility pop
