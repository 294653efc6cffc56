// The activations a cpu kernel applies to its output while it is still in cache: the chain the
// fusion pass recorded on a conv2d/convTranspose2d/matmul/gemm (Operation::activations), for the
// activations with an exact float32 form (relu, clamp, leakyRelu, hardSwish, hardSigmoid,
// linear; webnn-spec.md §2) and sigmoid, alone or times its input (SiLU), and gelu, as the cpu
// backend's own sigmoid and gelu kernels compute them (vector_math.h). Options are cast to float32
// first (§3.6), as the reference does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cppnn/graph_model.h"

namespace cppnn::cpu {

struct Epilogue {
  enum class Kind : uint8_t {
    kRelu,
    kClamp,
    kLeakyRelu,
    kHardSwish,
    kHardSigmoid,
    kLinear,
    kSigmoid,
    kSilu,  // x·sigmoid(x), each rounded to float32 as sigmoid and mul round
    kGelu,
  };
  struct Step {
    Kind kind = Kind::kRelu;
    float a = 0, b = 0;  // clamp: min, max; leakyRelu: alpha; hardSigmoid, linear: alpha, beta
  };
  std::array<Step, 4> steps{};
  uint8_t count = 0;

  // The epilogue of `activations` on a float32 output, or nullopt when one of them has no form
  // here (the caller then leaves them all to the reference kernels).
  static std::optional<Epilogue> from(const std::vector<FusedActivation>& activations);
  bool empty() const { return count == 0; }
  // Applies the steps in order to p[0..n): as apply_step, but hardSwish in float32 within 2 ULP
  // of the exact value (it follows a product that is itself within a tolerance).
  void apply(float* p, size_t n) const;
  // y[i] = step(x[i]) for i in [0, n) (x == y allowed), bit-identical to the reference kernels
  // for the exact activations: relu, clamp and leakyRelu in float32 (exact), hardSwish,
  // hardSigmoid and linear in double, rounded once.
  static void apply_step(const Step& s, const float* x, float* y, size_t n);
};

}  // namespace cppnn::cpu
