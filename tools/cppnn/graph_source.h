// Loading a graph for the graph-running subcommands (info, run, dot, bench, convert): a .webnn
// text or GraphJson file with its weights sidecar (webnn-graph-format.md §7.1), or an ONNX model
// through the importer (free dimensions from --override-dim, like convert-onnx).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/graph_builder.h"
#include "cppnn/weights.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {

// The help text of the flags every graph-loading command accepts (cli_specs.cpp graph_source).
extern const char kGraphSourceHelp[];

// True when `path` names an ONNX model (extension .onnx, any case).
bool is_onnx_path(const std::string& path);

// --weights FILE / --weights-manifest FILE as given on the command line, relative to the
// current directory like every other path of the tool (the library's §7.1 rule joins a relative
// explicit path to the graph's folder): made absolute here.
std::optional<std::filesystem::path> cli_path(const GraphArgs& a, const std::string& flag);

// A graph recorded into a builder: its named outputs and the weights file it maps (kept open
// while the graph is used).
struct LoadedGraph {
  MLNamedOperands outputs;
  std::optional<ExternalWeights> weights;
  std::string name;                          // the graph's own name, else the file's stem
  std::vector<std::filesystem::path> files;  // every file read (for check_outputs)
};

// Records the graph file `a.path` into `builder` (warnings on stderr). Throws the library's
// errors (DataError for a bad file, TypeError naming the node for an invalid graph, ...) and
// UsageError for a bad flag value (--override-dim).
void load_graph_source(MLGraphBuilder& builder, const GraphArgs& a, LoadedGraph& out);

}  // namespace cppnn::tool
