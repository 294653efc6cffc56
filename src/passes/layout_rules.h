// The rules the layout pass (layout.h) is built from: permutations as transpose() takes them and
// what they do to shapes and constant bytes, the filter layouts' dimension letters, which ops
// commute with a transpose, and re-recording an operation on new operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "cppnn/enums.h"
#include "cppnn/graph_model.h"
#include "src/passes/rewriter.h"

namespace cppnn::passes::layout_rules {

// A permutation as transpose() takes it: dimension i of the result is dimension p[i] of the input.
using Perm = std::vector<uint32_t>;
using Dims = std::vector<uint32_t>;

// NCHW -> NHWC.
inline const Perm kToNhwc = {0, 2, 3, 1};

// The identity permutation of `rank` dimensions.
Perm identity_perm(size_t rank);

// Whether `p` leaves every dimension in place.
bool is_identity(const Perm& p);

// The permutation undoing `p`: transpose(transpose(x, p), inverse(p)) == x.
Perm inverse(const Perm& p);

// transpose(transpose(x, a), b) == transpose(x, compose(a, b)): (a ∘ b)[i] = a[b[i]].
Perm compose(const Perm& a, const Perm& b);

// The shape of transpose(x, p) for x of shape `s`.
Dims permuted(const Dims& s, const Perm& p);

// `s` with leading 1s up to `rank` dimensions (how broadcasting aligns a lower-rank operand).
Dims padded(const Dims& s, size_t rank);

// `s` without leading 1s beyond `rank` dimensions (the inverse of padded, as far as it goes).
Dims trimmed(Dims s, size_t rank);

// Whether transpose(x, p) of x with shape `s` holds x's elements in x's order (the dimensions
// larger than 1 keep their relative order), so that a reshape does it.
bool keeps_order(const Dims& s, const Perm& p);

// The bytes of transpose(x, p) for x's `bytes` of `shape`, `size`-byte elements: a plain copy.
std::vector<std::byte> permute_bytes(std::span<const std::byte> bytes, const Dims& shape,
                                     const Perm& p, size_t size);

// The dimension letters of each filter layout (webnn-spec.md §2 rows 7-8).
std::string_view letters(MLConv2dFilterOperandLayout l);

std::string_view letters(MLConvTranspose2dFilterOperandLayout l);

// The permutation taking a filter in layout `from` to layout `to` (both as letters).
Perm letter_perm(std::string_view from, std::string_view to);

// Elementwise ops of one operand (unary functions, activations, cast): they commute with any
// transpose.
bool is_unary_elementwise(OpType t);

// Elementwise ops over broadcast operands (binary ops, where, prelu): they commute with a
// transpose applied to every operand once padded to the output's rank.
bool is_broadcasting(OpType t);

// Ops that take any layout of their operands (the output gets the same layout).
bool follows_layout(OpType t);

// The reductions over MLReduceOptions axes (reduceL1 ... reduceSumSquare, webnn-spec.md §2 rows
// 69-78).
bool is_reduction(OpType t);

// The layout of gather(x, indices, axis) computed on transpose(x, p) along inverse(p)[axis], with
// indices of rank `index_rank`: that result is transpose(gather(x, indices, axis), the returned
// permutation) (x's dimension `axis` becomes index_rank dimensions in place).
Perm gathered_perm(const Perm& p, uint32_t axis, size_t index_rank);

// The layout of a reduction (or argMin/argMax) over the dimensions `reduced` of x computed on
// transpose(x, p) over the mapped dimensions: p itself when `keep` (reduced dimensions stay as
// 1s), else p without the reduced dimensions, renumbered.
Perm reduced_perm(const Perm& p, const std::vector<bool>& reduced, bool keep);

// Whether transpose(x, p), x of shape `s`, meets the reduced dimensions of more than one element
// in x's order, so that a reduction over them sees the same elements in the same order.
bool reduces_in_order(const Dims& s, const Perm& p, const std::vector<bool>& reduced);

// The options of a pool (averagePool2d, l2Pool2d and maxPool2d share MLPool2dOptions).
template <class Attrs>
auto& pool_options(Attrs& attrs) {
  using O = std::conditional_t<std::is_const_v<Attrs>, const MLPool2dOptions, MLPool2dOptions>;
  O* o = nullptr;
  std::visit(
      [&](auto& a) {
        if constexpr (requires { a.options.outputShapeRounding; }) o = &a.options;
      },
      attrs);
  return *o;
}

// The attributes of op T as an OpAttributes (by index: several ops share an attributes type).
template <OpType T>
OpAttributes wrap(AttrsOf<T> a) {
  return OpAttributes(std::in_place_index<static_cast<size_t>(T)>, std::move(a));
}

// Records `op` again on the new operands `in` (its positional operands, then its operand-valued
// options, null where absent) with `attrs`, keeping its fused activations; its first output.
MLOperand rerecord(GraphRewriter& rw, const Operation& op, std::vector<MLOperand> in,
                   OpAttributes attrs);

}  // namespace cppnn::passes::layout_rules
