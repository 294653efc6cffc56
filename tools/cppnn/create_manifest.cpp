// cppnn create-manifest (webnn-graph-format.md §8): a v1 manifest from <input-dir>/*.bin and
// their .meta.json files.
#include <iostream>

#include "src/formats/weights_tools.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
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
      "O must not be one of the files of D.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  Flags f;
  if (auto stop = parse_flags("create-manifest", args, kHelp, f)) return *stop;
  if (auto s = check_outputs({f["output"]}, files_in(f["input-dir"])); !s)
    return report_error(s.error());
  auto n = formats::create_manifest(f["input-dir"], f["output"], f["endianness"]);
  if (!n) return report_error(reading(n.error(), {f["input-dir"]}));
  std::cerr << "Wrote manifest with " << *n << " tensors to: " << f["output"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
