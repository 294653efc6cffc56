// The parts of the cppnn._cppnn module, one binder per concern (module.cpp calls them in order).
#pragma once

#include <nanobind/nanobind.h>

#include "cppnn/graph_builder.h"

namespace cppnn::py {

// cppnn.Error and its spec-named subclasses, and the C++ -> Python exception translator.
void bind_errors(nanobind::module_& m);
// MLContext, MLTensor, create_context(), available_backends().
void bind_context(nanobind::module_& m);
// MLOperand, MLGraphBuilder (input, constant, build) and MLGraph.
void bind_builder(nanobind::module_& m);
// The 95 operations of ops.def as MLGraphBuilder methods (spec and snake_case names).
void bind_ops(nanobind::class_<MLGraphBuilder>& builder);
// load_graph(), save_graph(), convert_onnx().
void bind_files(nanobind::module_& m);
// LanguageModel, LanguageModelInfo (llm.cpp), then bind_generator.
void bind_llm(nanobind::module_& m);
// Generator, GenerationStream and GenerationResult (llm_generator.cpp).
void bind_generator(nanobind::module_& m);

}  // namespace cppnn::py
