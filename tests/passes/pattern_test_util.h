// Helpers shared by the pattern-recognising passes' tests (activation_patterns_test.cpp,
// normalization_patterns_test.cpp): deterministic float data, one-element constants and the op
// types of a graph.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn::pattern_testing {

// n floats uniform in [lo, hi) from `seed`.
inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A one-element float32 constant holding v.
inline MLOperand scalar(MLGraphBuilder& b, float v) {
  return b.constant({MLOperandDataType::kFloat32, {}}, testing::to_bytes(std::vector<float>{v}));
}

// The op type of each operation of g, in order.
inline std::vector<OpType> op_types(const Graph& g) {
  std::vector<OpType> t;
  for (const Operation& op : g.operations) t.push_back(op.type);
  return t;
}

}  // namespace cppnn::pattern_testing
