// cppnn unpack-weights (webnn-graph-format.md §8): writes <output-dir>/<name>.bin for each
// manifest entry of a WGWT weights file.
#include <iostream>

#include "src/formats/manifest.h"
#include "src/formats/weights_tools.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/weights_cli.h"

namespace cppnn::tool {

int run_unpack_weights(const std::vector<std::string>& args) {
  static const std::string kHelp =
      "usage: cppnn unpack-weights --weights W --manifest M --output-dir D\n\n"
      "Writes D/<name>.bin (D and its parents are created) for each entry of the manifest M,\n"
      "taking bytes [byteOffset, byteOffset + byteLength) of the WGWT file W. W must start with\n"
      "`WGWT` and version 1 (a headerless blob from convert-onnx is rejected); every range must\n"
      "lie after the 8-byte header and inside the file. Everything is checked before anything\n"
      "is written; no D/<name>.bin may be W or M.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  Flags f;
  if (auto stop = parse_flags("unpack-weights", args, kHelp, f)) return *stop;
  if (auto manifest = formats::read_manifest_file(f["manifest"], true)) {
    std::vector<std::filesystem::path> outputs;
    for (const auto& [name, entry] : manifest->tensors)
      outputs.push_back(std::filesystem::path(f["output-dir"]) / (name + ".bin"));
    if (auto s = check_outputs(outputs, {f["weights"], f["manifest"]}); !s)
      return report_error(s.error());
  }  // (a bad manifest is reported by unpack_weights)
  auto names = formats::unpack_weights(f["weights"], f["manifest"], f["output-dir"]);
  if (!names) return report_error(reading(names.error(), {f["weights"], f["manifest"]}));
  std::cerr << "Unpacked " << names->size() << " tensors to: " << f["output-dir"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
