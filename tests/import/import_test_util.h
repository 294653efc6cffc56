// Shared pieces of the ONNX importer tests: the backends to run on, importing and running a model,
// ONNX element types, initializers, attribute setters for OnnxModelBuilder nodes, pseudo-random
// data and tolerant comparisons.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "src/backends/selection.h"
#include "tests/backends/run_util.h"
#include "tests/import/onnx_model_builder.h"

namespace cppnn::testing {

using Bytes = std::map<std::string, std::vector<std::byte>>;

// ONNX element types of the tests' inputs and initializers.
inline constexpr int32_t kFloat = onnx::TensorProto_DataType_FLOAT;
inline constexpr int32_t kInt8 = onnx::TensorProto_DataType_INT8;
inline constexpr int32_t kUint8 = onnx::TensorProto_DataType_UINT8;
inline constexpr int32_t kInt32 = onnx::TensorProto_DataType_INT32;
inline constexpr int32_t kInt64 = onnx::TensorProto_DataType_INT64;
inline constexpr int32_t kBool = onnx::TensorProto_DataType_BOOL;

// The backends to check: reference, and ort when compiled in.
inline std::vector<std::string> import_backends() {
  std::vector<std::string> out{"reference"};
  const auto names = compiled_backends();
  if (std::find(names.begin(), names.end(), "ort") != names.end()) out.push_back("ort");
  return out;
}

// An imported model with the context and builder it was imported into.
struct Imported {
  MLContext context;
  MLGraphBuilder builder;
  OnnxImportResult result;
  explicit Imported(const std::string& backend = "reference")
      : context(MLContext::create({.backend = backend})), builder(context) {}
};

// Imports `m` with options `o` on `backend`.
inline std::unique_ptr<Imported> import_model(const OnnxModelBuilder& m, const std::string& backend,
                                              const OnnxImportOptions& o = {}) {
  auto out = std::make_unique<Imported>(backend);
  const std::string bytes = m.bytes();
  out->result =
      import_onnx_bytes(out->builder, std::as_bytes(std::span(bytes.data(), bytes.size())), o);
  return out;
}

// Imports `m` with options `o` on the reference backend.
inline std::unique_ptr<Imported> import_model(const OnnxModelBuilder& m,
                                              const OnnxImportOptions& o = {}) {
  return import_model(m, "reference", o);
}

// The message of the error importing `m` with options `o` throws, or "" when it imports.
inline std::string import_error(const OnnxModelBuilder& m, const OnnxImportOptions& o = {}) {
  try {
    import_model(m, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Imports `m` on `backend`, runs it with `inputs` and returns the bytes of output "y".
inline std::vector<std::byte> run_y_bytes(const OnnxModelBuilder& m, const std::string& backend,
                                          const Bytes& inputs) {
  auto im = import_model(m, backend);
  MLGraph graph = im->builder.build(im->result.outputs);
  return run_graph(im->context, graph, inputs).at("y");
}

// Imports `m` on `backend`, runs it with `inputs` and returns output "y" as floats.
inline std::vector<float> run_y_floats(const OnnxModelBuilder& m, const std::string& backend,
                                       const Bytes& inputs) {
  return as<float>(run_y_bytes(m, backend, inputs));
}

// An initializer of ONNX type `type` from raw little-endian elements.
template <class T>
void initializer(OnnxModelBuilder& m, const std::string& name, int32_t type,
                 const std::vector<T>& values, const std::vector<int64_t>& dims) {
  auto* t = m.model().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  t->set_raw_data(raw);
}

inline void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(v);
}

inline void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_STRING);
  a->set_s(v);
}

// n pseudo-random floats in [lo, hi) from `seed`; `steps` > 0 rounds them to that many levels
// (ties).
inline std::vector<float> pattern(size_t n, float lo, float hi, uint32_t seed, int steps = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    float u = static_cast<float>(seed >> 8) / static_cast<float>(1u << 24);
    if (steps > 0) u = std::floor(u * static_cast<float>(steps)) / static_cast<float>(steps);
    v[i] = lo + (hi - lo) * u;
  }
  return v;
}

// n pseudo-random floats in [-1, 1) from `seed`.
inline std::vector<float> pattern(size_t n, uint32_t seed = 7) {
  return pattern(n, -1.0f, 1.0f, seed);
}

// Expects every got[i] within abs + rel * |want[i]| of want[i]; `what` names the case.
inline void expect_near_all(const std::vector<float>& got, const std::vector<double>& want,
                            const std::string& what, double abs = 1e-5, double rel = 1e-4) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], abs + rel * std::fabs(want[i])) << what << " element " << i;
}

}  // namespace cppnn::testing
