// cppnn create-manifest (webnn-graph-format.md §8): a v1 manifest from <input-dir>/*.bin and
// their .meta.json files.
#include <iostream>

#include "src/formats/weights_tools.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/weights_cli.h"

namespace cppnn::tool {

int run_create_manifest(const std::vector<std::string>& args) {
  static const std::string kHelp =
      "usage: cppnn create-manifest --input-dir D --output O [--endianness E]\n\n"
      "Writes a v1 weights manifest to O listing D/*.bin in name order, with offsets assigned\n"
      "contiguously from 8 (the layout pack-weights expects). Each D/<name>.bin needs a\n"
      "D/<name>.meta.json holding a full tensor entry (dataType, shape, byteOffset, byteLength,\n"
      "optional layout, default \"row-major\"); the .bin size must equal numel x element size.\n"
      "  --endianness E   copied into the manifest as given (default: little)\n"
      "Exit status: 0 success, 1 bad input, 2 internal error.\n";
  Flags f;
  if (auto stop =
          parse_flags("create-manifest", args,
                      {{"input-dir"}, {"output"}, {"endianness", false, "little"}}, kHelp, f))
    return *stop;
  auto n = formats::create_manifest(f["input-dir"], f["output"], f["endianness"]);
  if (!n) return report_error(n.error());
  std::cerr << "Wrote manifest with " << *n << " tensors to: " << f["output"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
