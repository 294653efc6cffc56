// The reference CPU backend: portable, deterministic kernels for every op and data type; cppnn's
// embedded default and the oracle other backends are checked against.
#pragma once

#include <memory>

#include "src/backends/backend.h"

namespace cppnn {

std::unique_ptr<Backend> make_reference_backend();

}  // namespace cppnn
