// Decompositions of the elementwise_binary ops (webnn-spec.md §2 emulation notes), written with
// MLGraphBuilder calls on the rewritten graph (see src/passes/decompose.h). The comparisons come
// from equal, lesser and lesserOrEqual with swapped operands (exact, NaN compares false as the
// reference kernels do), the logical ops from logicalNot (0/1 booleans) and min/max/equal on
// uint8.
#include <utility>

#include "src/passes/decompose.h"

namespace cppnn::passes {
namespace {

using enum OpType;

// notEqual(a, b) = logicalNot(equal(a, b)): a NaN operand gives 1 (rows 17-18).
std::vector<MLOperand> decompose_notEqual(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  return {b.logicalNot(b.equal(c.input(0), c.input(1)))};
}

// greater(a, b) = lesser(b, a), not logicalNot(lesserOrEqual), so that NaN gives 0 (row 19).
std::vector<MLOperand> decompose_greater(DecomposeContext& c) {
  return {c.builder().lesser(c.input(1), c.input(0))};
}

// greaterOrEqual(a, b) = lesserOrEqual(b, a): defined directly so that NaN gives 0 (row 20).
std::vector<MLOperand> decompose_greaterOrEqual(DecomposeContext& c) {
  return {c.builder().lesserOrEqual(c.input(1), c.input(0))};
}

// The negations logicalNot(a), logicalNot(b): 1 for false (zero), 0 for true (nonzero), so the
// logical ops below see 0/1 values whatever nonzero value marks true (row 24-26 "nonzero = true").
std::pair<MLOperand, MLOperand> negations(DecomposeContext& c) {
  MLGraphBuilder& b = c.builder();
  return {b.logicalNot(c.input(0)), b.logicalNot(c.input(1))};
}

// logicalAnd(a, b) = logicalNot(max(!a, !b)) (De Morgan; row 24).
std::vector<MLOperand> decompose_logicalAnd(DecomposeContext& c) {
  const auto [na, nb] = negations(c);
  MLGraphBuilder& b = c.builder();
  return {b.logicalNot(b.max(na, nb))};
}

// logicalOr(a, b) = logicalNot(min(!a, !b)) (De Morgan; row 25).
std::vector<MLOperand> decompose_logicalOr(DecomposeContext& c) {
  const auto [na, nb] = negations(c);
  MLGraphBuilder& b = c.builder();
  return {b.logicalNot(b.min(na, nb))};
}

// logicalXor(a, b) = notEqual(!a, !b) (row 26).
std::vector<MLOperand> decompose_logicalXor(DecomposeContext& c) {
  const auto [na, nb] = negations(c);
  return {c.builder().notEqual(na, nb)};
}

}  // namespace

void register_elementwise_binary(DecompositionTable& t) {
  t.add(kNotEqual, decompose_notEqual, {{kEqual}, {kLogicalNot, dt::kU8}});
  t.add(kGreater, decompose_greater, {{kLesser}});
  t.add(kGreaterOrEqual, decompose_greaterOrEqual, {{kLesserOrEqual}});
  t.add(kLogicalAnd, decompose_logicalAnd, {{kLogicalNot}, {kMax}});
  t.add(kLogicalOr, decompose_logicalOr, {{kLogicalNot}, {kMin}});
  t.add(kLogicalXor, decompose_logicalXor, {{kLogicalNot}, {kNotEqual}});
}

}  // namespace cppnn::passes
