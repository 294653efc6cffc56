// Free-dimension overrides and input shapes of `cppnn convert-onnx` (webnn-graph-format.md §8
// "Dimension overrides"; see convert_onnx.h).
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "src/core/input_file.h"
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

// A dims file is small: at most 16 MiB are read.
constexpr uint64_t kMaxDimsFileBytes = uint64_t{16} << 20;

// A bad value of --FLAG.
[[noreturn]] void bad_flag(const char* flag, const std::string& arg, const std::string& message) {
  throw ArgumentError{message, true, flag, arg, {}};
}

// A bad dims file.
[[noreturn]] void bad_file(const fs::path& file, const std::string& message) {
  throw ArgumentError{message, false, {}, {}, file.string()};
}

uint32_t dimension_value(const char* flag, const std::string& arg, const std::string& s) {
  if (std::optional<uint32_t> v = parse_u32(s)) return *v;
  bad_flag(flag, arg, "Invalid dimension value: '" + s + "'");
}

}  // namespace

std::string ArgumentError::shown() const {
  if (usage) return "--" + flag + " " + value + ": " + message;
  return message.find(file) == std::string::npos ? file + ": " + message : message;
}

std::pair<std::string, uint32_t> parse_override_dim(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t eq = s.find('=', start);
    parts.push_back(s.substr(start, eq == std::string::npos ? std::string::npos : eq - start));
    if (eq == std::string::npos) break;
    start = eq + 1;
  }
  if (parts.size() != 2 || parts[0].empty())
    bad_flag("override-dim", s, "Invalid override-dim format: '" + s + "'. Expected NAME=VALUE");
  return {parts[0], dimension_value("override-dim", s, parts[1])};
}

std::map<std::string, uint32_t> read_override_dims_file(const fs::path& file) {
  auto text = read_input_file(file, kMaxDimsFileBytes);
  if (!text) bad_file(file, "failed to read override-dims-file: " + text.error().message);
  // A dims file nests two objects deep: anything much deeper is refused while parsing.
  constexpr int kMaxDepth = 16;
  Json j;
  try {
    j = Json::parse(*text, [&](int depth, Json::parse_event_t, Json&) {
      if (depth > kMaxDepth)
        bad_file(file, "failed to parse override-dims-file " + file.string() +
                           ": nested more than " + std::to_string(kMaxDepth) + " levels deep");
      return true;
    });
  } catch (const Json::exception& e) {
    bad_file(file, "failed to parse override-dims-file " + file.string() + ": " + e.what());
  }
  if (j.is_object() && j.contains("freeDimensionOverrides")) j = j["freeDimensionOverrides"];
  if (!j.is_object())
    bad_file(file,
             "override-dims-file must be a JSON object mapping dimension names to "
             "integers, or {\"freeDimensionOverrides\": {...}}: " +
                 file.string());
  std::map<std::string, uint32_t> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Json& v = *it;
    if (!v.is_number_integer())
      bad_file(file, "override value for '" + it.key() + "' must be an integer, got " +
                         (v.is_structured() ? std::string("an ") + v.type_name() : v.dump()));
    if (v.is_number_unsigned() ? v.get<uint64_t>() > UINT32_MAX : v.get<int64_t>() < 0)
      bad_file(file, "override value for '" + it.key() + "' is out of range, got " + v.dump());
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
    bad_flag("input-shape", s, "Invalid input-shape format: '" + s + "'. Expected NAME=D0,D1,...");
  std::vector<uint32_t> shape;
  const std::string dims = s.substr(eq + 1);
  size_t start = 0;
  while (!dims.empty()) {  // "NAME=" is a scalar
    const size_t comma = dims.find(',', start);
    shape.push_back(dimension_value("input-shape", s, dims.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {s.substr(0, eq), std::move(shape)};
}

std::pair<std::string, OnnxInputValue> parse_input_value(const std::string& s) {
  const size_t eq = s.rfind('=');
  const std::string error = "Invalid input-value format: '" + s + "'. Expected NAME=V0,V1,...";
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) bad_flag("input-value", s, error);
  const std::string values = s.substr(eq + 1);
  const bool is_float = values.find_first_of(".eE") != std::string::npos;
  std::vector<double> parsed;
  size_t start = 0;
  for (;;) {
    const size_t comma = values.find(',', start);
    const std::string item = values.substr(start, comma - start);
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || !std::isfinite(value))
      bad_flag("input-value", s, error);
    if (!is_float && std::fabs(value) >= 0x1p63)
      bad_flag("input-value", s, "'" + item + "' does not fit in int64");
    parsed.push_back(value);
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
