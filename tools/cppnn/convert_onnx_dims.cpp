// Free-dimension overrides and input shapes of `cppnn convert-onnx` (webnn-graph-format.md §8
// "Dimension overrides"; see convert_onnx.h).
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tools/cppnn/convert_onnx.h"

namespace cppnn::tool::convert_onnx {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// A decimal uint32 (no sign, no spaces), or nullopt.
std::optional<uint32_t> parse_u32(const std::string& s) {
  uint32_t v = 0;
  const char* end = s.data() + s.size();
  auto r = std::from_chars(s.data(), end, v);
  if (s.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
}

uint32_t dimension_value(const std::string& s) {
  if (std::optional<uint32_t> v = parse_u32(s)) return *v;
  throw ArgumentError{"Invalid dimension value: '" + s + "'"};
}

}  // namespace

std::pair<std::string, uint32_t> parse_override_dim(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t eq = s.find('=', start);
    parts.push_back(s.substr(start, eq == std::string::npos ? std::string::npos : eq - start));
    if (eq == std::string::npos) break;
    start = eq + 1;
  }
  if (parts.size() != 2)
    throw ArgumentError{"Invalid override-dim format: '" + s + "'. Expected NAME=VALUE"};
  return {parts[0], dimension_value(parts[1])};
}

std::map<std::string, uint32_t> read_override_dims_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ArgumentError{"failed to read override-dims-file " + file.string()};
  std::ostringstream text;
  text << in.rdbuf();
  Json j;
  try {
    j = Json::parse(text.str());
  } catch (const Json::exception& e) {
    throw ArgumentError{"failed to parse override-dims-file " + file.string() + ": " + e.what()};
  }
  if (j.is_object() && j.contains("freeDimensionOverrides")) j = j["freeDimensionOverrides"];
  if (!j.is_object())
    throw ArgumentError{
        "override-dims-file must be a JSON object mapping dimension names to "
        "integers, or {\"freeDimensionOverrides\": {...}}: " +
        file.string()};
  std::map<std::string, uint32_t> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Json& v = *it;
    if (!v.is_number_integer())
      throw ArgumentError{"override value for '" + it.key() + "' must be an integer, got " +
                          v.dump()};
    if (v.is_number_unsigned() ? v.get<uint64_t>() > UINT32_MAX : v.get<int64_t>() < 0)
      throw ArgumentError{"override value for '" + it.key() + "' is out of range, got " + v.dump()};
    out[it.key()] = static_cast<uint32_t>(v.get<uint64_t>());
  }
  return out;
}

std::map<std::string, uint32_t> resolve_overrides(const fs::path& model,
                                                  const std::vector<std::string>& override_dims,
                                                  const std::optional<fs::path>& dims_file,
                                                  std::optional<fs::path>* fallback_used) {
  std::map<std::string, uint32_t> dims;
  if (dims_file) {
    dims = read_override_dims_file(*dims_file);
  } else if (override_dims.empty()) {
    const fs::path fallback = model.parent_path() / (model.stem().string() + ".dims.json");
    if (fs::is_regular_file(fallback)) {
      dims = read_override_dims_file(fallback);
      if (fallback_used) *fallback_used = fallback;
    }
  }
  for (const std::string& s : override_dims) {  // the command line beats the file
    auto [name, value] = parse_override_dim(s);
    dims[name] = value;
  }
  return dims;
}

std::pair<std::string, std::vector<uint32_t>> parse_input_shape(const std::string& s) {
  const size_t eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0)
    throw ArgumentError{"Invalid input-shape format: '" + s + "'. Expected NAME=D0,D1,..."};
  std::vector<uint32_t> shape;
  const std::string dims = s.substr(eq + 1);
  size_t start = 0;
  while (!dims.empty()) {  // "NAME=" is a scalar
    const size_t comma = dims.find(',', start);
    shape.push_back(dimension_value(dims.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {s.substr(0, eq), std::move(shape)};
}

std::pair<std::string, OnnxInputValue> parse_input_value(const std::string& s) {
  const size_t eq = s.rfind('=');
  const std::string error = "Invalid input-value format: '" + s + "'. Expected NAME=V0,V1,...";
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) throw ArgumentError{error};
  const std::string values = s.substr(eq + 1);
  const bool is_float = values.find_first_of(".eE") != std::string::npos;
  std::vector<double> parsed;
  size_t start = 0;
  for (;;) {
    const size_t comma = values.find(',', start);
    const std::string item = values.substr(start, comma - start);
    size_t used = 0;
    try {
      parsed.push_back(std::stod(item, &used));
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size()) throw ArgumentError{error};
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  OnnxInputValue v;
  v.descriptor = {is_float ? MLOperandDataType::kFloat32 : MLOperandDataType::kInt64,
                  {static_cast<uint32_t>(parsed.size())}};
  const size_t size = is_float ? 4 : 8;
  v.bytes.resize(parsed.size() * size);
  for (size_t i = 0; i < parsed.size(); ++i)
    MLNumber(is_float ? MLNumber(parsed[i]) : MLNumber(static_cast<long long>(parsed[i])))
        .cast_to_bytes(v.descriptor.dataType, v.bytes.data() + i * size);
  return {s.substr(0, eq), std::move(v)};
}

}  // namespace cppnn::tool::convert_onnx
