// The synchronous checks of the WebNN calls whose work runs on the context's timeline (build,
// dispatch, writeTensor, readTensor), for bindings that run that work off their caller's thread
// (the Node.js addon): each throws exactly what the full call would throw before its timeline
// steps, and runs nothing. They read only state that other threads do not change (descriptors,
// ownership) or change atomically (destroyed, lost), so they may run while the context's timeline
// is busy on another thread.
#pragma once

#include <cstddef>
#include <optional>

#include "cppnn/context.h"
#include "cppnn/graph.h"
#include "cppnn/graph_builder.h"
#include "cppnn/tensor.h"

#pragma GCC visibility push(default)  // public API: exported (the library hides the rest)

namespace cppnn {

// build(outputs)'s checks before [[hasBuilt]] is set (§3.8): InvalidStateError when the builder
// cannot build; TypeError for no outputs, a bad output name, an operand of another builder, an
// output that is an input or constant, or two reachable inputs with one name.
void check_build(const MLGraphBuilder& builder, const MLNamedOperands& outputs);

// dispatch(graph, inputs, outputs)'s validation (§4), without running the graph.
void check_dispatch(const MLContext& context, const MLGraph& graph, const MLNamedTensors& inputs,
                    const MLNamedTensors& outputs);

// writeTensor(tensor, bytes)'s checks for a buffer of `byte_length` bytes (TypeError).
void check_write_tensor(const MLContext& context, const MLTensor& tensor, size_t byte_length);

// readTensor(tensor[, buffer])'s synchronous checks (TypeError), with the byte length of the
// caller's buffer when there is one.
void check_read_tensor(const MLContext& context, const MLTensor& tensor,
                       std::optional<size_t> byte_length = std::nullopt);

}  // namespace cppnn

#pragma GCC visibility pop
