// The cpu backend's gather kernel (src/backends/cpu/gather.cpp, webnn-spec.md §2 row 48) against
// the reference backend, bit for bit: constant int32/uint32/int64 indices with negative and
// out-of-range values (clamped as the reference does), every axis, 1- to 8-byte elements, the
// typed single-element path (last axis, 4-byte elements) and the block path, 1 and 2 threads;
// runtime indices (an embedding's token ids) resolved at each dispatch, split by rows or by
// indices.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cppnn/webnn.h"
#include "src/backends/cpu/fast_kernel.h"
#include "tests/backends/run_util.h"

namespace cppnn {
namespace {

using testing::run_graph;
using testing::to_bytes;
using Shape = std::vector<uint32_t>;

size_t count_of(const Shape& s) {
  size_t n = 1;
  for (uint32_t d : s) n *= d;
  return n;
}

// Random bytes for a tensor of `type` and `shape` (any bit pattern is a valid input to gather).
std::vector<std::byte> random_bytes(MLOperandDataType type, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::byte> b(count_of(shape) * data_type_bits(type) / 8);
  for (std::byte& x : b) x = std::byte(rng() & 0xFF);
  return b;
}

// Index values for a dimension of `d`: in range, negative, and beyond both ends.
template <class I>
std::vector<I> indices_for(uint32_t d, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<I> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t r = int64_t(rng() % (3 * d + 4)) - int64_t(d) - 2;  // −d−2 .. 2d+1
    v[i] = static_cast<I>(std::is_unsigned_v<I> && r < 0 ? -r : r);
  }
  return v;
}

// gather(input of `type`/`shape`, constant or runtime indices of `index_shape`) along `axis`.
template <class I>
std::vector<std::byte> run_gather(MLContext& context, MLOperandDataType type, const Shape& shape,
                                  uint32_t axis, MLOperandDataType index_type,
                                  const Shape& index_shape, const std::vector<I>& indices,
                                  bool constant_indices, const std::vector<std::byte>& x) {
  MLGraphBuilder b(context);
  MLOperand in = b.input("x", {type, shape});
  MLOperand idx = constant_indices ? b.constant({index_type, index_shape}, to_bytes(indices))
                                   : b.input("i", {index_type, index_shape});
  MLGatherOptions o;
  o.axis = axis;
  MLGraph g = b.build({{"y", b.gather(in, idx, o)}});
  std::map<std::string, std::vector<std::byte>> inputs{{"x", x}};
  if (!constant_indices) inputs.emplace("i", to_bytes(indices));
  return run_graph(context, g, inputs).at("y");
}

template <class I>
void expect_gather_matches(MLOperandDataType type, const Shape& shape, uint32_t axis,
                           MLOperandDataType index_type, const Shape& index_shape, unsigned threads,
                           bool constant_indices = true) {
  SCOPED_TRACE("axis " + std::to_string(axis) + ", rank " + std::to_string(shape.size()) +
               ", threads " + std::to_string(threads));
  const std::vector<I> indices = indices_for<I>(shape[axis], count_of(index_shape), axis + 7);
  const std::vector<std::byte> x = random_bytes(type, shape, 3);
  MLContext cpu = MLContext::create({.backend = "cpu", .numThreads = threads});
  MLContext ref = testing::ref_context();
  EXPECT_EQ(
      run_gather(cpu, type, shape, axis, index_type, index_shape, indices, constant_indices, x),
      run_gather(ref, type, shape, axis, index_type, index_shape, indices, constant_indices, x));
}

TEST(CpuGather, EveryAxisAndElementWidthMatchesTheReference) {
  using enum MLOperandDataType;
  for (MLOperandDataType type : {kFloat32, kFloat16, kInt8, kUint8, kInt32, kInt64, kUint64})
    for (uint32_t axis = 0; axis < 4; ++axis)
      for (unsigned threads : {1u, 2u})
        expect_gather_matches<int32_t>(type, {3, 5, 4, 7}, axis, kInt32, {2, 3}, threads);
}

TEST(CpuGather, IndexTypesAndOutOfRangeIndicesMatchTheReference) {
  using enum MLOperandDataType;
  expect_gather_matches<int32_t>(kFloat32, {6, 9}, 1, kInt32, {11}, 2);
  expect_gather_matches<uint32_t>(kFloat32, {6, 9}, 1, kUint32, {11}, 2);
  expect_gather_matches<int64_t>(kFloat32, {6, 9}, 0, kInt64, {4, 2}, 2);
  expect_gather_matches<int64_t>(kFloat32, {6, 9}, 1, kInt64, {}, 1);  // a scalar index
}

TEST(CpuGather, NearestResizeRowAndColumnGathersMatchTheReference) {
  using enum MLOperandDataType;
  // The importer's nearest-neighbour upsampling: rows, then columns, of [1, 24, 40, 40].
  expect_gather_matches<int64_t>(kFloat32, {1, 24, 40, 40}, 2, kInt64, {160}, 2);
  expect_gather_matches<int64_t>(kFloat32, {1, 24, 160, 40}, 3, kInt64, {160}, 2);
}

TEST(CpuGather, RuntimeIndicesMatchTheReference) {
  using enum MLOperandDataType;
  for (unsigned threads : {1u, 2u}) {
    expect_gather_matches<int32_t>(kFloat32, {4, 5}, 1, kInt32, {6}, threads, false);
    expect_gather_matches<uint32_t>(kFloat32, {3, 5, 4, 7}, 2, kUint32, {2, 3}, threads, false);
    expect_gather_matches<int64_t>(kInt8, {6, 9}, 0, kInt64, {4, 2}, threads, false);
    // An embedding: a [vocabulary, width] table and many token ids (split by indices).
    expect_gather_matches<int64_t>(kFloat32, {500, 96}, 0, kInt64, {1, 300}, threads, false);
  }
  MLContext ref = testing::ref_context();
  MLGraphBuilder b(ref);
  MLOperand x = b.input("x", {kFloat32, {4, 5}});
  MLOperand i = b.input("i", {kInt32, {3}});
  MLGraph g = b.build({{"y", b.gather(x, i)}});
  cpu::CompileContext cc{g.graph(), std::make_shared<cpu::ThreadPool>(1)};
  EXPECT_TRUE(cpu::compile_fast_gather(cc, g.graph().operations.at(0)).has_value());
}

}  // namespace
}  // namespace cppnn
