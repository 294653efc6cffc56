// `cppnn dot GRAPH [-o OUT.dot] [--svg OUT.svg]`: the graph as Graphviz DOT: one node per input
// and per operation (its op name and label; the constants it reads summarised as a count and
// byte size), one per output, and edges labelled with the operand's type and shape. --svg
// renders it with Graphviz's `dot -Tsvg`.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "cppnn/webnn.h"
#include "src/core/atomic_file.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_source.h"
#include "tools/cppnn/tensor_values.h"

extern char** environ;

namespace cppnn::tool {
namespace {

namespace fs = std::filesystem;

const char kHelp[] =
    "usage: cppnn dot GRAPH [-o OUT.dot] [--svg OUT.svg]\n\n"
    "Writes the graph as Graphviz DOT (to stdout, or OUT.dot with -o/--output): inputs as\n"
    "ellipses, operations as boxes labelled with the operator and the node's label, the\n"
    "constants an operation reads summarised in its box (count and bytes), outputs as\n"
    "double octagons, edges labelled with the operand's data type and shape.\n"
    "--svg OUT.svg also renders it with `dot -Tsvg` (Graphviz must be on PATH; exit 1 if not).\n";

// A string as a DOT quoted ID.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string short_type(const MLOperandDescriptor& d) {
  static const char* kShort[] = {"f32", "f16", "i32", "u32", "i64", "u64", "i8", "u8", "i4", "u4"};
  std::string s = kShort[size_t(d.dataType)];
  s += "[";
  for (size_t i = 0; i < d.shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(d.shape[i]);
  }
  return s + "]";
}

std::string human_bytes(uint64_t b) {
  char buf[32];
  if (b < 1024)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  else if (b < (1u << 20))
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / (1 << 20));
  return buf;
}

std::string to_dot(const Graph& g, const std::string& name) {
  std::ostringstream os;
  os << "digraph " << quote(name) << " {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (OperandId id : g.inputs)
    os << "  in" << id.value << " [shape=ellipse, label="
       << quote(g.operand(id).name + "\n" + short_type(g.descriptor(id))) << "];\n";
  for (size_t i = 0; i < g.operations.size(); ++i) {
    const Operation& op = g.operations[i];
    std::string label(op_name(op.type));
    if (!op.label().empty()) label += "\n" + op.label();
    uint64_t constants = 0, bytes = 0;
    for (OperandId in : op.inputs) {
      if (in == kNoOperand || g.operand(in).kind != OperandKind::kConstant) continue;
      ++constants;
      bytes += g.constant(in).size();
    }
    if (constants)
      label += "\n+" + std::to_string(constants) +
               (constants == 1 ? " constant (" : " constants (") + human_bytes(bytes) + ")";
    os << "  op" << i << " [shape=box, style=rounded, label=" << quote(label) << "];\n";
  }
  // Edges from the producer of each non-constant operation input.
  auto source = [&](OperandId id) -> std::string {
    const OperandInfo& info = g.operand(id);
    return info.kind == OperandKind::kInput ? "in" + std::to_string(id.value)
                                            : "op" + std::to_string(info.producer);
  };
  for (size_t i = 0; i < g.operations.size(); ++i)
    for (OperandId in : g.operations[i].inputs) {
      if (in == kNoOperand || g.operand(in).kind == OperandKind::kConstant) continue;
      os << "  " << source(in) << " -> op" << i << " [label=" << quote(short_type(g.descriptor(in)))
         << "];\n";
    }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const auto& [out_name, id] = g.outputs[i];
    os << "  out" << i << " [shape=doubleoctagon, label=" << quote(out_name) << "];\n";
    if (g.operand(id).kind == OperandKind::kConstant) continue;
    os << "  " << source(id) << " -> out" << i << " [label=" << quote(short_type(g.descriptor(id)))
       << "];\n";
  }
  os << "}\n";
  return os.str();
}

// The path of `program` on PATH, empty when it is not there.
std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) dir = ".";
    const fs::path p = fs::path(dir) / program;
    if (::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p)) return p.string();
  }
  return {};
}

// Runs `dot -Tsvg -o svg dot_file`; an error message, empty on success.
std::string render_svg(const std::string& dot_program, const std::string& dot_file,
                       const std::string& svg) {
  std::vector<std::string> args = {dot_program, "-Tsvg", "-o", svg, dot_file};
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, dot_program.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    return "cannot start " + dot_program;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return "waiting for dot failed";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "dot -Tsvg failed";
  return {};
}

int dot(const GraphArgs& a) {
  MLContext context = MLContext::create({.backend = "reference"});
  MLGraphBuilder builder(context);
  LoadedGraph loaded;
  load_graph_source(builder, a, loaded);
  const std::string text = to_dot(builder.pruned_graph(loaded.outputs), loaded.name);
  const std::optional<std::string> out = a.value("output"), svg = a.value("svg");
  std::vector<fs::path> outputs;
  if (out) outputs.push_back(*out);
  if (svg) outputs.push_back(*svg);
  throw_if_error(check_outputs(outputs, loaded.files));
  std::string dot_program;
  if (svg) {
    dot_program = find_on_path("dot");
    if (dot_program.empty())
      throw DataError(
          "--svg needs Graphviz: no `dot` program on PATH (install graphviz, or write DOT with "
          "-o OUT.dot and render it elsewhere)");
  }
  if (out) {
    throw_if_error(write_file_atomically(*out, text));
  } else if (!svg) {
    std::cout << text;
  }
  if (svg) {
    // dot reads the DOT from a file: -o's, else a private temporary one beside the SVG (an
    // AtomicFile never committed: created O_EXCL under a unique name, so a planted file or
    // symlink is never followed, and removed when done or on SIGINT/SIGTERM). It writes the SVG
    // into another AtomicFile's temporary, which then replaces OUT.svg in one rename.
    std::optional<AtomicFile> temp;
    std::string dot_file = out.value_or("");
    if (!out) {
      auto t = AtomicFile::create(*svg + ".dot");
      throw_if_error(t);
      temp.emplace(std::move(*t));
      throw_if_error(temp->write(text));
      dot_file = temp->temporary().string();
    }
    auto image = AtomicFile::create(*svg);
    throw_if_error(image);
    const std::string error = render_svg(dot_program, dot_file, image->temporary().string());
    if (!error.empty()) throw DataError("--svg " + *svg + ": " + error);
    throw_if_error(image->commit());
  }
  return 0;
}

}  // namespace

int run_dot(const std::vector<std::string>& args) {
  GraphArgs a;
  if (auto rc = parse_command_line(
          find_command_spec("dot"), args,
          std::string(kHelp) + "\n" + kGraphSourceHelp +
              "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n",
          a))
    return *rc;
  return run_command("dot", [&] { return dot(a); });
}

}  // namespace cppnn::tool
