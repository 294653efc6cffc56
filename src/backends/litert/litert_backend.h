// The LiteRT backend: build() converts the graph to a TFLite model (src/export/tflite) and
// compiles it once on LiteRT (libLiteRt.so of ai-edge-litert 2.3.0, CPU: XNNPACK with LiteRT's
// builtin kernels for the rest, numThreads honoured); dispatch binds the tensors' host memory as
// LiteRT tensor buffers (cached per pointer, no copies) and runs it.
#pragma once

#include <memory>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

std::unique_ptr<Backend> make_litert_backend(const MLContextOptions& options);

}  // namespace cppnn
