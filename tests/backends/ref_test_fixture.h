// A fixture for reference-kernel tests: typed graph inputs with their data, one build and run,
// and float16 conversions for expected values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cppnn/webnn.h"
#include "tests/backends/run_util.h"

namespace cppnn::testing {

// Float16 bits of a value (round to nearest even) and back.
inline uint16_t h16(double v) {
  return double_to_half_bits(v);
}
inline float f16(uint16_t bits) {
  return half_bits_to_float(bits);
}

class RefGraphTest : public ::testing::Test {
 protected:
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder{context};

  // A graph input of type `t` and `shape` fed with `data` (elements of the matching C++ type;
  // uint16_t bits for float16).
  template <class T>
  MLOperand input(MLOperandDataType t, std::vector<uint32_t> shape, const std::vector<T>& data) {
    const std::string name = "input" + std::to_string(feeds_.size());
    feeds_[name] = to_bytes(data);
    return builder.input(name, {t, std::move(shape)});
  }
  MLOperand f32(std::vector<uint32_t> shape, const std::vector<float>& data) {
    return input(MLOperandDataType::kFloat32, std::move(shape), data);
  }
  // A float16 input from values (each rounded to float16).
  MLOperand f16_input(std::vector<uint32_t> shape, const std::vector<double>& data) {
    std::vector<uint16_t> bits;
    for (double v : data) bits.push_back(h16(v));
    return input(MLOperandDataType::kFloat16, std::move(shape), bits);
  }

  // Builds the graph of `outputs` (once per test) and runs it; the outputs by name.
  std::map<std::string, std::vector<std::byte>> run(const MLNamedOperands& outputs) {
    return run_graph(context, builder.build(outputs), feeds_);
  }
  // Builds and runs a single output, as elements of T.
  template <class T>
  std::vector<T> run1(const MLOperand& output) {
    return as<T>(run({{"out", output}}).at("out"));
  }
  // A single float16 output, decoded to float.
  std::vector<float> run_f16(const MLOperand& output) {
    std::vector<float> v;
    for (uint16_t b : run1<uint16_t>(output)) v.push_back(f16(b));
    return v;
  }

 private:
  std::map<std::string, std::vector<std::byte>> feeds_;
};

// Expects equal float vectors (bitwise-equal floats, NaN matching NaN).
inline void ExpectFloats(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(actual[i])) << "at " << i << ": " << actual[i];
    else
      EXPECT_EQ(actual[i], expected[i]) << "at " << i;
  }
}

}  // namespace cppnn::testing
