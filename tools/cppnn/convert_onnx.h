// Pieces of `cppnn convert-onnx` (webnn-graph-format.md §8 "convert-onnx"): the free-dimension
// overrides (`--override-dim`, `--override-dims-file`, the `X.dims.json` fallback) and the
// `--input-shape` values, parsed with the format document's error messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cppnn/onnx_import.h"

namespace cppnn::tool::convert_onnx {

// A bad value on the command line (`usage`: exit 2, printed as `--FLAG VALUE: <message>`) or in a
// dims file (exit 1, printed with the file's name): `Error: ...`.
struct ArgumentError {
  std::string message;
  bool usage = true;
  std::string flag, value;  // the flag ("override-dim") and its value, for a usage error
  std::string file;         // the dims file, for a bad file
  // The message as printed: naming the flag and its value, or the file.
  std::string shown() const;
};

// `NAME=VALUE` -> {NAME, VALUE}. Throws ArgumentError "Invalid override-dim format: 'S'. Expected
// NAME=VALUE" unless splitting on '=' gives exactly two parts, and "Invalid dimension value: 'V'"
// unless VALUE is a decimal uint32.
std::pair<std::string, uint32_t> parse_override_dim(const std::string& s);

// A dims file's overrides: a JSON object of integers, or {"freeDimensionOverrides": {...}}.
// Throws ArgumentError (usage false) "override-dims-file must be a JSON object ..." or "override
// value for 'n' must be an integer, got V" (and for unreadable, unparsable or out-of-range
// content).
std::map<std::string, uint32_t> read_override_dims_file(const std::filesystem::path& file);

// The free-dimension overrides of a conversion: the file's (`--override-dims-file`, else
// `<model stem>.dims.json` beside the model when no override is given at all) overridden by
// the command line's. `fallback_used` is set to the fallback file when it was read.
std::map<std::string, uint32_t> resolve_overrides(
    const std::filesystem::path& model, const std::vector<std::string>& override_dims,
    const std::optional<std::filesystem::path>& dims_file,
    std::optional<std::filesystem::path>* fallback_used = nullptr);

// `NAME=D0,D1,...` -> {NAME, shape}; ArgumentError "Invalid input-shape format: ..." or
// "Invalid dimension value: 'V'".
std::pair<std::string, std::vector<uint32_t>> parse_input_shape(const std::string& s);

// `NAME=V0,V1,...` -> {NAME, value}: int64 [n] values, or float32 when one has a '.' or an
// exponent; ArgumentError "Invalid input-value format: ..." for anything else.
std::pair<std::string, OnnxInputValue> parse_input_value(const std::string& s);

}  // namespace cppnn::tool::convert_onnx
