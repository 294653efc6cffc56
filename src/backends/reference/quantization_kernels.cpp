// Reference kernels for quantizeLinear and dequantizeLinear (webnn-spec.md §2 rows 44-45, §6
// erratum 17). scale and zeroPoint share one shape; it is left-padded with 1s to the input rank
// and expanded blockwise: along each axis, one scale element covers input.dim / scale.dim
// consecutive input elements. The quantized side (dequantizeLinear input and zeroPoint,
// quantizeLinear zeroPoint and output) may be u8, i8, u32, i32 or the packed 4-bit int4/uint4
// (two values per byte, the first in the low nibble; include/cppnn/int4.h).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

// A quantized operand of a plain integer type T, addressed by element index.
template <class T>
struct PlainStorage {
  static constexpr int64_t kMin = std::numeric_limits<T>::lowest();
  static constexpr int64_t kMax = std::numeric_limits<T>::max();
  static int64_t load(const std::byte* p, int64_t i) {
    T v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return v;
  }
  static void store(std::byte* p, int64_t i, int64_t v) {
    const T t = static_cast<T>(v);
    std::memcpy(p + i * static_cast<int64_t>(sizeof(T)), &t, sizeof(T));
  }
};

// A packed 4-bit operand (int4 if Signed, else uint4): element i is nibble i % 2 of byte i / 2,
// the low nibble first. store() must see the elements in increasing order: an even element
// writes its whole byte (so the high nibble after an odd count ends as 0), an odd one ORs in.
template <bool Signed>
struct Packed4Storage {
  static constexpr int64_t kMin = Signed ? -8 : 0;
  static constexpr int64_t kMax = Signed ? 7 : 15;
  static int64_t load(const std::byte* p, int64_t i) {
    const auto b = static_cast<uint8_t>(p[i >> 1]);
    const unsigned nibble = (i & 1) ? (b >> 4) : (b & 0xFu);
    return Signed ? static_cast<int64_t>(nibble ^ 8u) - 8 : static_cast<int64_t>(nibble);
  }
  static void store(std::byte* p, int64_t i, int64_t v) {
    const auto nibble = static_cast<uint8_t>(static_cast<uint64_t>(v) & 0xFu);
    if (i & 1)
      p[i >> 1] |= std::byte(static_cast<uint8_t>(nibble << 4));
    else
      p[i >> 1] = std::byte(nibble);
  }
};

// Calls f(Tag<Storage>{}) with the storage of a quantized data type.
template <class F>
decltype(auto) visit_quantized_type(MLOperandDataType t, F&& f) {
  switch (t) {
    case MLOperandDataType::kUint8:
      return f(Tag<PlainStorage<uint8_t>>{});
    case MLOperandDataType::kInt8:
      return f(Tag<PlainStorage<int8_t>>{});
    case MLOperandDataType::kUint32:
      return f(Tag<PlainStorage<uint32_t>>{});
    case MLOperandDataType::kInt32:
      return f(Tag<PlainStorage<int32_t>>{});
    case MLOperandDataType::kInt4:
      return f(Tag<Packed4Storage<true>>{});
    case MLOperandDataType::kUint4:
      return f(Tag<Packed4Storage<false>>{});
    default:
      break;
  }
  throw OperationError("reference backend: unsupported quantized data type");
}

// A row-major loop over the input where offset 0 is the input (and output) element index and
// offset 1 the scale/zeroPoint element index: each input dim d is split into
// (scale.dim, block = input.dim / scale.dim), the scale walking the first part only.
struct BlockPlan {
  Dims shape;
  std::array<Strides, 2> strides;
};

BlockPlan block_plan(const Dims& input, const Dims& scale) {
  const size_t rank = input.size(), pad = rank - scale.size();
  Dims padded(pad, 1);
  padded.insert(padded.end(), scale.begin(), scale.end());
  const Strides scale_strides = contiguous_strides(padded);
  BlockPlan plan;
  Strides split_scale_strides;
  for (size_t d = 0; d < rank; ++d) {
    plan.shape.push_back(padded[d]);
    plan.shape.push_back(input[d] / padded[d]);
    split_scale_strides.push_back(scale_strides[d]);
    split_scale_strides.push_back(0);
  }
  plan.strides = {contiguous_strides(plan.shape), split_scale_strides};
  return plan;
}

// Round half to even, independent of the floating-point rounding mode (NaN and ±Inf kept).
double round_even(double v) {
  const double f = std::floor(v), diff = v - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

// Saturates to the range of storage Q; NaN becomes 0 (as the cast algorithm does, §3.6).
template <class Q>
int64_t saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(Q::kMin)) return Q::kMin;
  if (v >= static_cast<double>(Q::kMax)) return Q::kMax;
  return static_cast<int64_t>(v);
}

}  // namespace

// quantizeLinear (row 45): y = saturate(roundEven(x / scale) + zeroPoint) into the zeroPoint
// type; x / scale is computed in float32 (float16 inputs widened), like ONNX Runtime.
Kernel compile_quantizeLinear(const KernelContext& kc, const Operation& op,
                              const AttrsOf<OpType::kQuantizeLinear>&) {
  const OperandId input = op.inputs[0], scale = op.inputs[1], zero_point = op.inputs[2],
                  out = op.outputs[0];
  const BlockPlan plan = block_plan(kc.desc(input).shape, kc.desc(scale).shape);
  return visit_data_type(kc.desc(input).dataType, [&](auto ttag) -> Kernel {
    using T = typename decltype(ttag)::type;
    if constexpr (!kIsFloat<T>) {
      throw OperationError("reference backend: quantizeLinear input must be float32 or float16");
    } else {
      return visit_quantized_type(kc.desc(zero_point).dataType, [&](auto qtag) -> Kernel {
        using Q = typename decltype(qtag)::type;
        return [=](std::span<std::byte* const> slots) {
          const T* px = data_of<const T>(slots, input);
          const T* ps = data_of<const T>(slots, scale);
          const std::byte* pz = slots[zero_point.value];
          std::byte* po = slots[out.value];
          for_each_offset(plan.shape, plan.strides, [&](const std::array<int64_t, 2>& o) {
            // The quotient is rounded to float32 first, as ONNX and ONNX Runtime compute it.
            const float ratio =
                static_cast<float>(to_double(px[o[0]])) / static_cast<float>(to_double(ps[o[1]]));
            const double q =
                round_even(static_cast<double>(ratio)) + static_cast<double>(Q::load(pz, o[1]));
            Q::store(po, o[0], saturate<Q>(q));
          });
        };
      });
    }
  });
}

// dequantizeLinear (row 44): y = (x − zeroPoint) · scale, the difference exact in int64, the
// product in double rounded once to the scale type.
Kernel compile_dequantizeLinear(const KernelContext& kc, const Operation& op,
                                const AttrsOf<OpType::kDequantizeLinear>&) {
  const OperandId input = op.inputs[0], scale = op.inputs[1], zero_point = op.inputs[2],
                  out = op.outputs[0];
  const BlockPlan plan = block_plan(kc.desc(input).shape, kc.desc(scale).shape);
  return visit_quantized_type(kc.desc(input).dataType, [&](auto qtag) -> Kernel {
    using Q = typename decltype(qtag)::type;
    return visit_data_type(kc.desc(scale).dataType, [&](auto ttag) -> Kernel {
      using T = typename decltype(ttag)::type;
      if constexpr (!kIsFloat<T>) {
        throw OperationError(
            "reference backend: dequantizeLinear scale must be float32 or float16");
      } else {
        return [=](std::span<std::byte* const> slots) {
          const std::byte* px = slots[input.value];
          const T* ps = data_of<const T>(slots, scale);
          const std::byte* pz = slots[zero_point.value];
          T* po = data_of<T>(slots, out);
          for_each_offset(plan.shape, plan.strides, [&](const std::array<int64_t, 2>& o) {
            const int64_t diff = Q::load(px, o[0]) - Q::load(pz, o[1]);
            po[o[0]] = from_double<T>(static_cast<double>(diff) * to_double(ps[o[1]]));
          });
        };
      }
    });
  });
}

}  // namespace cppnn::ref
