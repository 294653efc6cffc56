#include "src/formats/safetensors_header.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "src/core/checked_math.h"

namespace cppnn::formats {
namespace {

using nlohmann::json;

// Reads a u64 from a JSON value that must be a non-negative integer.
bool as_u64(const json& v, uint64_t& out) {
  if (!v.is_number_unsigned()) return false;
  out = v.get<uint64_t>();
  return true;
}

class HeaderParser {
 public:
  HeaderParser(std::span<const std::byte> file, std::string_view where)
      : file_(file), where_(where) {}

  Result<SafeTensorsHeader> parse() {
    if (file_.size() < 8)
      return fail("the file is ", file_.size(),
                  " bytes, shorter than the 8-byte header length field");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file_[static_cast<size_t>(i)]);
    if (n > kMaxSafeTensorsHeader)
      return fail("header length ", n, " exceeds the limit of ", kMaxSafeTensorsHeader, " bytes");
    if (n > file_.size() - 8)
      return fail("header length ", n, " runs past the end of the file (", file_.size(), " bytes)");
    if (n == 0 || static_cast<char>(file_[8]) != '{')
      return fail("the header does not start with `{`");
    const char* text = reinterpret_cast<const char*>(file_.data() + 8);
    json root;
    std::string duplicate;
    std::set<std::string> keys;
    // Rejects a repeated top-level key (a tensor or __metadata__ given twice).
    json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
      if (depth == 1 && event == json::parse_event_t::key && parsed.is_string() &&
          !keys.insert(parsed.get<std::string>()).second && duplicate.empty())
        duplicate = parsed.get<std::string>();
      return true;
    };
    try {
      root = json::parse(text, text + n, cb);
    } catch (const json::exception& e) {
      return fail("the header is not valid JSON: ", e.what());
    }
    if (!duplicate.empty()) return fail("the header names `", duplicate, "` twice");
    if (!root.is_object()) return fail("the header is not a JSON object");
    SafeTensorsHeader h;
    h.data_start = 8 + n;
    for (const auto& [name, value] : root.items()) {
      if (name == "__metadata__") {
        CPPNN_RETURN_IF_ERROR(parse_metadata(value, h));
        continue;
      }
      auto entry = parse_entry(name, value);
      if (!entry) return entry.error();
      h.tensors.emplace(name, std::move(*entry));
    }
    CPPNN_RETURN_IF_ERROR(check_layout(h, file_.size() - h.data_start));
    return h;
  }

 private:
  template <class... A>
  ErrorInfo fail(const A&... a) const {
    return ErrorInfo{ErrorKind::kDataError, str_cat("[safetensors] `", where_, "`: ", a...)};
  }

  Status parse_metadata(const json& value, SafeTensorsHeader& h) const {
    if (value.is_null()) return Ok{};
    if (!value.is_object()) return fail("__metadata__ is not an object of strings");
    for (const auto& [k, v] : value.items()) {
      if (!v.is_string()) return fail("__metadata__.", k, " is not a string");
      h.metadata[k] = v.get<std::string>();
    }
    return Ok{};
  }

  Result<SafeTensorsEntry> parse_entry(const std::string& name, const json& value) const {
    if (!value.is_object()) return fail("tensor `", name, "`: the entry is not an object");
    SafeTensorsEntry e;
    const auto dtype = value.find("dtype");
    if (dtype == value.end() || !dtype->is_string())
      return fail("tensor `", name, "`: missing or non-string dtype");
    const auto parsed = parse_st_dtype(dtype->get<std::string>());
    if (!parsed)
      return fail("tensor `", name, "`: unknown dtype `", dtype->get<std::string>(), "`");
    e.dtype = *parsed;
    const auto shape = value.find("shape");
    if (shape == value.end() || !shape->is_array())
      return fail("tensor `", name, "`: missing shape array");
    for (const auto& d : *shape) {
      uint64_t dim = 0;
      if (!as_u64(d, dim))
        return fail("tensor `", name, "`: shape ", shape->dump(),
                    " holds a value that is not a non-negative integer");
      e.shape.push_back(dim);
    }
    const auto offsets = value.find("data_offsets");
    if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 ||
        !as_u64((*offsets)[0], e.begin) || !as_u64((*offsets)[1], e.end))
      return fail("tensor `", name, "`: data_offsets must be two non-negative integers");
    return e;
  }

  // The stock library's validation: ranges sorted by offset must tile the data buffer.
  Status check_layout(const SafeTensorsHeader& h, uint64_t buffer_size) const {
    std::vector<std::pair<const std::string*, const SafeTensorsEntry*>> order;
    for (const auto& [name, e] : h.tensors) order.emplace_back(&name, &e);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second->begin, a.second->end) < std::tie(b.second->begin, b.second->end);
    });
    uint64_t at = 0;
    for (const auto& [name, e] : order) {
      if (e->end < e->begin)
        return fail("tensor `", *name, "`: data_offsets [", e->begin, ", ", e->end,
                    ") end before they begin");
      if (e->begin < at)
        return fail("tensor `", *name, "`: data_offsets [", e->begin, ", ", e->end,
                    ") overlap the previous tensor, which ends at ", at);
      if (e->begin > at)
        return fail("tensor `", *name, "`: data_offsets [", e->begin, ", ", e->end,
                    ") leave a gap after offset ", at);
      std::optional<uint64_t> count = uint64_t{1};
      for (uint64_t d : e->shape)
        if (count) count = checked_mul(*count, d);
      if (count) count = checked_mul(*count, st_dtype_size(e->dtype));
      if (!count)
        return fail("tensor `", *name, "`: shape ", st_shape_string(e->shape),
                    " overflows 64-bit sizes");
      if (e->end - e->begin != *count)
        return fail("tensor `", *name, "`: data_offsets [", e->begin, ", ", e->end, ") hold ",
                    e->end - e->begin, " bytes but ", st_dtype_name(e->dtype), " ",
                    st_shape_string(e->shape), " needs ", *count);
      at = e->end;
    }
    if (at != buffer_size)
      return fail("the tensors cover ", at, " bytes but the data buffer holds ", buffer_size);
    return Ok{};
  }

  std::span<const std::byte> file_;
  std::string_view where_;
};

}  // namespace

Result<SafeTensorsHeader> parse_safetensors_header(std::span<const std::byte> file,
                                                   std::string_view where) {
  return HeaderParser(file, where).parse();
}

std::string st_shape_string(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace cppnn::formats
