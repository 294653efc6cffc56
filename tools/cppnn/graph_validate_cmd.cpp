// `cppnn validate PATH [--weights-manifest M] [--strict]` (webnn-graph-format.md §8): the
// structural checks of §6.1 on a text or JSON graph (auto-detected), then §6.2 against a v1
// manifest when given. `--strict` (cppnn) also records the graph through MLGraphBuilder on the
// reference backend, with zero-filled external weights, so every op is validated as an API call.
// Prints `OK` on stderr.
#include <iostream>

#include "cppnn/context.h"
#include "cppnn/errors.h"
#include "cppnn/graph_builder.h"
#include "src/formats/graph_convert.h"
#include "src/formats/graph_io.h"
#include "src/formats/graph_validate.h"
#include "src/formats/manifest_check.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"

namespace cppnn::tool {
namespace {

// External weights as zeros of the declared size (--strict checks shapes, not data).
class ZeroWeights : public formats::WeightsSource {
 public:
  Result<ConstantData> load(const std::string&, const std::string&,
                            const MLOperandDescriptor& d) override {
    return ConstantData::owned(std::vector<std::byte>(byte_length(d)));
  }
};

Status strict_check(const formats::GraphDoc& doc, const std::string& path) {
  try {
    MLContextOptions options;
    options.backend = "reference";
    MLContext context = MLContext::create(options);
    MLGraphBuilder builder(context);
    ZeroWeights zeros;
    auto outputs = formats::record_graph_doc(doc, builder, &zeros, path);
    if (!outputs) return outputs.error();
    builder.build(*outputs);
  } catch (const Error& e) {
    return ErrorInfo{e.kind(), e.what()};
  }
  return Ok{};
}

}  // namespace

int run_validate(const std::vector<std::string>& args) {
  static const char kHelp[] =
      "usage: cppnn validate PATH [--weights-manifest M] [--strict]\n\n"
      "Checks a .webnn text or GraphJson graph (auto-detected; a leading # comment is fine):\n"
      "format and version, non-empty outputs, unique node ids, references defined before use\n"
      "(webnn-graph-format.md §6.1). --weights-manifest M also checks every @weights\n"
      "declaration against the v1 manifest M (§6.2). --strict also builds the graph through\n"
      "MLGraphBuilder (reference backend, zero weights), validating every op like an API call.\n"
      "Prints OK on stderr.\n"
      "Exit status: 0 valid, 1 invalid or bad input, 2 usage or internal error.\n";
  GraphArgs a;
  if (auto rc = parse_command_line(find_command_spec("validate"), args, kHelp, a)) return *rc;
  auto content = read_graph_file(a.path);
  if (!content) return report(content.error());
  formats::Warnings warnings;
  auto doc = formats::read_graph_doc(*content, a.path, &warnings);
  print_warnings(warnings);
  if (!doc) return report(in_file(doc.error(), a.path));
  if (Status s = formats::validate_graph_doc(*doc); !s) return report(in_file(s.error(), a.path));
  if (auto m = a.value("weights-manifest")) {
    auto manifest = formats::read_manifest_file(*m, true);
    if (!manifest) return report(manifest.error());
    std::vector<formats::DeclaredWeight> declared;
    for (const auto& [name, k] : doc->consts)
      if (k.init.kind == formats::DocInit::Kind::kWeights)
        declared.push_back({name, k.init.ref, MLOperandDescriptor{k.dataType, k.shape}});
    if (Status s = formats::check_manifest_declarations(*manifest, declared); !s)
      return report(reading(s.error(), {a.path, *m}));
  }
  if (a.has("strict"))
    if (Status s = strict_check(*doc, a.path); !s) return report(in_file(s.error(), a.path));
  std::cerr << "OK\n";
  return 0;
}

}  // namespace cppnn::tool
