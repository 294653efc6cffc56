#include "tools/cppnn/commands.h"

namespace cppnn::tool {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"wpt", "run the WPT WebNN test corpus (validation) and write a JSON report", run_wpt},
  };
  return kCommands;
}

}  // namespace cppnn::tool
