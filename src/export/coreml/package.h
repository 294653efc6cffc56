// The `.mlpackage` folder layout (Apple's model package format): Manifest.json naming the root
// model item and the weights item, Data/com.apple.CoreML/model.mlmodel (the serialized Model)
// and Data/com.apple.CoreML/weights/weight.bin (the weight blob). Written into a private
// temporary folder beside the destination and renamed into place once complete.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace cppnn::coreml_export {

// The Manifest.json text; its two item identifiers are UUID-formatted hashes of the model and
// weight bytes, so the same package always gives the same manifest.
std::string manifest_json(std::string_view model_bytes, std::string_view weight_bytes);

// Writes a package folder at `path` from the serialized model and weight file. An existing
// package (a folder holding Manifest.json) is replaced; anything else there, or a symlink, is a
// DataError. Nothing is left behind on failure.
void write_package(const std::filesystem::path& path, std::string_view model_bytes,
                   std::string_view weight_bytes);

}  // namespace cppnn::coreml_export
