// Shared argument handling and reporting of the graph-file subcommands.
#include "tools/cppnn/graph_cli.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace cppnn::tool {

bool GraphArgs::has(const std::string& s) const {
  for (const auto& x : switches)
    if (x == s) return true;
  return false;
}

std::optional<std::string> GraphArgs::value(const std::string& name) const {
  for (const auto& [k, v] : values)
    if (k == name) return v;
  return std::nullopt;
}

std::optional<int> parse_graph_args(const std::string& command,
                                    const std::vector<std::string>& args,
                                    const std::vector<std::string>& switches,
                                    const std::vector<std::string>& value_flags,
                                    const std::string& help, GraphArgs& out) {
  auto usage = [&](const std::string& m) {
    std::cerr << "Error: " << m << "\n(see cppnn " << command << " --help)\n";
    return 1;
  };
  bool have_path = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << help;
      return 0;
    }
    if (a.starts_with("--")) {
      std::string name = a.substr(2), value;
      const size_t eq = name.find('=');
      const bool inline_value = eq != std::string::npos;
      if (inline_value) {
        value = name.substr(eq + 1);
        name.resize(eq);
      }
      bool known = false;
      for (const auto& s : switches)
        if (s == name && !inline_value) {
          out.switches.push_back(name);
          known = true;
        }
      for (const auto& f : value_flags)
        if (f == name) {
          if (!inline_value) {
            if (i + 1 >= args.size()) return usage("--" + name + " needs a value");
            value = args[++i];
          }
          out.values.emplace_back(name, value);
          known = true;
        }
      if (!known) return usage("unknown option '" + a + "'");
      continue;
    }
    if (have_path) return usage("unexpected argument '" + a + "'");
    out.path = a;
    have_path = true;
  }
  if (!have_path) return usage("missing PATH");
  return std::nullopt;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return formats::data_error("failed to read `", path, "`: cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return formats::data_error("failed to read `", path, "`: read error");
  return ss.str();
}

int report(const ErrorInfo& error) {
  std::cerr << "Error: " << error.message << "\n";
  return error.kind == ErrorKind::kUnknownError ? 2 : 1;
}

void print_warnings(const formats::Warnings& warnings) {
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
}

}  // namespace cppnn::tool
