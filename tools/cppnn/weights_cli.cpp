#include "tools/cppnn/weights_cli.h"

#include <iostream>

namespace cppnn::tool {

std::optional<int> parse_flags(const std::string& command, const std::vector<std::string>& args,
                               const std::vector<FlagSpec>& specs, const std::string& help,
                               Flags& out) {
  auto usage_error = [&](const std::string& message) {
    std::cerr << "cppnn " << command << ": " << message << " (see cppnn " << command
              << " --help)\n";
    return 1;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << help;
      return 0;
    }
    if (arg.rfind("--", 0) != 0) return usage_error("unexpected argument \"" + arg + "\"");
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    bool known = false;
    for (const FlagSpec& s : specs) known = known || s.name == name;
    if (!known) return usage_error("unknown option --" + name);
    if (!has_value) {
      if (i + 1 >= args.size()) return usage_error("--" + name + " needs a value");
      value = args[++i];
    }
    if (!out.emplace(name, value).second) return usage_error("--" + name + " is given twice");
  }
  for (const FlagSpec& s : specs) {
    if (out.count(s.name)) continue;
    if (s.required) return usage_error("--" + s.name + " is required");
    out.emplace(s.name, s.default_value);
  }
  return std::nullopt;
}

int report_error(const ErrorInfo& error) {
  std::cerr << "Error: " << error.message << "\n";
  return 1;
}

}  // namespace cppnn::tool
