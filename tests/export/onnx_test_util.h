// Helpers for the ONNX lowering tests: read the emitted nodes and their attributes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace cppnn::testing {

// The op types of a graph's nodes, in order.
inline std::vector<std::string> op_types(const onnx::GraphProto& g) {
  std::vector<std::string> out;
  for (const auto& n : g.node()) out.push_back(n.op_type());
  return out;
}

// The attribute `name` of node `n` (fails the test when absent).
inline const onnx::AttributeProto& attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a;
  ADD_FAILURE() << n.op_type() << " has no attribute " << name;
  static const onnx::AttributeProto kNone;
  return kNone;
}

inline bool has_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return true;
  return false;
}

// The values of an INTS attribute.
inline std::vector<int64_t> ints(const onnx::AttributeProto& a) {
  return std::vector<int64_t>(a.ints().begin(), a.ints().end());
}

}  // namespace cppnn::testing
