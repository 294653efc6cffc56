// Graph files and ONNX import: load_graph() (.webnn text or GraphJson, @weights from the sidecar
// found as the CLI finds it), save_graph() and convert_onnx().
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "bindings.h"
#include "convert.h"
#include "cppnn/errors.h"
#include "cppnn/formats.h"
#include "cppnn/graph.h"
#include "cppnn/onnx_import.h"
#include "cppnn/weights.h"

namespace nb = nanobind;
namespace fs = std::filesystem;

namespace cppnn::py {
namespace {

// The whole file as text; DataError when it cannot be read.
std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Emits each finding as a Python UserWarning.
void warn_all(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw nb::python_error();
}

nb::dict operand_dict(const MLNamedOperands& operands) {
  nb::dict out;
  for (const auto& [name, operand] : operands) out[name.c_str()] = nb::cast(operand);
  return out;
}

// load_graph(builder, path, weights=None, manifest=None) -> {name: MLOperand}.
nb::dict load_graph(MLGraphBuilder& builder, const fs::path& path,
                    const std::optional<fs::path>& weights,
                    const std::optional<fs::path>& manifest) {
  MLNamedOperands outputs;
  FormatWarnings warnings;
  {
    nb::gil_scoped_release release;
    const fs::path file = fs::absolute(path);
    const std::string content = read_file(file);
    std::optional<fs::path> w, m;
    if (weights) w = fs::absolute(*weights);
    if (manifest) m = fs::absolute(*manifest);
    std::optional<ExternalWeights> sidecar;  // opened on the first @weights constant
    WeightLoader loader = [&](const std::string& name, const std::string& ref,
                              const MLOperandDescriptor& declared) {
      if (!sidecar) sidecar = ExternalWeights::for_graph(file, w, m);
      return sidecar->load(ref, declared, name);
    };
    outputs = load_graph_file(builder, content, file.string(), loader, &warnings);
  }
  warn_all(warnings);
  return operand_dict(outputs);
}

// save_graph(graph, path, *, name, max_inline_bytes).
void save_graph(const MLGraph& graph, const fs::path& path, const std::string& name,
                uint64_t max_inline_bytes) {
  GraphFileOptions options;
  options.name = name;
  options.max_inline_bytes = max_inline_bytes;
  nb::gil_scoped_release release;
  save_graph_file(graph.graph(), path, options);
}

// The (onnx name, webnn name) pairs as an ordered dict.
nb::dict name_map(const std::vector<std::pair<std::string, std::string>>& names) {
  nb::dict out;
  for (const auto& [onnx, webnn] : names) out[onnx.c_str()] = webnn;
  return out;
}

// convert_onnx(builder, path, *, free_dimensions, input_shapes) -> dict.
nb::dict convert_onnx(
    MLGraphBuilder& builder, const fs::path& path,
    const std::optional<std::map<std::string, uint32_t>>& free_dimensions,
    const std::optional<std::map<std::string, std::vector<uint32_t>>>& input_shapes) {
  OnnxImportOptions options;
  if (free_dimensions) options.freeDimensions = *free_dimensions;
  if (input_shapes) options.inputShapes = *input_shapes;
  OnnxImportResult result;
  {
    nb::gil_scoped_release release;
    result = import_onnx(builder, path, options);
  }
  nb::dict out;
  out["graph_name"] = result.graphName;
  out["outputs"] = operand_dict(result.outputs);
  out["input_names"] = name_map(result.inputNames);
  out["output_names"] = name_map(result.outputNames);
  out["warnings"] = nb::cast(result.warnings);
  return out;
}

}  // namespace

void bind_files(nb::module_& m) {
  m.def("load_graph", &load_graph, nb::arg("builder"), nb::arg("path"),
        nb::arg("weights") = nb::none(), nb::arg("manifest") = nb::none(),
        "Records a .webnn text or GraphJson file into `builder`; returns its outputs by name. "
        "@weights constants come from `weights` (+ `manifest`), else the graph's sidecar.");
  m.def("save_graph", &save_graph, nb::arg("graph"), nb::arg("path"), nb::kw_only(),
        nb::arg("name") = "graph", nb::arg("max_inline_bytes") = 65536,
        "Writes a built graph as .webnn text (GraphJson for .json); constants over "
        "max_inline_bytes go to <stem>.safetensors beside it.");
  m.def("convert_onnx", &convert_onnx, nb::arg("builder"), nb::arg("path"), nb::kw_only(),
        nb::arg("free_dimensions") = nb::none(), nb::arg("input_shapes") = nb::none(),
        "Imports an ONNX model into `builder`: {graph_name, outputs, input_names, output_names, "
        "warnings}.");
}

}  // namespace cppnn::py
