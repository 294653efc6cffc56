// The TFLite export of `cppnn wpt --export-tflite DIR` (see TfliteExport in wpt_common.h).
#include "cppnn/errors.h"
#include "cppnn/tflite.h"
#include "tools/cppnn/json_file.h"
#include "tools/cppnn/npy.h"
#include "tools/cppnn/wpt_common.h"
#include "tools/cppnn/wpt_export_util.h"

namespace cppnn::tool::wpt {
namespace {

// The element type of the model's input or output tensor for a WebNN type (TfliteTensor in
// include/cppnn/tflite.h): int4 / uint4 travel unpacked as int8 / uint8, every other type as
// itself (float16 included: the model casts inside).
MLOperandDataType model_type(MLOperandDataType t) {
  if (t == MLOperandDataType::kInt4) return MLOperandDataType::kInt8;
  if (t == MLOperandDataType::kUint4) return MLOperandDataType::kUint8;
  return t;
}

// A WebNN tensor's bytes as the model's tensor holds them: 4-bit elements (packed two per byte,
// the first in the low nibble) unpacked one per byte, int4 sign-extended; other types unchanged.
std::vector<std::byte> model_bytes(const MLOperandDescriptor& d,
                                   const std::vector<std::byte>& bytes) {
  if (d.dataType != MLOperandDataType::kInt4 && d.dataType != MLOperandDataType::kUint4)
    return bytes;
  size_t count = 1;
  for (uint32_t dim : d.shape) count *= dim;
  std::vector<std::byte> out(count);
  for (size_t i = 0; i < count; ++i) {
    const unsigned byte = std::to_integer<unsigned>(bytes.at(i / 2));
    unsigned nibble = (i % 2 == 0 ? byte : byte >> 4) & 0xf;
    if (d.dataType == MLOperandDataType::kInt4 && nibble >= 8) nibble |= 0xf0;
    out[i] = static_cast<std::byte>(nibble);
  }
  return out;
}

// The model tensor's shape of a WebNN input or output: its shape, [1] for a scalar
// (include/cppnn/tflite.h).
std::vector<uint32_t> model_shape(const MLOperandDescriptor& d) {
  return d.shape.empty() ? std::vector<uint32_t>{1} : d.shape;
}

// Writes one tensor as DIR/<file> (.npy of the model's element type and shape); its index entry.
Json write_tensor(const TfliteExport& x, const std::string& file, const std::string& name,
                  const MLOperandDescriptor& d, const std::vector<std::byte>& bytes) {
  const NpyArray array{model_type(d.dataType), model_shape(d), model_bytes(d, bytes)};
  if (auto s = write_npy_file((x.dir / file).string(), array); !s)
    throw RunnerError(s.error().message);
  return {{"name", name},
          {"dataType", data_type_name(d.dataType)},
          {"shape", shape_json(d.shape)},
          {"modelType", data_type_name(array.dataType)},
          {"modelShape", shape_json(array.shape)},
          {"file", file}};
}

}  // namespace

void export_tflite_case(TfliteExport& x, const std::string& id, const MLGraph& graph,
                        const std::map<std::string, std::vector<std::byte>>& inputs,
                        const std::map<std::string, std::vector<std::byte>>& outputs,
                        const Json& expected, const Json& tolerance, bool exact) {
  const std::string stem = export_case_stem(x.cases.size());
  Json entry = {{"id", id}};
  TfliteModelInfo info;
  try {
    // The export's pipeline is the litert backend's (the same descriptor and passes, then
    // convert_prepared): the model is the one the backend compiled, byte for byte.
    info = save_tflite(graph, x.dir / (stem + ".tflite"));
  } catch (const Error& e) {
    entry["error"] = "export: " + std::string(e.name()) + ": " + e.what();
    x.cases.push_back(std::move(entry));
    return;
  }
  entry["model"] = stem + ".tflite";
  fs::create_directories(x.dir / stem);
  const auto descriptors_in = graph.inputs();
  const auto descriptors_out = graph.outputs();
  Json in = Json::array();
  for (size_t k = 0; k < info.inputs.size(); ++k) {
    const std::string& name = info.inputs[k].name;
    in.push_back(write_tensor(x, stem + "/in" + std::to_string(k) + ".npy", name,
                              descriptors_in.at(name), inputs.at(name)));
  }
  Json out = Json::array();
  for (size_t k = 0; k < info.outputs.size(); ++k) {
    const std::string& name = info.outputs[k].name;
    Json o = write_tensor(x, stem + "/out" + std::to_string(k) + ".npy", name,
                          descriptors_out.at(name), outputs.at(name));
    const Json& e = expected.at(name);
    set_expected(o, e);
    out.push_back(std::move(o));
  }
  x.cases.push_back(
      finished_entry(std::move(entry), std::move(in), std::move(out), tolerance, exact));
}

void record_tflite_failure(TfliteExport& x, const std::string& id, const std::string& error) {
  x.cases.push_back({{"id", id}, {"error", error}});
}

void record_tflite_outcome(TfliteExport& x, std::string_view status, const std::string& message) {
  Json& entry = x.cases.back();
  entry["wpt"] = {{"status", status}, {"message", message}};
}

void write_tflite_index(const TfliteExport& x, const std::string& corpus) {
  const Json index = {{"corpus", corpus}, {"backend", x.backend}, {"cases", x.cases}};
  if (auto error = write_json_atomically(x.dir / "index.json", index)) throw RunnerError(*error);
}

}  // namespace cppnn::tool::wpt
