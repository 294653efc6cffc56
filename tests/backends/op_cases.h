// The op-level case list (ggml's test-backend-ops pattern): one list of small graphs covering
// every op family with its main options and data types, run on every compiled-in backend against
// the reference backend (backend_ops_test.cpp), so a new backend gets an op suite for free.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cppnn/webnn.h"

namespace cppnn::testing {

struct OpCase {
  std::string name;  // unique, [A-Za-z0-9_]
  // Records the case on `b` (inputs through b.input) and returns its named outputs.
  std::function<MLNamedOperands(MLGraphBuilder& b)> build;
  // Range of the random input values (integer types round them; unsigned take |v|).
  double low = -2.0, high = 2.0;
  // Allowed error of float outputs: |got - want| <= tolerance * (1 + |want|) (float16: x 1000).
  double tolerance = 1e-5;
};

// Every case.
const std::vector<OpCase>& op_cases();

}  // namespace cppnn::testing
