// Loading a graph for the graph-running subcommands (info, run, dot, bench, convert): a .webnn
// text or GraphJson file with its weights sidecar (webnn-graph-format.md §7.1), or an ONNX model
// through the importer (free dimensions from --override-dim, like convert-onnx).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/graph_builder.h"
#include "cppnn/weights.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

// The flags every graph-loading command accepts (value flags, for parse_graph_args).
inline const std::vector<std::string> kGraphSourceFlags = {"weights", "weights-manifest",
                                                           "override-dim"};
// Their help text.
extern const char kGraphSourceHelp[];

// True when `path` names an ONNX model (extension .onnx, any case).
bool is_onnx_path(const std::string& path);

// A graph recorded into a builder: its named outputs and the weights file it maps (kept open
// while the graph is used).
struct LoadedGraph {
  MLNamedOperands outputs;
  std::optional<ExternalWeights> weights;
  std::string name;  // the graph's name (ONNX graph name, or the file's stem)
};

// Records the graph file `a.path` into `builder` (warnings on stderr). Throws the library's
// errors (DataError for a bad file, TypeError naming the node for an invalid graph, ...).
void load_graph_source(MLGraphBuilder& builder, const GraphArgs& a, LoadedGraph& out);

// parse_graph_args with the exit codes of the newer subcommands: --help 0, usage errors 2.
std::optional<int> parse_cli(const std::string& command, const std::vector<std::string>& args,
                             const std::vector<std::string>& switches,
                             const std::vector<std::string>& value_flags, const std::string& help,
                             GraphArgs& out);

// The values of a repeatable `--flag` in order.
std::vector<std::string> all_values(const GraphArgs& a, const std::string& name);

// Runs `body` and maps the library's exceptions to the tool's exit codes: `Error: <message>`
// and 1 for bad input, 2 for an UnknownError or another exception.
int run_reporting(const std::function<int()>& body);

}  // namespace cppnn::tool
