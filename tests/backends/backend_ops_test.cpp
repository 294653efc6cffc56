// Every op case (op_cases.h) on every compiled-in backend, the test-only ones included, against
// the reference backend on the same random inputs (ggml's test-backend-ops pattern).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "src/backends/selection.h"
#include "tests/backends/op_cases.h"
#include "tests/backends/run_util.h"

namespace cppnn::testing {
namespace {

using enum MLOperandDataType;
using Bytes = std::vector<std::byte>;

// Deterministic random bytes for an input of `desc`, values in [low, high].
Bytes random_input(const MLOperandDescriptor& desc, double low, double high, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(low, high);
  uint64_t n = 1;
  for (uint32_t d : desc.shape) n *= d;
  const size_t width = data_type_bits(desc.dataType) / 8;
  Bytes bytes(n * width);
  const bool integer = desc.dataType != kFloat32 && desc.dataType != kFloat16;
  const bool is_unsigned =
      desc.dataType == kUint8 || desc.dataType == kUint32 || desc.dataType == kUint64;
  for (uint64_t i = 0; i < n; ++i) {
    double v = dist(rng);
    if (integer) v = std::floor(v);
    if (is_unsigned) v = std::fabs(v);
    MLNumber(v).cast_to_bytes(desc.dataType, bytes.data() + i * width);
  }
  return bytes;
}

// The value of element i as a double.
double element(const Bytes& b, MLOperandDataType t, size_t i) {
  auto read = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, b.data() + i * sizeof(v), sizeof(v));
    return static_cast<double>(v);
  };
  switch (t) {
    case kFloat32:
      return read(float{});
    case kFloat16: {
      uint16_t h;
      std::memcpy(&h, b.data() + i * 2, 2);
      return half_bits_to_float(h);
    }
    case kInt32:
      return read(int32_t{});
    case kUint32:
      return read(uint32_t{});
    case kInt64:
      return read(int64_t{});
    case kUint64:
      return read(uint64_t{});
    case kInt8:
      return read(int8_t{});
    case kUint8:
      return read(uint8_t{});
    case kInt4:
    case kUint4:
      break;
  }
  return 0;
}

struct Param {
  std::string backend;
  size_t index;
};

class BackendOps : public ::testing::TestWithParam<Param> {};

TEST_P(BackendOps, MatchesTheReferenceBackend) {
  const OpCase& c = op_cases().at(GetParam().index);
  MLContext ref = ref_context();
  MLContext other = MLContext::create({.backend = GetParam().backend});
  MLGraphBuilder rb(ref), ob(other);
  MLGraph rg = rb.build(c.build(rb));
  MLGraph og = ob.build(c.build(ob));
  std::map<std::string, Bytes> inputs;
  uint32_t seed = 1;
  for (const auto& [name, desc] : rg.inputs())
    inputs[name] = random_input(desc, c.low, c.high, seed++);
  const auto want = run_graph(ref, rg, inputs);
  const auto got = run_graph(other, og, inputs);
  for (const auto& [name, desc] : rg.outputs()) {
    ASSERT_EQ(og.outputs().at(name), desc) << name;
    const Bytes& w = want.at(name);
    const Bytes& g = got.at(name);
    const size_t n = w.size() / (data_type_bits(desc.dataType) / 8);
    const bool is_float = desc.dataType == kFloat32 || desc.dataType == kFloat16;
    const double tol = desc.dataType == kFloat16 ? c.tolerance * 1000 : c.tolerance;
    size_t bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i) {
      const double a = element(g, desc.dataType, i), e = element(w, desc.dataType, i);
      const bool ok =
          is_float ? (std::isnan(e) ? std::isnan(a) : std::fabs(a - e) <= tol * (1 + std::fabs(e)))
                   : a == e;
      if (!ok) {
        ++bad;
        ADD_FAILURE() << c.name << " output " << name << "[" << i << "]: " << a << ", reference "
                      << e;
      }
    }
  }
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const std::string& b : compiled_backends(/*with_test_only=*/true)) {
    if (b == "reference") continue;
    for (size_t i = 0; i < op_cases().size(); ++i) p.push_back({b, i});
  }
  return p;
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendOps, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return info.param.backend + "_" + op_cases().at(info.param.index).name;
                         });

}  // namespace
}  // namespace cppnn::testing
