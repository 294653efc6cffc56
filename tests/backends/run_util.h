// Helpers for backend kernel tests: build a graph, run it on a context through the public tensor
// API, and read the outputs back as typed vectors.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cppnn/webnn.h"

namespace cppnn::testing {

// Bytes of a vector of elements.
template <class T>
std::vector<std::byte> to_bytes(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Runs `graph` on its context with `inputs` (name -> bytes) and returns every output's bytes.
inline std::map<std::string, std::vector<std::byte>> run_graph(
    MLContext& context, const MLGraph& graph,
    const std::map<std::string, std::vector<std::byte>>& inputs) {
  MLNamedTensors in, out;
  for (const auto& [name, desc] : graph.inputs()) {
    MLTensor t = context.createTensor(MLTensorDescriptor::of(desc, false, true));
    context.writeTensor(t, inputs.at(name));
    in.emplace(name, t);
  }
  for (const auto& [name, desc] : graph.outputs())
    out.emplace(name, context.createTensor(MLTensorDescriptor::of(desc, true, false)));
  context.dispatch(graph, in, out);
  std::map<std::string, std::vector<std::byte>> result;
  for (const auto& [name, t] : out) result.emplace(name, context.readTensor(t));
  return result;
}

// A context on the reference backend.
inline MLContext ref_context() {
  return MLContext::create({.backend = "reference"});
}

// Float16 bits of each value (round to nearest even).
inline std::vector<uint16_t> half_bits(const std::vector<float>& v) {
  std::vector<uint16_t> out;
  for (float f : v) out.push_back(float_to_half_bits(f));
  return out;
}

// Reinterprets bytes as elements of T.
template <class T>
std::vector<T> as(const std::vector<std::byte>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace cppnn::testing
