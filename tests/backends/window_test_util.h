// Shared fixture of the reference kernel tests of the windowed 4-D ops (convolution, pooling,
// resample2d): a builder on a reference context that records the bytes of every input it makes,
// runs one output, and permutes 4-D data between layouts.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cppnn/float16.h"
#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn::testing {

using Dims = std::vector<uint32_t>;
inline constexpr auto kF32 = MLOperandDataType::kFloat32;
inline constexpr auto kF16 = MLOperandDataType::kFloat16;

// The values of raw float16 bits.
inline std::vector<float> half_values(const std::vector<uint16_t>& b) {
  std::vector<float> v;
  for (uint16_t h : b) v.push_back(half_bits_to_float(h));
  return v;
}

// A builder on a reference context. input() makes a uniquely named graph input and records its
// data; run<T>() builds the graph of one output, dispatches it, returns the output elements and
// starts a fresh builder (a builder builds once).
class WindowOpTest : public ::testing::Test {
 protected:
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder& builder() { return *builder_; }

  template <class T>
  MLOperand input(MLOperandDataType type, Dims shape, const std::vector<T>& data) {
    const std::string name = "in" + std::to_string(inputs_.size());
    inputs_[name] = to_bytes(data);
    return builder_->input(name, {type, std::move(shape)});
  }
  MLOperand f32(Dims shape, const std::vector<float>& data) {
    return input(kF32, std::move(shape), data);
  }
  MLOperand f16(Dims shape, const std::vector<float>& data) {
    return input(kF16, std::move(shape), half_bits(data));
  }
  template <class T>
  std::vector<T> run(const MLOperand& output) {
    MLGraph graph = builder_->build({{"out", output}});
    std::vector<T> result = as<T>(run_graph(context, graph, inputs_).at("out"));
    builder_ = std::make_unique<MLGraphBuilder>(context);
    inputs_.clear();
    return result;
  }
  std::vector<float> run_f16(const MLOperand& output) { return half_values(run<uint16_t>(output)); }

 private:
  std::unique_ptr<MLGraphBuilder> builder_ = std::make_unique<MLGraphBuilder>(context);
  std::map<std::string, std::vector<std::byte>> inputs_;
};

// A 4-D tensor's data transposed by `perm` (out dim i is in dim perm[i]), and its new shape.
template <class T>
std::vector<T> permute4(const std::vector<T>& data, const Dims& shape,
                        const std::array<size_t, 4>& perm, Dims* out_shape = nullptr) {
  const std::array<size_t, 4> in_strides{shape[1] * shape[2] * shape[3], shape[2] * shape[3],
                                         shape[3], 1};
  Dims out{shape[perm[0]], shape[perm[1]], shape[perm[2]], shape[perm[3]]};
  std::vector<T> result;
  for (uint32_t a = 0; a < out[0]; ++a)
    for (uint32_t b = 0; b < out[1]; ++b)
      for (uint32_t c = 0; c < out[2]; ++c)
        for (uint32_t d = 0; d < out[3]; ++d)
          result.push_back(data[a * in_strides[perm[0]] + b * in_strides[perm[1]] +
                                c * in_strides[perm[2]] + d * in_strides[perm[3]]]);
  if (out_shape) *out_shape = out;
  return result;
}
inline constexpr std::array<size_t, 4> kNchwToNhwc{0, 2, 3, 1};

}  // namespace cppnn::testing
