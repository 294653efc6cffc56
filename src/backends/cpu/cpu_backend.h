// The cpu backend (cpu_backend.cpp): cppnn's own optimised CPU executor.
#pragma once

#include <memory>

#include "cppnn/context.h"
#include "src/backends/backend.h"

namespace cppnn {

std::unique_ptr<Backend> make_cpu_backend(const MLContextOptions& options);

}  // namespace cppnn
