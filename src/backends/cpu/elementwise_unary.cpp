// The cpu backend's element-wise activation kernels: float32 relu, clamp, leakyRelu, hardSwish,
// hardSigmoid and linear (webnn-spec.md §2 rows 79, 5, 59, 56, 55, 60), bit-identical to the
// reference kernels (reference/activations_kernels.cpp). The options come from Epilogue::from
// (cast to float32, §3.6; clamp bounds per erratum §6.1). relu, clamp and leakyRelu are exact in
// float32 (a select, or one float32 product). hardSwish, hardSigmoid and linear compute in double
// as the reference does and round once (float32 arithmetic, with several roundings, would be off
// by an ULP now and then; WPT allows 4, 2 and 2 ULP), in vectorised loops (Epilogue::apply_step).
// The tensor is split into chunks of kChunk elements spread over the pool.
#include <algorithm>

#include "src/backends/cpu/epilogue.h"
#include "src/backends/cpu/fast_kernel.h"

namespace cppnn::cpu {
namespace {

// Elements per pool task (a multiple of every vector width).
constexpr size_t kChunk = 64 * 1024;

}  // namespace

// relu, clamp, leakyRelu, hardSwish, hardSigmoid, linear on float32 (§2 rows 79, 5, 59, 56, 55,
// 60), bit-identical to the reference; float16 and integer inputs return nullopt.
std::optional<FastKernel> compile_fast_unary(const CompileContext& cc, const Operation& op) {
  if (op.inputs.size() != 1 || op.outputs.size() != 1) return std::nullopt;
  const MLOperandDescriptor &din = cc.desc(op.inputs[0]), &dout = cc.desc(op.outputs[0]);
  constexpr MLOperandDataType f32 = MLOperandDataType::kFloat32;
  if (din.dataType != f32 || dout.dataType != f32 || din.shape != dout.shape) return std::nullopt;
  const std::optional<Epilogue> e = Epilogue::from({{op.type, op.attrs}});
  if (!e || e->count != 1 || e->steps[0].kind == Epilogue::Kind::kSigmoid ||
      e->steps[0].kind == Epilogue::Kind::kGelu)
    return std::nullopt;  // sigmoid and gelu: elementwise_math.cpp
  size_t count = 1;
  for (uint32_t d : dout.shape) count *= d;
  const OperandId in = op.inputs[0], out = op.outputs[0];
  return FastKernel{
      [step = e->steps[0], count, in, out, pool = cc.pool](std::span<std::byte* const> slots) {
        const auto* x = reinterpret_cast<const float*>(slots[in.value]);
        auto* y = reinterpret_cast<float*>(slots[out.value]);
        const size_t tasks = (count + kChunk - 1) / kChunk;
        if (tasks <= 1 || pool->size() == 1) {
          Epilogue::apply_step(step, x, y, count);
          return;
        }
        pool->parallel_for(tasks, [&](size_t t) {
          const size_t begin = t * kChunk;
          Epilogue::apply_step(step, x + begin, y + begin, std::min(count, begin + kChunk) - begin);
        });
      },
      false};
}

}  // namespace cppnn::cpu
