// Shared pieces of the cppnn subcommands: reading the files they are given (through
// src/core/input_file.h: regular files only, never blocking, bounded), checking what they write
// against what they read, and reporting errors with the tool's exit codes (cli_args.h: 0 success,
// 1 bad input or a failed check, 2 usage or internal error). Errors print `Error: <message>`.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/errors.h"
#include "src/formats/graph_doc.h"
#include "src/formats/graph_io.h"
#include "tools/cppnn/cli_args.h"

namespace cppnn::tool {

// The parsed command line of a subcommand (cli_args.h).
using GraphArgs = ParsedArgs;

// The values of a repeatable `--flag` in order.
std::vector<std::string> all_values(const GraphArgs& a, const std::string& name);

// Reads a whole file (regular files only, at most `limit` bytes); a DataError naming the path.
Result<std::string> read_file(const std::filesystem::path& path,
                              uint64_t limit = uint64_t{2} << 30);

// Reads a graph file (.webnn text or GraphJson): the format is detected from the first bytes
// (webnn-graph-format.md §8: `webnn_graph` or `{` after whitespace and `#` comments) before the
// rest is read, so that a device, a huge file or a binary never gets read whole. `want` limits
// the accepted encodings (parse: text only, serialize: JSON only). DataError naming the path.
Result<std::string> read_graph_file(const std::filesystem::path& path,
                                    std::optional<formats::DocEncoding> want = std::nullopt);

// A DataError when one of `outputs` is one of `inputs` (the same file through any path or link)
// or when two outputs name the same file: no subcommand overwrites what it reads.
Status check_outputs(const std::vector<std::filesystem::path>& outputs,
                     const std::vector<std::filesystem::path>& inputs);

// Prints `Error: <message>` and returns 1 (DataError/TypeError...) or 2 (UnknownError).
int report(const ErrorInfo& error);
// `error` with `<file>: ` in front, unless its message names the file already: every error
// about a file names it. Inline: emit-js's document loader, unit-tested alone, uses it too.
inline ErrorInfo in_file(ErrorInfo error, const std::string& file) {
  if (error.message.find(file) == std::string::npos) error.message = file + ": " + error.message;
  return error;
}
// `error` with ` (reading A, B)` after it, unless its message names one of `files` already.
ErrorInfo reading(ErrorInfo error, const std::vector<std::string>& files);
// Prints each warning as `warning: <message>` on stderr.
void print_warnings(const formats::Warnings& warnings);

// Throws the error of a failed Result/Status as its cppnn exception.
template <class R>
void throw_if_error(const R& r) {
  if (!r) throw_error(r.error().kind, r.error().message);
}

// Runs a subcommand's body and maps what it throws to the exit codes: UsageError -> 2 (with the
// help hint), cppnn::Error -> 1 (2 for UnknownError), anything else -> 2 ("internal error").
int run_command(const std::string& command, const std::function<int()>& body);

}  // namespace cppnn::tool
