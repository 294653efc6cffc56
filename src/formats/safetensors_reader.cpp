#include "src/formats/safetensors_reader.h"

#include <cstring>

namespace cppnn::formats {
namespace {

std::vector<std::string> keys_of(const SafeTensorsHeader& h) {
  std::vector<std::string> names;
  names.reserve(h.tensors.size());
  for (const auto& [name, e] : h.tensors) names.push_back(name);
  return names;
}

bool same_shape(const std::vector<uint32_t>& declared, const std::vector<uint64_t>& stored) {
  if (declared.size() != stored.size()) return false;
  for (size_t i = 0; i < declared.size(); ++i)
    if (declared[i] != stored[i]) return false;
  return true;
}

}  // namespace

void convert_bf16_to_f32(std::span<const std::byte> bf16, std::span<std::byte> out) {
  const size_t n = bf16.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = static_cast<uint32_t>(static_cast<uint8_t>(bf16[2 * i])) |
                    static_cast<uint32_t>(static_cast<uint8_t>(bf16[2 * i + 1])) << 8;
    if ((bits & 0x7fffu) > 0x7f80u) bits |= 0x0040u;  // NaN: set the quiet bit
    bits <<= 16;
    for (int b = 0; b < 4; ++b) out[4 * i + b] = static_cast<std::byte>(bits >> (8 * b));
  }
}

Result<std::shared_ptr<const SafeTensorsFile>> SafeTensorsFile::open(
    const std::filesystem::path& path) {
  auto file = MappedFile::open(path);
  if (!file) return file.error();
  return from_mapping(std::move(*file));
}

Result<std::shared_ptr<const SafeTensorsFile>> SafeTensorsFile::from_mapping(
    std::shared_ptr<const MappedFile> file) {
  auto header = parse_safetensors_header(file->bytes(), file->path().string());
  if (!header) return header.error();
  return std::make_shared<const SafeTensorsFile>(std::move(file), std::move(*header));
}

SafeTensorsFile::SafeTensorsFile(std::shared_ptr<const MappedFile> file, SafeTensorsHeader header)
    : file_(std::move(file)), header_(std::move(header)), index_(keys_of(header_)) {}

std::vector<std::string> SafeTensorsFile::names() const {
  return keys_of(header_);
}

std::span<const std::byte> SafeTensorsFile::data(const SafeTensorsEntry& e) const {
  return file_->bytes().subspan(header_.data_start + e.begin, e.end - e.begin);
}

template <class... A>
ErrorInfo SafeTensorsFile::fail(const A&... a) const {
  return ErrorInfo{ErrorKind::kDataError,
                   str_cat("[safetensors] `", file_->path().string(), "`: ", a...)};
}

ConstantData SafeTensorsFile::view(std::span<const std::byte> bytes) const {
  return MappedFile::constant_view(file_, bytes);
}

Result<ConstantData> SafeTensorsFile::load(std::string_view ref, std::string_view const_name,
                                           const MLOperandDescriptor& declared) const {
  auto found = index_.find(ref);
  if (!found) return fail(found.error().message);
  if (!*found) return fail("no tensor for weight `", ref, "` (constant `", const_name, "`)");
  const SafeTensorsEntry& e = header_.tensors.at(**found);
  const auto count = declared_element_count(declared);
  if (!count)
    return fail("constant `", const_name, "`: shape ", shape_to_string(declared.shape),
                " overflows 64-bit sizes");
  const std::span<const std::byte> bytes = data(e);
  const std::string_view type = data_type_name(declared.dataType);

  if (data_type_bits(declared.dataType) == 4) {
    // The packed int4/uint4 extension (0.4.0).
    const auto marker = header_.metadata.find(std::string(kPacked4MetadataKey));
    if (marker == header_.metadata.end())
      return fail("weight `", ref, "` (constant `", const_name, "`) is declared ", type,
                  " but __metadata__ lacks the packed 4-bit marker \"", kPacked4MetadataKey,
                  "\": \"", kPacked4MetadataVersion, "\"");
    if (marker->second != kPacked4MetadataVersion)
      return fail("weight `", ref, "` (constant `", const_name,
                  "`): unsupported packed 4-bit marker version \"", marker->second,
                  "\" (expected \"", kPacked4MetadataVersion, "\")");
    if (e.dtype != StDtype::kU8)
      return fail("packed ", type, " weight `", ref, "` (constant `", const_name,
                  "`) must be stored as U8, not ", st_dtype_name(e.dtype));
    const uint64_t packed = *count / 2 + *count % 2;
    if (e.shape.size() != 1 || e.shape[0] != packed || bytes.size() != packed)
      return fail("packed ", type, " weight `", ref, "` (constant `", const_name,
                  "`) must have physical shape [", packed, "] for ", *count, " elements, not ",
                  st_shape_string(e.shape));
    return view(bytes);
  }

  if (!same_shape(declared.shape, e.shape))
    return fail("shape mismatch for weight `", ref, "` (constant `", const_name, "`): graph ",
                shape_to_string(declared.shape), " vs safetensors ", st_shape_string(e.shape));
  if (declared.dataType == MLOperandDataType::kFloat32 && e.dtype == StDtype::kBF16) {
    if (bytes.size() / 2 != *count || bytes.size() % 2 != 0)
      return fail("BF16 tensor `", ref, "` (constant `", const_name, "`): byte length ",
                  bytes.size(), " != expected ", 2 * *count, " (", *count, " BF16 elements)");
    std::vector<std::byte> out(bytes.size() * 2);
    convert_bf16_to_f32(bytes, out);
    return ConstantData::owned(std::move(out));
  }
  if (data_type_for(e.dtype) != declared.dataType)
    return fail("dtype mismatch for weight `", ref, "` (constant `", const_name,
                "`): graph declares ", type, " but safetensors has ", st_dtype_name(e.dtype));
  if (!is_aligned_for(bytes, declared.dataType)) return ConstantData::copy_of(bytes);
  return view(bytes);
}

}  // namespace cppnn::formats
