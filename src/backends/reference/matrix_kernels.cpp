// Reference kernels for the matrix products (webnn-spec.md §2 rows 52 and 63). Operands are read
// as double, each dot product accumulates in double over k in ascending order, and each output
// element is rounded once to the input type.
#include <cstdint>
#include <vector>

#include "cppnn/errors.h"
#include "src/backends/reference/element.h"
#include "src/backends/reference/kernel.h"
#include "src/backends/reference/strides.h"

namespace cppnn::ref {
namespace {

// Calls f(Tag<T>{}) for a float element type (the only ones gemm and matmul accept).
template <class F>
Kernel visit_float(MLOperandDataType t, F&& f) {
  return visit_data_type(t, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>)
      return f(tag);
    else
      throw OperationError("reference backend: gemm and matmul take float32 or float16 data");
  });
}

// row[j] = Σ_t a[t·a_step] · b[t·b_row + j·b_col] for j in [0, n), t in [0, k): one output row of
// a product, each element read as double where it is used (no widened copy of the operands) and
// accumulated in double in ascending t.
template <class T>
void dot_row(const T* a, size_t a_step, const T* b, size_t b_row, size_t b_col, size_t k, size_t n,
             double* row) {
  for (size_t j = 0; j < n; ++j) row[j] = 0;
  for (size_t t = 0; t < k; ++t) {
    const double av = to_double(a[t * a_step]);
    const T* br = b + t * b_row;
    if (b_col == 1) {
      for (size_t j = 0; j < n; ++j) row[j] += av * to_double(br[j]);
    } else {
      for (size_t j = 0; j < n; ++j) row[j] += av * to_double(br[j * b_col]);
    }
  }
}

}  // namespace

// gemm: y = α·A'·B' + β·C with A' = aᵀ if aTranspose, B' = bᵀ if bTranspose and C (optional)
// unidirectionally broadcast to [M, N]; α and β are cast to the input type first (row 52, §3.6).
Kernel compile_gemm(const KernelContext& kc, const Operation& op,
                    const AttrsOf<OpType::kGemm>& attrs) {
  const auto& options = attrs.options;
  const OperandId a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
  const OperandId c = op.inputs.size() > 2 ? op.inputs[2] : kNoOperand;
  const Dims& a_shape = kc.desc(a).shape;
  const Dims& b_shape = kc.desc(b).shape;
  const size_t m = options.aTranspose ? a_shape[1] : a_shape[0];
  const size_t k = options.aTranspose ? a_shape[0] : a_shape[1];
  const size_t n = options.bTranspose ? b_shape[0] : b_shape[1];
  const bool a_t = options.aTranspose, b_t = options.bTranspose;
  const Strides c_strides =
      c.valid() ? broadcast_strides(kc.desc(c).shape,
                                    Dims{static_cast<uint32_t>(m), static_cast<uint32_t>(n)})
                : Strides{0, 0};
  return visit_float(kc.desc(a).dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    const double alpha = to_double(from_double<T>(options.alpha));
    const double beta = to_double(from_double<T>(options.beta));
    return [=, row = std::vector<double>(n)](std::span<std::byte* const> slots) mutable {
      const T* pa = data_of<T>(slots, a);
      // B' row-major [K, N]: b itself, or the transpose of b [N, K] read by column.
      const T* pb = data_of<T>(slots, b);
      const size_t b_row = b_t ? 1 : n, b_col = b_t ? k : 1;
      const T* pc = c.valid() ? data_of<T>(slots, c) : nullptr;
      T* py = data_of<T>(slots, out);
      for (size_t i = 0; i < m; ++i) {
        // Row i of A': a[i, 0..k) or column i of a [K, M].
        if (a_t)
          dot_row(pa + i, m, pb, b_row, b_col, k, n, row.data());
        else
          dot_row(pa + i * k, 1, pb, b_row, b_col, k, n, row.data());
        for (size_t j = 0; j < n; ++j) {
          double y = alpha * row[j];
          if (pc) y += beta * to_double(pc[i * c_strides[0] + j * c_strides[1]]);
          py[i * n + j] = from_double<T>(y);
        }
      }
    };
  });
}

// matmul: y[..., i, j] = Σ_k a[..., i, k] · b[..., k, j] with the batch dims (all but the last
// two) bidirectionally broadcast (row 63).
Kernel compile_matmul(const KernelContext& kc, const Operation& op,
                      const AttrsOf<OpType::kMatmul>&) {
  const OperandId a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
  const Dims& a_shape = kc.desc(a).shape;
  const Dims& b_shape = kc.desc(b).shape;
  const Dims& out_shape = kc.desc(out).shape;
  const size_t m = a_shape[a_shape.size() - 2], k = a_shape.back(), n = b_shape.back();
  const Dims out_batch(out_shape.begin(), out_shape.end() - 2);
  std::array<Strides, 3> batch_strides{
      broadcast_strides(Dims(a_shape.begin(), a_shape.end() - 2), out_batch),
      broadcast_strides(Dims(b_shape.begin(), b_shape.end() - 2), out_batch),
      contiguous_strides(out_batch)};
  // In elements: each batch entry is a whole matrix.
  for (int64_t& s : batch_strides[0]) s *= static_cast<int64_t>(m * k);
  for (int64_t& s : batch_strides[1]) s *= static_cast<int64_t>(k * n);
  for (int64_t& s : batch_strides[2]) s *= static_cast<int64_t>(m * n);
  return visit_float(kc.desc(a).dataType, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    return [=, row = std::vector<double>(n)](std::span<std::byte* const> slots) mutable {
      const T* pa = data_of<T>(slots, a);
      const T* pb = data_of<T>(slots, b);
      T* py = data_of<T>(slots, out);
      for_each_offset(out_batch, batch_strides, [&](const std::array<int64_t, 3>& o) {
        for (size_t i = 0; i < m; ++i) {
          dot_row(pa + o[0] + i * k, 1, pb + o[1], n, 1, k, n, row.data());
          for (size_t j = 0; j < n; ++j) py[o[2] + i * n + j] = from_double<T>(row[j]);
        }
      });
    };
  });
}

}  // namespace cppnn::ref
