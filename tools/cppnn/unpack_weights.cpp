// cppnn unpack-weights (webnn-graph-format.md §8): writes <output-dir>/<name>.bin for each
// manifest entry of a WGWT weights file.
#include <iostream>

#include "src/formats/weights_tools.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/weights_cli.h"

namespace cppnn::tool {

int run_unpack_weights(const std::vector<std::string>& args) {
  static const std::string kHelp =
      "usage: cppnn unpack-weights --weights W --manifest M --output-dir D\n\n"
      "Writes D/<name>.bin (D and its parents are created) for each entry of the manifest M,\n"
      "taking bytes [byteOffset, byteOffset + byteLength) of the WGWT file W. W must start with\n"
      "`WGWT` and version 1 (a headerless blob from convert-onnx is rejected); every range must\n"
      "lie after the 8-byte header and inside the file. Everything is checked before anything\n"
      "is written.\n"
      "Exit status: 0 success, 1 bad input, 2 internal error.\n";
  Flags f;
  if (auto stop = parse_flags("unpack-weights", args, {{"weights"}, {"manifest"}, {"output-dir"}},
                              kHelp, f))
    return *stop;
  auto names = formats::unpack_weights(f["weights"], f["manifest"], f["output-dir"]);
  if (!names) return report_error(names.error());
  std::cerr << "Unpacked " << names->size() << " tensors to: " << f["output-dir"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
