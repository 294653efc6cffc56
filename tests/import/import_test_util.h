// Shared pieces of the ONNX importer tests: the backends to run on, running an imported model,
// and attribute setters for OnnxModelBuilder nodes.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "cppnn/onnx_import.h"
#include "cppnn/webnn.h"
#include "src/backends/selection.h"
#include "tests/backends/run_util.h"
#include "tests/import/onnx_model_builder.h"

namespace cppnn::testing {

using Bytes = std::map<std::string, std::vector<std::byte>>;

// The backends to check: reference, and ort when compiled in.
inline std::vector<std::string> import_backends() {
  std::vector<std::string> out{"reference"};
  const auto names = compiled_backends();
  if (std::find(names.begin(), names.end(), "ort") != names.end()) out.push_back("ort");
  return out;
}

// Imports `m` on `backend`, runs it with `inputs` and returns the bytes of output "y".
inline std::vector<std::byte> run_y_bytes(const OnnxModelBuilder& m, const std::string& backend,
                                          const Bytes& inputs) {
  MLContext context = MLContext::create({.backend = backend});
  MLGraphBuilder builder(context);
  const std::string bytes = m.bytes();
  OnnxImportResult r =
      import_onnx_bytes(builder, std::as_bytes(std::span(bytes.data(), bytes.size())));
  MLGraph graph = builder.build(r.outputs);
  return run_graph(context, graph, inputs).at("y");
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

}  // namespace cppnn::testing
