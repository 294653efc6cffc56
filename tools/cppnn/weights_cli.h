// Flag parsing and error reporting shared by the weight subcommands of the cppnn tool
// (pack-weights, unpack-weights, create-manifest, extract-weights, inline-weights;
// webnn-graph-format.md §8): `--flag VALUE` or `--flag=VALUE`, `--help`; errors print
// `Error: <message>` on stderr and exit 1.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace cppnn::tool {

// One `--name VALUE` flag.
struct FlagSpec {
  std::string name;  // without the leading dashes
  bool required = true;
  std::string default_value;  // when not required
};

// The flags of one invocation, by name.
using Flags = std::map<std::string, std::string>;

// Parses `args` against `specs`. Returns an exit code when the command should stop: 0 after
// `--help` (prints `help`), 1 for bad usage (an unknown or repeated flag, a missing value or a
// missing required flag; the message and a hint go to stderr).
std::optional<int> parse_flags(const std::string& command, const std::vector<std::string>& args,
                               const std::vector<FlagSpec>& specs, const std::string& help,
                               Flags& out);

// Prints `Error: <message>` to stderr and returns 1.
int report_error(const ErrorInfo& error);

}  // namespace cppnn::tool
