// Shared pieces of the graph-file subcommands (validate, parse, serialize, fmt;
// webnn-graph-format.md §8): argument handling, reading the file, reporting. Errors print
// `Error: <message>` on stderr; exit codes 0 ok, 1 bad input or usage, 2 internal error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/formats/graph_doc.h"

namespace cppnn::tool {

// The parsed command line of a graph subcommand: one positional PATH plus known flags.
struct GraphArgs {
  std::string path;
  std::vector<std::string> switches;                        // given boolean flags (without "--")
  std::vector<std::pair<std::string, std::string>> values;  // given `--flag VALUE` flags
  bool has(const std::string& s) const;
  std::optional<std::string> value(const std::string& name) const;
};

// Parses `args`: `--help`/`-h` prints `help` and returns 0; an unknown flag, a missing value or
// a missing/extra PATH prints the usage error and returns 1; otherwise nullopt.
std::optional<int> parse_graph_args(const std::string& command,
                                    const std::vector<std::string>& args,
                                    const std::vector<std::string>& switches,
                                    const std::vector<std::string>& value_flags,
                                    const std::string& help, GraphArgs& out);

// Reads a whole file; a DataError naming the path when it cannot.
Result<std::string> read_file(const std::string& path);

// Prints `Error: <message>` and returns 1 (DataError/TypeError...) or 2 (UnknownError).
int report(const ErrorInfo& error);
// Prints each warning as `warning: <message>` on stderr.
void print_warnings(const formats::Warnings& warnings);

}  // namespace cppnn::tool
