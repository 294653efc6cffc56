// `convert-onnx --keep-dynamic NAME=MAX` (docs/dynamic-dimensions.md): an ONNX model converted with
// some free dimensions kept dynamic. The importer folds shape computations on the host, so the
// relation of each size to a dynamic dimension is found by differential import: the model is
// imported at the maximum and at two more sizes of each kept dimension (the other ones at their
// maximum); the graphs must agree in structure, and every integer attribute element that differs
// must be an affine function `scale * NAME + offset` of one dimension (checked at the third size),
// which becomes a symbolic size. Constants that differ in extent (folded Range, ConstantOfShape,
// position embeddings gathered by folded position ids) must be the leading block of the one at
// the maximum: they are kept at the maximum and sliced to the symbolic size. Anything else (a
// constant whose values change, a float attribute that changes, a different structure) is a
// NotSupportedError naming the operation or constant. The result is checked by re-deriving it at
// each imported size (specialize_graph) and comparing the output descriptors.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "cppnn/graph_model.h"
#include "cppnn/onnx_import.h"

namespace cppnn::onnx_import {

// onnx_to_graph() with the free dimensions of `keep` (name -> maximum, at least 4) dynamic.
Graph onnx_to_dynamic_graph(const std::filesystem::path& model, const OnnxImportOptions& options,
                            const std::map<std::string, uint32_t>& keep,
                            OnnxImportResult* result = nullptr);

}  // namespace cppnn::onnx_import
