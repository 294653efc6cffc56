// cppnn pack-weights (webnn-graph-format.md §8): builds a WGWT weights file from
// <input-dir>/<name>.bin per a v1 manifest.
#include <iostream>

#include "src/formats/weights_tools.h"
#include "tools/cppnn/commands.h"
#include "tools/cppnn/graph_cli.h"
#include "tools/cppnn/weights_cli.h"

namespace cppnn::tool {

int run_pack_weights(const std::vector<std::string>& args) {
  static const std::string kHelp =
      "usage: cppnn pack-weights --manifest M --input-dir D --output O\n\n"
      "Builds a WGWT weights file (`WGWT`, u32 version 1, then the tensors) at O from\n"
      "D/<name>.bin for each entry of the v1 manifest M, by ascending byteOffset. The manifest\n"
      "must have format \"wg-weights-manifest\" and version 1; offsets must run contiguously from\n"
      "8; byteLength must equal numel x element size (int4/uint4: ceil(n/2), or n) and the size\n"
      "of the .bin file. O is written atomically: a failure leaves nothing behind; O must not\n"
      "be one of the inputs.\n"
      "Exit status: 0 success, 1 bad input, 2 usage or internal error.\n";
  Flags f;
  if (auto stop = parse_flags("pack-weights", args, kHelp, f)) return *stop;
  std::vector<std::filesystem::path> inputs = files_in(f["input-dir"]);
  inputs.push_back(f["manifest"]);
  if (auto s = check_outputs({f["output"]}, inputs); !s) return report_error(s.error());
  if (auto s = formats::pack_weights(f["manifest"], f["input-dir"], f["output"]); !s)
    return report_error(reading(s.error(), {f["manifest"], f["input-dir"]}));
  std::cerr << "Packed weights to: " << f["output"] << "\n";
  return 0;
}

}  // namespace cppnn::tool
