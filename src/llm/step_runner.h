// Running a step graph (step_interface.h): the tensors of one step size, bound to a generator's
// cache tensors once, and one step: the tokens, their positions and the mask written, the graph
// dispatched, the step's new keys and values copied into the cache at the write position
// (tensor to tensor, no host round trip), the logits read back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "src/llm/model_state.h"

namespace cppnn::llm {

// Checks that `graph` has the inputs and outputs `model.interface` names, and no other inputs,
// with the shapes the runtime relies on (a cache input holds `capacity` positions along its
// sequence axis, its present output has the same rank); a DataError naming `source` and the
// first mismatch otherwise.
void check_step_graph(const cppnn::detail::LanguageModelState& model, const MLGraph& graph,
                      const std::string& source);

// The cache tensors of a new conversation: one zero-filled tensor per interface.cache entry, of
// its `past` input's descriptor.
std::vector<MLTensor> make_cache(const cppnn::detail::LanguageModelState& model);

// The input descriptors of `graph` at `tokens` tokens per step.
std::map<std::string, MLOperandDescriptor> step_inputs(
    const cppnn::detail::LanguageModelState& model, const MLGraph& graph, uint32_t tokens);

// The tensors of `graph` at `tokens` tokens per step, bound with `cache`.
std::unique_ptr<cppnn::detail::StepTensors> make_step_tensors(
    const cppnn::detail::LanguageModelState& model, const MLGraph& graph, uint32_t tokens,
    const std::vector<MLTensor>& cache);

// Runs `tokens` (at most step.tokens; the rest of the step is padding) at cache positions
// [position, position + tokens.size()), copies their keys and values into `cache`, and returns
// the logits of every one of them ([n, vocabulary]; a graph without interface.logits_index, or
// one token) or of the last one only.
std::vector<float> run_step(const cppnn::detail::LanguageModelState& model,
                            cppnn::detail::StepTensors& step, const std::vector<MLTensor>& cache,
                            std::span<const int32_t> tokens, uint32_t position, bool all_logits);

}  // namespace cppnn::llm
