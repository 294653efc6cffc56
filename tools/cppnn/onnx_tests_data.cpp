// The test data of ONNX's backend tests: serialized TensorProto files decoded into WebNN-typed
// bytes, and the facts the runner needs from model.onnx (see onnx_tests.h).
#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <iterator>
#include <set>

#include "onnx/onnx_pb.h"
#include "src/core/checked_math.h"
#include "src/core/input_file.h"
#include "tools/cppnn/onnx_tests.h"

namespace cppnn::tool::onnx_tests {

static_assert(std::endian::native == std::endian::little, "test data is little-endian");

std::optional<MLOperandDataType> webnn_type_of(int32_t onnx_type) {
  using T = onnx::TensorProto;
  switch (onnx_type) {
    case T::FLOAT:
      return MLOperandDataType::kFloat32;
    case T::FLOAT16:
      return MLOperandDataType::kFloat16;
    case T::INT32:
      return MLOperandDataType::kInt32;
    case T::UINT32:
      return MLOperandDataType::kUint32;
    case T::INT64:
      return MLOperandDataType::kInt64;
    case T::UINT64:
      return MLOperandDataType::kUint64;
    case T::INT8:
      return MLOperandDataType::kInt8;
    case T::UINT8:
    case T::BOOL:
      return MLOperandDataType::kUint8;
    default:
      return std::nullopt;
  }
}

std::string onnx_type_name(int32_t onnx_type) {
  if (onnx::TensorProto::DataType_IsValid(onnx_type))
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(onnx_type));
  return "type " + std::to_string(onnx_type);
}

namespace {

std::string shape_text(const google::protobuf::RepeatedField<int64_t>& dims) {
  std::string s = "[";
  for (int i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// Copies `values` (the typed field) as `Out` elements into `bytes`, after checking the count.
template <class Out, class Field, class Convert>
void copy_typed(const Field& values, size_t count, std::vector<std::byte>& bytes,
                const std::string& where, const char* field, Convert convert) {
  if (static_cast<size_t>(values.size()) != count)
    throw CaseFailure(where + ": " + field + " has " + std::to_string(values.size()) +
                      " values for " + std::to_string(count) + " elements");
  for (size_t i = 0; i < count; ++i) {
    const Out v = convert(values[static_cast<int>(i)]);
    std::memcpy(bytes.data() + i * sizeof(Out), &v, sizeof(Out));
  }
}

std::vector<std::byte> read_bytes(const fs::path& file) {
  // Regular files only, never blocking; at most what protobuf parses (2 GiB).
  auto text = read_input_file(file, static_cast<uint64_t>(INT32_MAX));
  if (!text) throw CaseFailure(text.error().message);
  std::vector<std::byte> bytes(text->size());
  if (!text->empty()) std::memcpy(bytes.data(), text->data(), text->size());
  return bytes;
}

// The reason a value's type cannot be expressed, or empty.
std::string inexpressible_type(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const int32_t t = type.tensor_type().elem_type();
      if (t == onnx::TensorProto::UNDEFINED || webnn_type_of(t)) return {};
      return "element type " + onnx_type_name(t);
    }
    case onnx::TypeProto::kSequenceType:
      return "a sequence";
    case onnx::TypeProto::kMapType:
      return "a map";
    case onnx::TypeProto::kOptionalType:
      return "an optional";
    case onnx::TypeProto::kSparseTensorType:
      return "a sparse tensor";
    default:
      return {};
  }
}

}  // namespace

TestTensor decode_test_tensor(std::span<const std::byte> serialized, const std::string& where) {
  onnx::TensorProto proto;
  if (serialized.size() > static_cast<size_t>(INT_MAX) ||
      !proto.ParseFromArray(serialized.data(), static_cast<int>(serialized.size())))
    throw CaseFailure(where + ": not a serialized onnx.TensorProto");
  TestTensor t;
  t.name = proto.name();
  t.onnx_type = proto.data_type();
  const std::optional<MLOperandDataType> type = webnn_type_of(t.onnx_type);
  if (!type)
    throw NotExpressible(where + ": element type " + onnx_type_name(t.onnx_type) +
                         " has no WebNN operand type");
  t.type = *type;
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw CaseFailure(where + ": external tensor data is not supported in test data");
  if (proto.has_segment()) throw CaseFailure(where + ": segmented tensors are not supported");
  uint64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || d > UINT32_MAX)
      throw CaseFailure(where + ": dimension " + std::to_string(d) + " of " +
                        shape_text(proto.dims()) + " is out of range");
    t.shape.push_back(static_cast<uint32_t>(d));
    const std::optional<uint64_t> n = checked_mul(count, static_cast<uint64_t>(d));
    if (!n) throw CaseFailure(where + ": the shape " + shape_text(proto.dims()) + " overflows");
    count = *n;
  }
  const size_t element_size = data_type_bits(t.type) / 8;
  const std::optional<uint64_t> total = checked_mul(count, element_size);
  if (!total || *total > SIZE_MAX)
    throw CaseFailure(where + ": the shape " + shape_text(proto.dims()) + " is too large");
  const bool is_bool = t.onnx_type == onnx::TensorProto::BOOL;
  if (!proto.raw_data().empty() || count == 0) {
    const std::string& raw = proto.raw_data();
    if (raw.size() != *total)
      throw CaseFailure(where + ": raw_data has " + std::to_string(raw.size()) +
                        " bytes, the shape " + shape_text(proto.dims()) + " of " +
                        onnx_type_name(t.onnx_type) + " needs " + std::to_string(*total));
    t.bytes.resize(raw.size());
    if (!raw.empty()) std::memcpy(t.bytes.data(), raw.data(), raw.size());
    if (is_bool)
      for (std::byte& b : t.bytes) b = b == std::byte{0} ? std::byte{0} : std::byte{1};
    return t;
  }
  // A test tensor has at least as many bytes in the file as elements in its typed field, so the
  // allocation is bounded by the file once the count matches.
  auto& bytes = t.bytes;
  auto prepare = [&](size_t n) {
    if (n == count) bytes.resize(*total);
  };
  using T = onnx::TensorProto;
  auto same = [](auto v) { return v; };
  switch (t.onnx_type) {
    case T::FLOAT:
      prepare(proto.float_data_size());
      copy_typed<float>(proto.float_data(), count, bytes, where, "float_data", same);
      break;
    case T::FLOAT16:
      prepare(proto.int32_data_size());
      copy_typed<uint16_t>(proto.int32_data(), count, bytes, where, "int32_data",
                           [](int32_t v) { return static_cast<uint16_t>(v); });
      break;
    case T::INT32:
      prepare(proto.int32_data_size());
      copy_typed<int32_t>(proto.int32_data(), count, bytes, where, "int32_data", same);
      break;
    case T::INT8:
    case T::UINT8:
      prepare(proto.int32_data_size());
      copy_typed<uint8_t>(proto.int32_data(), count, bytes, where, "int32_data",
                          [](int32_t v) { return static_cast<uint8_t>(v); });
      break;
    case T::BOOL:
      prepare(proto.int32_data_size());
      copy_typed<uint8_t>(proto.int32_data(), count, bytes, where, "int32_data",
                          [](int32_t v) { return static_cast<uint8_t>(v != 0); });
      break;
    case T::INT64:
      prepare(proto.int64_data_size());
      copy_typed<int64_t>(proto.int64_data(), count, bytes, where, "int64_data", same);
      break;
    case T::UINT32:
      prepare(proto.uint64_data_size());
      copy_typed<uint32_t>(proto.uint64_data(), count, bytes, where, "uint64_data",
                           [](uint64_t v) { return static_cast<uint32_t>(v); });
      break;
    case T::UINT64:
      prepare(proto.uint64_data_size());
      copy_typed<uint64_t>(proto.uint64_data(), count, bytes, where, "uint64_data", same);
      break;
    default:
      throw CaseFailure(where + ": unexpected element type");  // webnn_type_of() filtered
  }
  return t;
}

TestTensor read_test_tensor(const fs::path& file) {
  return decode_test_tensor(read_bytes(file), file.string());
}

ModelInfo read_model_info(const fs::path& model) {
  const std::vector<std::byte> bytes = read_bytes(model);
  onnx::ModelProto proto;
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw CaseFailure(model.string() + ": not a serialized onnx.ModelProto");
  const onnx::GraphProto& g = proto.graph();
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : g.initializer()) initializers.insert(t.name());
  for (const onnx::SparseTensorProto& t : g.sparse_initializer())
    initializers.insert(t.values().name());
  ModelInfo info;
  for (const onnx::ValueInfoProto& v : g.input()) {
    if (initializers.contains(v.name())) continue;
    if (std::string why = inexpressible_type(v.type()); !why.empty())
      throw NotExpressible("input '" + v.name() + "' is " + why);
    info.inputs.push_back(v.name());
  }
  for (const onnx::ValueInfoProto& v : g.output()) {
    if (std::string why = inexpressible_type(v.type()); !why.empty())
      throw NotExpressible("output '" + v.name() + "' is " + why);
  }
  info.output_count = static_cast<size_t>(g.output_size());
  return info;
}

}  // namespace cppnn::tool::onnx_tests
