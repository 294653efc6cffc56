#include "tools/cppnn/commands.h"

namespace cppnn::tool {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"wpt", "run a WPT WebNN corpus suite (validation) against the known failures", run_wpt},
  };
  return kCommands;
}

}  // namespace cppnn::tool
