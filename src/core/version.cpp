#include "cppnn/version.h"

namespace cppnn {
const char* version() noexcept {
  return CPPNN_VERSION_STRING;
}
}  // namespace cppnn
