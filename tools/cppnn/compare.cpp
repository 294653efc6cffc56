// `cppnn compare`: the command line (flags, help, inputs) of the per-node comparison; the two
// modes live in compare_model.cpp (ONNX Runtime on the original model) and
// compare_backends.cpp (two cppnn backends).
#include "tools/cppnn/compare.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <set>

#include "cppnn/errors.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/convert_onnx.h"
#include "tools/cppnn/graph_source.h"
#include "tools/cppnn/npy.h"
#include "tools/cppnn/tensor_values.h"

namespace cppnn::tool {
namespace {

constexpr char kHelp[] =
    "usage: cppnn compare MODEL.onnx [--backend NAME] [--atol X] [--rtol X]\n"
    "                     [--input NAME=FILE.npy]... [--override-dim NAME=VALUE]...\n"
    "                     [--input-shape NAME=D0,D1,...]... [--input-value NAME=V0,V1,...]...\n"
    "                     [--seed N] [--report FILE.json] [--all] [--perturb NODE=EPS]\n"
    "       cppnn compare GRAPH --backend A --against B [--atol X] [--rtol X]\n"
    "                     [--input NAME=FILE.npy]... [--weights FILE] [--weights-manifest FILE]\n"
    "                     [--override-dim NAME=VALUE]... [--seed N] [--report FILE.json] [--all]\n"
    "\n"
    "Finds where a converted model starts to differ (what Polygraphy does for TensorRT).\n"
    "MODEL.onnx: converts MODEL with the ONNX importer, runs it on the backend (default: the\n"
    "default backend) with every node output exposed as a graph output, runs the original\n"
    "MODEL in ONNX Runtime (graph optimizations off) with every node output exposed too, and\n"
    "compares each ONNX node's outputs in topological order. Values folded to constants at\n"
    "conversion are compared on the host (marked folded); values without a WebNN operand of\n"
    "their own are listed as not compared, with the reason.\n"
    "GRAPH --against B: builds GRAPH (.webnn, GraphJson or .onnx) on backends A and B with every\n"
    "operation output exposed and compares each operation's outputs.\n"
    "An element passes when |got - reference| <= atol + rtol * |reference| (NumPy's allclose;\n"
    "NaN matches only NaN). Each row shows the op type, the node, the output, the max absolute\n"
    "and the max relative error; the first node whose output is outside the tolerance (its\n"
    "inputs still within) is named as the first divergence. Exposing every value may keep a\n"
    "backend from fusing operations; the normal conversion and run are unchanged.\n"
    "Exit 0 when every compared value is within tolerance, 1 when one is not (the first\n"
    "diverging node named on the last lines) or on bad input, 2 on usage errors, 77 without\n"
    "ONNX Runtime (MODEL.onnx without --against).\n"
    "  --atol X, --rtol X     the tolerance; the defaults depend on the value's type: float32\n"
    "                         atol 1e-4 rtol 1e-3, float16 atol 1e-3 rtol 1e-2, integers exact\n"
    "  --input NAME=FILE.npy  the value of input NAME (ONNX or graph name); the others are the\n"
    "                         generated values of `cppnn run --inputs random --seed N`\n"
    "  --seed N               the seed of the generated inputs (default 1)\n"
    "  --override-dim, --input-shape, --input-value   as for convert-onnx\n"
    "  --report FILE.json     write every row, the summary and the first divergence as JSON\n"
    "  --all                  print every row (default: the diverging and uncompared values)\n"
    "  --perturb NODE=EPS     a debugging aid: adds EPS to the first output of ONNX node NODE\n"
    "                         (its name, or OpType#INDEX when unnamed) in the converted model\n"
    "                         only, to check that compare names NODE as the first divergence\n"
    "                         (float outputs only)\n";

std::pair<std::string, std::string> split_eq(const std::string& flag, const std::string& s,
                                             const char* expected) {
  const size_t eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw UsageError("--" + flag + " " + s + ": expected " + expected);
  return {s.substr(0, eq), s.substr(eq + 1)};
}

}  // namespace

namespace compare {

std::map<std::string, std::vector<std::byte>> input_values(
    const std::map<std::string, MLOperandDescriptor>& graph_inputs, const Options& o,
    const std::map<std::string, std::string>& aliases) {
  std::map<std::string, std::string> files;  // graph input name -> .npy file
  for (const auto& [user_name, file] : o.input_files) {
    std::string name = user_name;
    if (auto a = aliases.find(user_name); a != aliases.end()) name = a->second;
    if (!graph_inputs.count(name)) {
      std::string known;
      for (const auto& [n, d] : graph_inputs) known += (known.empty() ? "" : ", ") + n;
      throw DataError("--input " + user_name + "=" + file + ": " + o.path + " has no input '" +
                      user_name + "' (inputs: " + (known.empty() ? "none" : known) + ")");
    }
    if (!files.emplace(name, file).second)
      throw DataError("--input: input '" + user_name + "' given twice");
  }
  std::map<std::string, std::vector<std::byte>> out;
  uint64_t salt = 0;
  for (const auto& [name, desc] : graph_inputs) {
    out[name] = generated_bytes(desc, true, o.seed, salt++);
    if (auto it = files.find(name); it != files.end()) {
      auto npy = read_npy_file(it->second);
      if (!npy) throw_error(npy.error().kind, npy.error().message);
      if (npy->dataType != desc.dataType || npy->shape != desc.shape)
        throw DataError("input '" + name + "': " + it->second + " holds " +
                        to_string(MLOperandDescriptor{npy->dataType, npy->shape}) +
                        ", the graph expects " + to_string(desc));
      out[name] = std::move(npy->data);
    }
  }
  return out;
}

}  // namespace compare

int run_compare(const std::vector<std::string>& args) {
  const CommandSpec& spec = find_command_spec("compare");
  compare::Options o;
  if (auto rc = parse_command_line(spec, args, kHelp, o.args)) return *rc;
  const ParsedArgs& p = o.args;
  o.path = p.path;
  o.backend = p.get(spec, "backend");
  o.against = p.get(spec, "against");
  o.all = p.has("all");
  try {
    if (auto v = p.value("atol")) o.atol = parse_number_flag("atol", *v, 0);
    if (auto v = p.value("rtol")) o.rtol = parse_number_flag("rtol", *v, 0);
    if (auto v = p.value("seed")) o.seed = parse_unsigned_flag("seed", *v);
    if (auto v = p.value("report")) o.report = *v;
    for (const std::string& s : p.all("input"))
      o.input_files.push_back(split_eq("input", s, "NAME=FILE.npy"));
    if (auto v = p.value("perturb")) {
      auto [node, eps] = split_eq("perturb", *v, "NODE=EPS");
      char* end = nullptr;
      const double x = std::strtod(eps.c_str(), &end);
      if (end != eps.c_str() + eps.size() || !std::isfinite(x))
        throw UsageError("--perturb " + *v + ": EPS is not a finite number");
      o.perturb = {node, x};
    }
    for (const std::string& s : p.all("override-dim")) {
      auto [name, value] = convert_onnx::parse_override_dim(s);
      o.import.freeDimensions[name] = value;
    }
    for (const std::string& s : p.all("input-shape")) {
      auto [name, shape] = convert_onnx::parse_input_shape(s);
      o.import.inputShapes[name] = std::move(shape);
    }
    for (const std::string& s : p.all("input-value")) {
      auto [name, value] = convert_onnx::parse_input_value(s);
      o.import.inputValues[name] = std::move(value);
    }
    const bool onnx = is_onnx_path(o.path);
    if (!o.against.empty() && o.perturb)
      throw UsageError("--perturb applies to MODEL.onnx against ONNX Runtime, not --against");
    if (o.against.empty() && !onnx)
      throw UsageError(o.path + ": a graph that is not ONNX needs --against BACKEND");
    if (!o.against.empty() && o.backend.empty())
      throw UsageError("--against needs --backend (the backend compared against it)");
    if ((!onnx || !o.against.empty()) &&
        (!o.import.inputShapes.empty() || !o.import.inputValues.empty()))
      throw UsageError("--input-shape and --input-value apply to MODEL.onnx without --against");
  } catch (const UsageError& e) {
    return report_usage_error("compare", e.what());
  } catch (const convert_onnx::ArgumentError& e) {
    return report_usage_error("compare", e.shown());
  }
  try {
    return o.against.empty() ? compare::compare_onnx_model(o) : compare::compare_backends(o);
  } catch (const UsageError& e) {
    return report_usage_error("compare", e.what());
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace cppnn::tool
