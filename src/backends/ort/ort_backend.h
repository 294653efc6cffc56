// The ONNX Runtime backend: build() converts the graph to ONNX (src/export/onnx) and creates
// one ORT session; dispatch binds the tensors' memory as OrtValues (no copies) and runs it.
#pragma once

#include <memory>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

std::unique_ptr<Backend> make_ort_backend(const MLContextOptions& options);

}  // namespace cppnn
