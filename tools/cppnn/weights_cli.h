// Flag parsing and error reporting shared by the weight subcommands of the cppnn tool
// (pack-weights, unpack-weights, create-manifest, extract-weights, inline-weights;
// webnn-graph-format.md §8): their flag tables are in cli_specs.cpp, parsed by cli_args.h
// (`--flag VALUE` or `--flag=VALUE`, `--help`). Usage errors exit 2, bad input 1.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace cppnn::tool {

// The flags of one invocation, by name (absent optional flags hold their default).
using Flags = std::map<std::string, std::string>;

// Parses `args` against the flag table of `command`. Returns an exit code when the command
// should stop: 0 after `--help` (prints `help`), 2 for a usage error (an unknown or repeated
// flag, a missing value or a missing required flag; the message and a hint go to stderr).
std::optional<int> parse_flags(const std::string& command, const std::vector<std::string>& args,
                               const std::string& help, Flags& out);

// Prints `Error: <message>` to stderr and returns 1 (2 for an internal error).
int report_error(const ErrorInfo& error);

// The regular files directly inside `dir` (none when it does not exist), for check_outputs.
std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir);

}  // namespace cppnn::tool
