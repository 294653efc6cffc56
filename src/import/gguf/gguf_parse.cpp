// GgufFile::parse: the GGUF layout (ggml docs/gguf.md), read front to back with every count,
// length, size and offset checked against the bytes left before anything is allocated.
#include <algorithm>
#include <bit>
#include <numeric>

#include "src/core/checked_math.h"
#include "src/core/text_check.h"
#include "src/import/gguf/gguf_file.h"

namespace cppnn::gguf {
namespace {

using T = GgufValueType;

// The smallest encodings, which bound every count by the bytes left: a key/value pair (key
// length, a 1-byte key, the type, a 1-byte value); a tensor info (name length, a 1-byte name,
// n_dims, one dimension, type, offset); a string (its length); an array (element type, count).
constexpr uint64_t kMinKeyValueBytes = 8 + 1 + 4 + 1;
constexpr uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8;
constexpr uint64_t kMinStringBytes = 8;
constexpr uint64_t kMinArrayBytes = 4 + 8;
constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32

// An error message fragment; the parser adds "GGUF `file`: <where>: " in front.
template <class... A>
ErrorInfo fragment(const A&... a) {
  return ErrorInfo{ErrorKind::kDataError, str_cat(a...)};
}

uint64_t load_le(std::span<const std::byte> bytes) {
  uint64_t x = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    x |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
  return x;
}

}  // namespace

// Reads one file into a GgufFile (a friend of it).
class GgufParser {
 public:
  explicit GgufParser(GgufFile& file) : f_(file), bytes_(file.bytes_) {}

  Status run() {
    CPPNN_RETURN_IF_ERROR(in("header", header()));
    CPPNN_RETURN_IF_ERROR(metadata());
    CPPNN_RETURN_IF_ERROR(alignment());
    CPPNN_RETURN_IF_ERROR(tensor_infos());
    return place_tensors();
  }

 private:
  uint64_t left() const { return bytes_.size() - pos_; }

  // `r`'s error with the file and `where` in front.
  template <class R>
  R in(std::string_view where, R r) const {
    if (!r.ok()) return f_.error(where, ": ", r.error().message);
    return r;
  }

  Result<std::span<const std::byte>> take(uint64_t n, std::string_view what) {
    if (n > left())
      return fragment("truncated: ", what, " needs ", n, " bytes at offset ", pos_,
                      ", the file ends at ", bytes_.size());
    auto s = bytes_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  Result<uint64_t> uint(uint32_t size, std::string_view what) {
    auto s = take(size, what);
    if (!s) return s.error();
    return load_le(*s);
  }
  Result<std::string_view> string(std::string_view what) {
    auto n = uint(8, what);
    if (!n) return n.error();
    if (*n > left())
      return fragment(what, ": length ", *n, " at offset ", pos_ - 8, " exceeds the ", left(),
                      " bytes left");
    auto s = take(*n, what);
    return std::string_view(reinterpret_cast<const char*>(s->data()), s->size());
  }
  // A count of items of at least `min_bytes` each, checked against the bytes left.
  Result<uint64_t> count(std::string_view what, uint64_t min_bytes) {
    auto n = uint(8, what);
    if (!n) return n.error();
    if (*n > left() / min_bytes)
      return fragment(what, " ", *n, " cannot fit in the ", left(), " bytes left");
    return *n;
  }

  Status header() {
    auto magic = uint(4, "the magic");
    if (!magic) return fragment("not a GGUF file (", bytes_.size(), " bytes)");
    if (*magic != kMagic) return fragment("not a GGUF file (the magic is not \"GGUF\")");
    auto version = uint(4, "the version");
    if (!version) return version.error();
    if ((*version & 0xffff) == 0 && *version != 0)
      return fragment("big-endian files are not supported (the version field reads ", *version,
                      " little-endian)");
    if (*version == 1) return fragment("version 1 is not supported (only versions 2 and 3)");
    if (*version != 2 && *version != 3)
      return fragment("unsupported version ", *version, " (only versions 2 and 3)");
    f_.version_ = static_cast<uint32_t>(*version);
    auto tensors = uint(8, "the tensor count");
    if (!tensors) return tensors.error();
    auto kvs = uint(8, "the key count");
    if (!kvs) return kvs.error();
    // Every count must fit in what is left (each item has a minimal encoding), so a huge count
    // fails here instead of reserving memory.
    if (*kvs > left() / kMinKeyValueBytes)
      return fragment("key count ", *kvs, " cannot fit in the ", left(), " bytes left");
    if (*tensors > left() / kMinTensorInfoBytes)
      return fragment("tensor count ", *tensors, " cannot fit in the ", left(), " bytes left");
    tensor_count_ = *tensors;
    kv_count_ = *kvs;
    return Ok{};
  }

  Status metadata() {
    f_.metadata_.reserve(kv_count_);
    for (uint64_t i = 0; i < kv_count_; ++i) {
      const std::string where = str_cat("key #", i);
      auto key = in(where, string("the key"));
      if (!key) return key.error();
      if (key->empty()) return f_.error(where, ": the key is empty");
      if (auto problem = name_problem(*key))
        return f_.error(where, " ", quoted_name(*key), ": the key ", *problem);
      const std::string named = str_cat("key ", quoted_name(*key));
      auto type = in(named, uint(4, "the value type"));
      if (!type) return type.error();
      if (*type >= kValueTypeCount) return f_.error(named, ": unknown value type id ", *type);
      auto v = in(named, value(static_cast<T>(*type), 1));
      if (!v) return v.error();
      if (!f_.key_index_.emplace(*key, f_.metadata_.size()).second)
        return f_.error("duplicate key ", quoted_name(*key));
      f_.metadata_.push_back({*key, std::move(*v)});
    }
    return Ok{};
  }

  // One value of `type`; `depth` counts the arrays it is in, itself included.
  Result<GgufValue> value(T type, uint32_t depth) {
    GgufValue v;
    v.type = type;
    if (type == T::kString) {
      auto s = string("the string");
      if (!s) return s.error();
      v.string_value = *s;
      return v;
    }
    if (type == T::kArray) return array(depth);
    auto bits = uint(value_type_size(type), value_type_name(type));
    if (!bits) return bits.error();
    v.packed = bytes_.subspan(pos_ - value_type_size(type), value_type_size(type));
    v.count = 1;
    v.element_type = type;
    if (type == T::kBool && *bits > 1) return fragment("bool value ", *bits, " is not 0 or 1");
    GgufValue scalar = v.packed_element(0);
    scalar.packed = {};
    scalar.count = 0;
    scalar.element_type = T::kUint8;
    return scalar;
  }

  Result<GgufValue> array(uint32_t depth) {
    if (depth > kMaxArrayDepth)
      return fragment("arrays nested deeper than ", kMaxArrayDepth, " levels");
    GgufValue v;
    v.type = T::kArray;
    auto element = uint(4, "the array element type");
    if (!element) return element.error();
    if (*element >= kValueTypeCount) return fragment("unknown array element type id ", *element);
    v.element_type = static_cast<T>(*element);
    const uint32_t size = value_type_size(v.element_type);
    if (size != 0) {
      auto n = count("array length", size);
      if (!n) return n.error();
      v.count = *n;
      v.packed = *take(*n * size, "the array");  // fits: n <= left / size
      if (v.element_type == T::kBool)
        for (uint64_t i = 0; i < v.count; ++i)
          if (static_cast<uint8_t>(v.packed[i]) > 1)
            return fragment("element ", i, ": bool value ", static_cast<int>(v.packed[i]),
                            " is not 0 or 1");
      return v;
    }
    if (v.element_type == T::kString) {
      auto n = count("array length", kMinStringBytes);
      if (!n) return n.error();
      v.count = *n;
      v.strings.reserve(*n);
      for (uint64_t i = 0; i < *n; ++i) {
        auto s = string("the string");
        if (!s) return fragment("element ", i, ": ", s.error().message);
        v.strings.push_back(*s);
      }
      return v;
    }
    auto n = count("array length", kMinArrayBytes);
    if (!n) return n.error();
    v.count = *n;
    v.arrays.reserve(*n);
    for (uint64_t i = 0; i < *n; ++i) {
      auto a = array(depth + 1);
      if (!a) return fragment("element ", i, ": ", a.error().message);
      v.arrays.push_back(std::move(*a));
    }
    return v;
  }

  // `general.alignment`: a uint32 power of two (GGUF spec), 32 when absent.
  Status alignment() {
    const GgufValue* v = f_.find("general.alignment");
    if (v == nullptr) return Ok{};
    const std::string named = str_cat("key ", quoted_name("general.alignment"));
    if (v->type != T::kUint32)
      return f_.error(named, ": expected uint32, found ", v->type_string());
    if (!std::has_single_bit(v->uint_value))
      return f_.error(named, ": ", v->uint_value, " is not a power of two");
    f_.alignment_ = static_cast<uint32_t>(v->uint_value);
    return Ok{};
  }

  Status tensor_infos() {
    f_.tensors_.reserve(tensor_count_);
    for (uint64_t i = 0; i < tensor_count_; ++i) {
      const std::string where = str_cat("tensor #", i);
      auto name = in(where, string("the tensor name"));
      if (!name) return name.error();
      if (name->empty()) return f_.error(where, ": the name is empty");
      if (auto problem = name_problem(*name))
        return f_.error(where, " ", quoted_name(*name), ": the name ", *problem);
      if (!f_.tensor_index_.emplace(*name, f_.tensors_.size()).second)
        return f_.error("duplicate tensor ", quoted_name(*name));
      GgufTensor t;
      t.name = std::string(*name);
      auto info = in(str_cat("tensor ", quoted_name(*name)), tensor_info(t));
      if (!info) return info.error();
      f_.tensors_.push_back(std::move(t));
    }
    return Ok{};
  }

  Status tensor_info(GgufTensor& t) {
    auto n_dims = uint(4, "n_dims");
    if (!n_dims) return n_dims.error();
    if (*n_dims == 0 || *n_dims > kMaxDims)
      return fragment("n_dims ", *n_dims, " is out of range (1 to ", kMaxDims, ")");
    // The product of the non-zero dimensions must fit int64 (ggml's sizes are int64), so that
    // any product of some dimensions, in any order, fits too.
    uint64_t nonzero = 1;
    bool empty = false;
    for (uint64_t d = 0; d < *n_dims; ++d) {
      auto dim = uint(8, "a dimension");
      if (!dim) return dim.error();
      if (*dim > static_cast<uint64_t>(INT64_MAX))
        return fragment("dimension ", d, " is ", *dim, " (more than 2^63 - 1)");
      t.dims.push_back(*dim);
      empty = empty || *dim == 0;
      auto product = checked_mul(nonzero, std::max<uint64_t>(*dim, 1));
      if (!product || *product > static_cast<uint64_t>(INT64_MAX))
        return fragment("the element count of dims ", dims_string(t.dims), " overflows");
      nonzero = *product;
    }
    const uint64_t elements = empty ? 0 : nonzero;
    t.element_count = elements;
    auto type = uint(4, "the type");
    if (!type) return type.error();
    auto kind = find_kind(static_cast<uint32_t>(*type));
    if (!kind) return fragment("unknown type id ", *type);
    t.kind = kind->kind;
    auto offset = uint(8, "the offset");
    if (!offset) return offset.error();
    t.offset = *offset;
    if (t.dims[0] % kind->block != 0)
      return fragment("the row size ", t.dims[0], " (ne[0]) is not a multiple of the ", kind->name,
                      " block size ", kind->block);
    auto bytes = checked_mul(elements / kind->block, kind->block_bytes);
    if (!bytes) return fragment("the byte size of dims ", dims_string(t.dims), " overflows");
    t.byte_size = *bytes;
    if (t.offset % f_.alignment_ != 0)
      return fragment("offset ", t.offset, " is not a multiple of the alignment ", f_.alignment_);
    return Ok{};
  }

  static std::string dims_string(const std::vector<uint64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += str_cat(i ? ", " : "", dims[i]);
    return s + "]";
  }

  // The data section starts at the next multiple of the alignment; every tensor's bytes must lie
  // inside the file and no two tensors may share a byte.
  Status place_tensors() {
    const uint64_t a = f_.alignment_;
    auto start = checked_add(pos_, a - 1);
    if (!start) return f_.error("the data section offset overflows");
    f_.data_offset_ = *start / a * a;
    const uint64_t size = bytes_.size();
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [begin, end) per tensor, absolute
    ranges.reserve(f_.tensors_.size());
    for (GgufTensor& t : f_.tensors_) {
      auto begin = checked_add(f_.data_offset_, t.offset);
      auto end = begin ? checked_add(*begin, t.byte_size) : std::nullopt;
      if (!end || *end > size)
        return f_.error("tensor ", quoted_name(t.name), ": data [",
                        begin ? str_cat(*begin) : std::string("2^64+"), ", ",
                        end ? str_cat(*end) : std::string("2^64+"),
                        ") extends past the end of the file (", size, " bytes)");
      t.data = bytes_.subspan(*begin, t.byte_size);
      t.owner = f_.owner_;
      ranges.emplace_back(*begin, *end);
    }
    std::vector<size_t> order(ranges.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return ranges[x] < ranges[y]; });
    const size_t none = ranges.size();
    size_t last = none;  // the non-empty tensor that ends last so far
    for (size_t i : order) {
      if (ranges[i].first == ranges[i].second) continue;  // empty tensors hold no byte
      if (last != none && ranges[last].second > ranges[i].first)
        return f_.error("tensor ", quoted_name(f_.tensors_[i].name), ": data [", ranges[i].first,
                        ", ", ranges[i].second, ") overlaps tensor ",
                        quoted_name(f_.tensors_[last].name), " [", ranges[last].first, ", ",
                        ranges[last].second, ")");
      if (last == none || ranges[i].second > ranges[last].second) last = i;
    }
    return Ok{};
  }

  GgufFile& f_;
  std::span<const std::byte> bytes_;
  uint64_t pos_ = 0;
  uint64_t tensor_count_ = 0;
  uint64_t kv_count_ = 0;
};

Result<std::shared_ptr<const GgufFile>> GgufFile::parse(std::span<const std::byte> bytes,
                                                        std::shared_ptr<const void> keep_alive,
                                                        std::string name) {
  auto file = std::make_shared<GgufFile>();
  file->name_ = std::move(name);
  file->bytes_ = bytes;
  file->owner_ = std::move(keep_alive);
  GgufParser parser(*file);
  CPPNN_RETURN_IF_ERROR(parser.run());
  return std::shared_ptr<const GgufFile>(std::move(file));
}

}  // namespace cppnn::gguf
