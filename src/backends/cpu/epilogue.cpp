// The cpu kernels' fused activations (epilogue.h).
#include "src/backends/cpu/epilogue.h"

#include "cppnn/number.h"
#include "src/backends/cpu/cpu_features.h"
#include "src/ops/activations_params.h"

namespace cppnn::cpu {
namespace {

// A double option cast to float32 (§3.6).
float as_float(double v) {
  return static_cast<float>(MLNumber(v).cast_to_double(MLOperandDataType::kFloat32));
}

// One step over p[0..n), as plain loops the compiler vectorises for each instruction set.
CPPNN_CPU_CLONES void apply_step(const Epilogue::Step& s, float* p, size_t n) {
  const float a = s.a, b = s.b;
  switch (s.kind) {
    case Epilogue::Kind::kRelu:
      for (size_t i = 0; i < n; ++i) p[i] = p[i] < 0.0f ? 0.0f : p[i];
      break;
    case Epilogue::Kind::kClamp:  // NaN stays NaN (erratum §6.1)
      for (size_t i = 0; i < n; ++i) {
        const float x = p[i];
        p[i] = x < a ? a : (x > b ? b : x);
      }
      break;
    case Epilogue::Kind::kLeakyRelu:
      for (size_t i = 0; i < n; ++i) p[i] = p[i] >= 0.0f ? p[i] : a * p[i];
      break;
    case Epilogue::Kind::kHardSwish:  // x * max(0, min(6, x + 3)) / 6
      for (size_t i = 0; i < n; ++i) {
        const float x = p[i];
        const float t = x + 3.0f;
        const float r = t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t);
        p[i] = x * r / 6.0f;
      }
      break;
    case Epilogue::Kind::kHardSigmoid:  // max(0, min(1, alpha * x + beta))
      for (size_t i = 0; i < n; ++i) {
        const float v = a * p[i] + b;
        p[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
      }
      break;
    case Epilogue::Kind::kLinear:
      for (size_t i = 0; i < n; ++i) p[i] = a * p[i] + b;
      break;
  }
}

}  // namespace

std::optional<Epilogue> Epilogue::from(const std::vector<FusedActivation>& activations) {
  Epilogue e;
  if (activations.size() > e.steps.size()) return std::nullopt;
  for (const FusedActivation& act : activations) {
    Step s;
    switch (act.type) {
      case OpType::kRelu:
        s.kind = Kind::kRelu;
        break;
      case OpType::kClamp: {  // absent or NaN bounds are unbounded (erratum §6.1)
        const ClampBounds c = clamp_bounds(attrs_of<OpType::kClamp>(act.attrs).options);
        s = {Kind::kClamp, as_float(c.min.cast_to_double(MLOperandDataType::kFloat32)),
             as_float(c.max.cast_to_double(MLOperandDataType::kFloat32))};
        break;
      }
      case OpType::kLeakyRelu:
        s = {Kind::kLeakyRelu, as_float(attrs_of<OpType::kLeakyRelu>(act.attrs).options.alpha), 0};
        break;
      case OpType::kHardSwish:
        s.kind = Kind::kHardSwish;
        break;
      case OpType::kHardSigmoid: {
        const auto& o = attrs_of<OpType::kHardSigmoid>(act.attrs).options;
        s = {Kind::kHardSigmoid, as_float(o.alpha), as_float(o.beta)};
        break;
      }
      case OpType::kLinear: {
        const auto& o = attrs_of<OpType::kLinear>(act.attrs).options;
        s = {Kind::kLinear, as_float(o.alpha), as_float(o.beta)};
        break;
      }
      default:
        return std::nullopt;
    }
    e.steps[e.count++] = s;
  }
  return e;
}

void Epilogue::apply(float* p, size_t n) const {
  for (uint8_t i = 0; i < count; ++i) apply_step(steps[i], p, n);
}

}  // namespace cppnn::cpu
