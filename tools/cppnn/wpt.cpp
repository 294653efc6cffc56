// cppnn wpt: placeholder entry until the runner lands (replaced by wpt_validation.cpp).
#include <iostream>

#include "tools/cppnn/commands.h"

namespace cppnn::tool {
int run_wpt(const std::vector<std::string>&) {
  std::cerr << "PENDING\n";
  return 2;
}
}  // namespace cppnn::tool
