// The cppnn command-line tool: dispatches to one subcommand per file.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cppnn/version.h"
#include "src/core/atomic_file.h"
#include "tools/cppnn/cli_args.h"
#include "tools/cppnn/commands.h"

namespace {

void print_help(std::ostream& os) {
  os << "cppnn " << cppnn::version() << " - a C++ implementation of the W3C WebNN API\n\n"
     << "usage: cppnn <command> [options]\n\ncommands:\n";
  // The summaries line up after the longest command name.
  size_t width = 0;
  for (const auto& c : cppnn::tool::commands()) width = std::max(width, c.name.size());
  for (const auto& c : cppnn::tool::commands())
    os << "  " << c.name << std::string(width + 2 - c.name.size(), ' ') << c.summary << "\n";
  os << "\n  cppnn <command> --help   help for one command (also: cppnn help <command>)\n"
     << "  cppnn --version          print the version\n";
}

}  // namespace

int main(int argc, char** argv) {
  // SIGINT/SIGTERM/SIGHUP remove the temporary files of unfinished writes (AtomicFile).
  cppnn::remove_temporaries_on_signals();
  std::vector<std::string> args(argv + 1, argv + argc);
  // `cppnn help CMD` is `cppnn CMD --help`.
  if (args.size() >= 2 && args[0] == "help") args = {args[1], "--help"};
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help(args.empty() ? std::cerr : std::cout);  // no command: a usage error
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << "cppnn " << cppnn::version() << "\n";
    return 0;
  }
  for (const auto& c : cppnn::tool::commands()) {
    if (c.name == args[0]) {
      // Exit statuses (cli_args.h): 0 success, 1 bad input or a failed check, 2 usage or
      // internal error; the commands report their own errors, this is the last resort.
      try {
        return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
      } catch (const cppnn::tool::UsageError& e) {
        return cppnn::tool::report_usage_error(c.name, e.what());
      } catch (const std::exception& e) {
        std::cerr << "Error: cppnn " << c.name << ": internal error: " << e.what() << "\n";
        return cppnn::tool::kExitUsage;
      }
    }
  }
  std::cerr << "Error: unknown command \"" << args[0] << "\" (see cppnn --help)\n";
  return 2;
}
