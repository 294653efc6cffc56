// The .npy reader and writer (NumPy's format.py "NEP 1"): magic, version, header length, a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}, padded to 64 bytes.
#include "tools/cppnn/npy.h"

#include <array>
#include <cstring>
#include <optional>
#include <sstream>

#include "src/core/atomic_file.h"
#include "src/core/checked_math.h"
#include "src/core/input_file.h"
#include "src/formats/graph_doc.h"

namespace cppnn::tool {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

struct DtypeName {
  MLOperandDataType type;
  std::string_view name;
};
constexpr std::array<DtypeName, 8> kDtypes = {{{MLOperandDataType::kFloat32, "<f4"},
                                               {MLOperandDataType::kFloat16, "<f2"},
                                               {MLOperandDataType::kInt32, "<i4"},
                                               {MLOperandDataType::kUint32, "<u4"},
                                               {MLOperandDataType::kInt64, "<i8"},
                                               {MLOperandDataType::kUint64, "<u8"},
                                               {MLOperandDataType::kInt8, "|i1"},
                                               {MLOperandDataType::kUint8, "|u1"}}};

// The header dictionary's three keys, parsed from its Python literal.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<uint64_t>> shape;
};

// A tiny parser of the header's dict literal (strings, True/False, tuples of integers).
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view file) : s_(text), file_(file) {}

  Result<Header> parse() {
    Header h;
    skip();
    if (!eat('{')) return fail("expected '{'");
    for (;;) {
      skip();
      if (eat('}')) break;
      auto key = string();
      if (!key) return fail("expected a quoted key");
      skip();
      if (!eat(':')) return fail("expected ':' after '" + *key + "'");
      skip();
      if (*key == "descr") {
        auto v = string();
        if (!v) return fail("'descr' must be a string");
        h.descr = *v;
      } else if (*key == "fortran_order") {
        if (s_.substr(pos_).starts_with("True")) {
          h.fortran_order = true;
          pos_ += 4;
        } else if (s_.substr(pos_).starts_with("False")) {
          h.fortran_order = false;
          pos_ += 5;
        } else {
          return fail("'fortran_order' must be True or False");
        }
      } else if (*key == "shape") {
        auto v = tuple();
        if (!v) return fail("'shape' must be a tuple of non-negative integers");
        h.shape = std::move(*v);
      } else {
        return fail("unknown key '" + *key + "'");
      }
      skip();
      if (eat(',')) continue;
      skip();
      if (eat('}')) break;
      return fail("expected ',' or '}'");
    }
    skip();
    if (pos_ != s_.size()) return fail("trailing characters after the dictionary");
    if (!h.descr || !h.fortran_order || !h.shape)
      return fail("the dictionary needs 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  ErrorInfo fail(const std::string& m) const {
    return formats::data_error("npy error: ", file_, ": header at character ", pos_, ": ", m);
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return std::nullopt;
    const char q = s_[pos_++];
    const size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) return std::nullopt;
    std::string v(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return v;
  }
  std::optional<std::vector<uint64_t>> tuple() {
    if (!eat('(')) return std::nullopt;
    std::vector<uint64_t> dims;
    for (;;) {
      skip();
      if (eat(')')) return dims;
      size_t digits = 0;
      uint64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        auto m = checked_mul(v, 10);
        auto a = m ? checked_add(*m, uint64_t(s_[pos_] - '0')) : std::nullopt;
        if (!a) return std::nullopt;
        v = *a;
        ++pos_;
        ++digits;
      }
      if (digits == 0) return std::nullopt;
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 longs
      dims.push_back(v);
      skip();
      if (eat(',')) continue;
      skip();
      if (eat(')')) return dims;
      return std::nullopt;
    }
  }

  std::string_view s_;
  std::string_view file_;
  size_t pos_ = 0;
};

std::optional<MLOperandDataType> dtype_of(std::string descr) {
  // '=' (native) is little-endian on every supported host; one-byte types take any byte order.
  if (descr.size() == 3 && descr[0] == '=') descr[0] = '<';
  if (descr.size() == 3 && descr[2] == '1' && (descr[0] == '<' || descr[0] == '>')) descr[0] = '|';
  for (const auto& d : kDtypes)
    if (d.name == descr) return d.type;
  return std::nullopt;
}

}  // namespace

std::string_view npy_dtype(MLOperandDataType t) {
  for (const auto& d : kDtypes)
    if (d.type == t) return d.name;
  return {};
}

Result<NpyArray> parse_npy(std::span<const std::byte> bytes, std::string_view file_name) {
  auto fail = [&](const auto&... m) {
    return formats::data_error("npy error: ", file_name, ": ", m...);
  };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
    return fail("not a .npy file (no \\x93NUMPY magic)");
  const unsigned major = unsigned(bytes[6]), minor = unsigned(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return fail("unsupported format version ", major, ".", minor, " (1.0, 2.0, 3.0 are)");
  uint64_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = uint64_t(bytes[8]) | uint64_t(bytes[9]) << 8;
    offset = 10;
  } else {
    if (bytes.size() < 12) return fail("truncated header length");
    for (int i = 0; i < 4; ++i) header_len |= uint64_t(bytes[8 + i]) << (8 * i);
    offset = 12;
  }
  if (header_len > bytes.size() - offset)
    return fail("header length ", header_len, " runs past the end of the file (", bytes.size(),
                " bytes)");
  std::string_view header(reinterpret_cast<const char*>(bytes.data() + offset), header_len);
  offset += header_len;
  auto h = HeaderParser(header, file_name).parse();
  if (!h) return h.error();
  if (*h->fortran_order) return fail("Fortran-order arrays are not supported (C order only)");
  auto type = dtype_of(*h->descr);
  if (!type)
    return fail("unsupported dtype '", *h->descr,
                "' (supported: <f4 <f2 <i4 <u4 <i8 <u8 |i1 |u1, little-endian)");
  NpyArray out;
  out.dataType = *type;
  uint64_t count = 1;
  for (uint64_t d : *h->shape) {
    if (d > UINT32_MAX) return fail("dimension ", d, " does not fit in uint32");
    out.shape.push_back(uint32_t(d));
    auto c = checked_mul(count, d);
    if (!c) return fail("the shape's element count overflows");
    count = *c;
  }
  auto size = checked_mul(count, data_type_bits(*type) / 8);
  if (!size) return fail("the shape's byte size overflows");
  if (bytes.size() - offset != *size)
    return fail("the data holds ", bytes.size() - offset, " bytes, the header's ", *h->descr,
                " shape needs ", *size);
  out.data.assign(bytes.begin() + std::ptrdiff_t(offset), bytes.end());
  return out;
}

Result<std::vector<std::byte>> format_npy(const NpyArray& array) {
  const std::string_view dtype = npy_dtype(array.dataType);
  if (dtype.empty())
    return type_error("npy: ", data_type_name(array.dataType), " has no NumPy dtype");
  // Elements first, then bytes: the reader's order, so that whatever it accepts (a zero
  // dimension beside huge ones included) is written back (found by the npy fuzz target).
  std::optional<uint64_t> count = 1;
  for (uint32_t d : array.shape) count = count ? checked_mul(*count, d) : std::nullopt;
  const std::optional<uint64_t> size =
      count ? checked_mul(*count, data_type_bits(array.dataType) / 8) : std::nullopt;
  if (!size || *size != array.data.size())
    return type_error("npy: ", array.data.size(), " data bytes do not match the shape");
  std::ostringstream dict;
  dict << "{'descr': '" << dtype << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i) dict << (i ? ", " : "") << array.shape[i];
  dict << (array.shape.size() == 1 ? ",), }" : "), }");  // NumPy's spelling: (3,) and (2, 3)
  std::string header = dict.str();
  // Version 1.0 when the padded header fits in 16 bits; the total prefix is a multiple of 64.
  const bool v2 = header.size() + 11 + 64 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::vector<std::byte> out;
  out.reserve(total + array.data.size());
  for (char c : kMagic) out.push_back(std::byte(c));
  out.push_back(std::byte(v2 ? 2 : 1));
  out.push_back(std::byte(0));
  const uint64_t len = header.size();
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out.push_back(std::byte((len >> (8 * i)) & 0xff));
  for (char c : header) out.push_back(std::byte(c));
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Result<NpyArray> read_npy_file(const std::string& path) {
  auto file = InputFile::open(path);  // regular files only, never blocking
  if (!file) return file.error();
  // The magic first, so that anything else is refused without being read whole.
  auto head = file->read_head(kMagic.size());
  if (!head) return head.error();
  if (*head != kMagic) return parse_npy(std::as_bytes(std::span<const char>(*head)), path);
  auto bytes = file->read_all();
  if (!bytes) return bytes.error();
  return parse_npy(std::as_bytes(std::span<const char>(*bytes)), path);
}

Status write_npy_file(const std::string& path, const NpyArray& array) {
  auto bytes = format_npy(array);
  if (!bytes) return bytes.error();
  auto file = AtomicFile::create(path);
  if (!file) return file.error();
  CPPNN_RETURN_IF_ERROR(file->write(std::span<const std::byte>(*bytes)));
  return file->commit();
}

}  // namespace cppnn::tool
