// The CoreML export of `cppnn wpt --export-coreml DIR` (see CoremlExport in wpt_common.h).
#include "cppnn/coreml.h"
#include "cppnn/errors.h"
#include "tools/cppnn/json_file.h"
#include "tools/cppnn/npy.h"
#include "tools/cppnn/wpt_common.h"
#include "tools/cppnn/wpt_export_util.h"

namespace cppnn::tool::wpt {

void export_coreml_case(CoremlExport& x, const std::string& id, const MLGraph& graph,
                        const std::map<std::string, std::vector<std::byte>>& inputs,
                        const Json& expected, const Json& tolerance, bool exact) {
  const std::string stem = export_case_stem(x.cases.size());
  Json entry = {{"id", id}};
  CoremlPackageInfo info;
  try {
    info = save_coreml(graph, x.dir / (stem + ".mlpackage"));
  } catch (const Error& e) {
    entry["error"] = std::string(e.name()) + ": " + e.what();
    x.cases.push_back(std::move(entry));
    return;
  }
  entry["package"] = stem + ".mlpackage";
  const auto descriptors_in = graph.inputs();
  const auto descriptors_out = graph.outputs();
  Json in = Json::array();
  fs::create_directories(x.dir / stem);
  for (size_t k = 0; k < info.inputs.size(); ++k) {
    const CoremlFeature& f = info.inputs[k];
    const MLOperandDescriptor& d = descriptors_in.at(f.name);
    const std::string file = stem + "/in" + std::to_string(k) + ".npy";
    NpyArray array{d.dataType, d.shape, inputs.at(f.name)};
    if (auto s = write_npy_file((x.dir / file).string(), array); !s)
      throw RunnerError(s.error().message);
    in.push_back({{"name", f.name},
                  {"feature", f.feature},
                  {"dataType", data_type_name(d.dataType)},
                  {"shape", shape_json(d.shape)},
                  {"packageType", data_type_name(f.packageType)},
                  {"packageShape", shape_json(f.packageShape)},
                  {"file", file}});
  }
  Json out = Json::array();
  for (const CoremlFeature& f : info.outputs) {
    const MLOperandDescriptor& d = descriptors_out.at(f.name);
    Json o = {{"name", f.name},
              {"feature", f.feature},
              {"dataType", data_type_name(d.dataType)},
              {"shape", shape_json(d.shape)},
              {"packageType", data_type_name(f.packageType)},
              {"packageShape", shape_json(f.packageShape)}};
    const Json& e = expected.at(f.name);
    set_expected(o, e);
    out.push_back(std::move(o));
  }
  x.cases.push_back(
      finished_entry(std::move(entry), std::move(in), std::move(out), tolerance, exact));
}

void record_coreml_failure(CoremlExport& x, const std::string& id, const std::string& error) {
  x.cases.push_back({{"id", id}, {"error", error}});
}

void write_coreml_index(const CoremlExport& x, const std::string& corpus) {
  const Json index = {{"corpus", corpus}, {"cases", x.cases}};
  if (auto error = write_json_atomically(x.dir / "index.json", index)) throw RunnerError(*error);
}

}  // namespace cppnn::tool::wpt
