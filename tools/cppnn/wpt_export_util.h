// What the WPT runner's model exports (`--export-coreml`, `--export-tflite`; wpt_coreml.cpp,
// wpt_tflite.cpp) write alike into their index.json: the case's file stem, shapes, the expected
// values of an output, and the finished case entry.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cppnn/wpt_common.h"

namespace cppnn::tool::wpt {

// "c0042": the case's file stem in the export folder.
inline std::string export_case_stem(size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "c%04zu", index);
  return buf;
}

inline Json shape_json(const std::vector<uint32_t>& shape) {
  Json s = Json::array();
  for (uint32_t d : shape) s.push_back(d);
  return s;
}

// The case's expected value of one output (its expectedOutputs entry `expected`) into the
// output's index entry: "expectedBits" for a storage case, else "expected".
inline void set_expected(Json& output, const Json& expected) {
  if (expected.contains("bits"))
    output["expectedBits"] = expected.at("bits");
  else
    output["expected"] = expected.at("data");
}

// `entry` completed with its inputs, outputs, tolerance and exactCompare.
inline Json finished_entry(Json entry, Json inputs, Json outputs, const Json& tolerance,
                           bool exact) {
  entry["inputs"] = std::move(inputs);
  entry["outputs"] = std::move(outputs);
  entry["tolerance"] = tolerance;
  entry["exactCompare"] = exact;
  return entry;
}

}  // namespace cppnn::tool::wpt
