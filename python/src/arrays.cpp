// numpy interop (arrays.h): dtype mapping, zero-copy views of C-contiguous arrays, strided
// copies of the others, raw buffers, and numpy arrays over new storage for tensor reads.
#include "arrays.h"

#include <Python.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>

#include "cppnn/descriptor.h"
#include "cppnn/errors.h"

namespace nb = nanobind;

namespace cppnn::py {
namespace {

using nb::dlpack::dtype_code;

constexpr nb::dlpack::dtype make_dtype(dtype_code code, unsigned bits) {
  return {static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
}

// Every data type with its numpy dtype and name (int4/uint4 last: uint8 serves them packed).
struct DtypeEntry {
  MLOperandDataType type;
  nb::dlpack::dtype dtype;
  std::string_view name;
};
constexpr DtypeEntry kDtypes[] = {
    {MLOperandDataType::kFloat32, make_dtype(dtype_code::Float, 32), "float32"},
    {MLOperandDataType::kFloat16, make_dtype(dtype_code::Float, 16), "float16"},
    {MLOperandDataType::kInt32, make_dtype(dtype_code::Int, 32), "int32"},
    {MLOperandDataType::kUint32, make_dtype(dtype_code::UInt, 32), "uint32"},
    {MLOperandDataType::kInt64, make_dtype(dtype_code::Int, 64), "int64"},
    {MLOperandDataType::kUint64, make_dtype(dtype_code::UInt, 64), "uint64"},
    {MLOperandDataType::kInt8, make_dtype(dtype_code::Int, 8), "int8"},
    {MLOperandDataType::kUint8, make_dtype(dtype_code::UInt, 8), "uint8"},
    {MLOperandDataType::kInt4, make_dtype(dtype_code::UInt, 8), "uint8"},
    {MLOperandDataType::kUint4, make_dtype(dtype_code::UInt, 8), "uint8"},
};

const DtypeEntry& entry_of(MLOperandDataType type) {
  for (const DtypeEntry& e : kDtypes)
    if (e.type == type) return e;
  throw TypeError("unknown data type");
}

// "float64" for an object's `dtype` attribute (for messages).
std::string dtype_text(nb::handle object) {
  try {
    nb::object dtype = object.attr("dtype");
    return nb::cast<std::string>(nb::str(nb::handle(dtype)));
  } catch (const nb::python_error&) {
    return "?";
  }
}

// A Py_buffer released with the GIL taken when the last C++ user lets go.
struct BufferOwner {
  Py_buffer view{};
  ~BufferOwner() {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    PyBuffer_Release(&view);
  }
};

// numpy.asarray(data, dtype=...) (dtype omitted when empty); Python errors become TypeError.
nb::object as_numpy(nb::handle data, std::string_view dtype, std::string_view what) {
  try {
    nb::module_ numpy = nb::module_::import_("numpy");
    if (dtype.empty()) return numpy.attr("asarray")(data);
    return numpy.attr("asarray")(data, nb::arg("dtype") = nb::str(dtype.data(), dtype.size()));
  } catch (const nb::python_error& e) {
    throw TypeError(std::string(what) + ": cannot convert the data to a numpy array: " + e.what());
  }
}

using HostArray = nb::ndarray<nb::ro, nb::device::cpu>;

// True when `a` is laid out row-major without gaps (strides in elements).
bool c_contiguous(const HostArray& a) {
  if (!a.stride_ptr()) return true;
  int64_t expected = 1;
  for (size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected) return false;
    expected *= static_cast<int64_t>(a.shape(i));
  }
  return true;
}

// A row-major copy of a strided array.
std::vector<std::byte> strided_copy(const HostArray& a) {
  const size_t item = a.itemsize(), n = a.size(), ndim = a.ndim();
  std::vector<std::byte> out(n * item);
  if (n == 0) return out;
  const auto* base = static_cast<const std::byte*>(static_cast<const void*>(a.data()));
  std::vector<size_t> index(ndim, 0);
  for (size_t k = 0; k < n; ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < ndim; ++d) offset += static_cast<int64_t>(index[d]) * a.stride(d);
    std::memcpy(out.data() + k * item, base + offset * static_cast<int64_t>(item), item);
    for (size_t d = ndim; d-- > 0;) {
      if (++index[d] < a.shape(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

// The bytes of an object with a `dtype`.
HostBytes array_bytes(nb::handle data, MLOperandDataType type, std::string_view what) {
  nb::object object = nb::borrow(data);
  HostArray array;
  if (!nb::try_cast(object, array)) {  // numpy scalars and other array-likes
    object = as_numpy(data, "", what);
    if (!nb::try_cast(object, array))
      throw TypeError(std::string(what) + ": unsupported array of dtype " + dtype_text(data));
  }
  const DtypeEntry& want = entry_of(type);
  if (array.dtype() != want.dtype) {
    std::string message = std::string(what) + ": the array's dtype is " + dtype_text(object) +
                          ", not " + std::string(want.name);
    if (!is_spec_data_type(type))
      message += " (" + std::string(data_type_name(type)) + " data is uint8, two per byte)";
    throw TypeError(message);
  }
  HostBytes out;
  if (c_contiguous(array)) {
    out.bytes = {static_cast<const std::byte*>(static_cast<const void*>(array.data())),
                 array.nbytes()};
    out.owner = keep_alive(object);
    return out;
  }
  auto copy = std::make_shared<std::vector<std::byte>>(strided_copy(array));
  out.bytes = *copy;
  out.owner = copy;
  out.copied = true;
  return out;
}

// The bytes of a buffer-protocol object without a dtype (bytes, bytearray, memoryview).
HostBytes raw_bytes(nb::handle data, std::string_view what) {
  auto owner = std::make_shared<BufferOwner>();
  if (PyObject_GetBuffer(data.ptr(), &owner->view, PyBUF_FULL_RO) != 0) {
    PyErr_Clear();
    owner->view.obj = nullptr;
    throw TypeError(std::string(what) + ": the object does not expose its bytes");
  }
  HostBytes out;
  out.raw = true;
  const auto length = static_cast<size_t>(owner->view.len);
  if (PyBuffer_IsContiguous(&owner->view, 'C')) {
    out.bytes = {static_cast<const std::byte*>(owner->view.buf), length};
    out.owner = owner;
    return out;
  }
  auto copy = std::make_shared<std::vector<std::byte>>(length);
  if (PyBuffer_ToContiguous(copy->data(), &owner->view, owner->view.len, 'C') != 0)
    throw nb::python_error();
  out.bytes = *copy;
  out.owner = copy;
  out.copied = true;
  return out;
}

}  // namespace

nb::dlpack::dtype dlpack_dtype_of(MLOperandDataType type) {
  return entry_of(type).dtype;
}

std::optional<MLOperandDataType> data_type_of(nb::dlpack::dtype dtype) {
  for (const DtypeEntry& e : kDtypes)
    if (e.dtype == dtype) return e.type;
  return std::nullopt;
}

std::string_view numpy_dtype_name(MLOperandDataType type) {
  return entry_of(type).name;
}

size_t host_element_count(MLOperandDataType type, uint64_t count) {
  return static_cast<size_t>(data_type_bits(type) == 4 ? (count + 1) / 2 : count);
}

std::shared_ptr<const void> keep_alive(nb::handle object) {
  object.inc_ref();
  return std::shared_ptr<const void>(object.ptr(), [](const void* p) {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(const_cast<void*>(p)));
  });
}

HostBytes host_bytes(nb::handle data, MLOperandDataType type, std::string_view what) {
  if (nb::hasattr(data, "dtype")) return array_bytes(data, type, what);
  if (PyObject_CheckBuffer(data.ptr())) return raw_bytes(data, what);
  nb::object array = as_numpy(data, numpy_dtype_name(type), what);
  return array_bytes(array, type, what);
}

nb::object new_numpy_array(MLOperandDataType type, const std::vector<uint32_t>& shape,
                           std::span<std::byte>& storage) {
  const size_t length = static_cast<size_t>(byte_length({type, shape}));
  auto* bytes = new std::byte[length == 0 ? 1 : length];
  nb::capsule owner(bytes, [](void* p) noexcept { delete[] static_cast<std::byte*>(p); });
  storage = {bytes, length};
  std::vector<size_t> dims;
  if (is_spec_data_type(type)) {
    dims.assign(shape.begin(), shape.end());
  } else {
    dims.push_back(length);
  }
  nb::ndarray<nb::numpy> array(bytes, dims.size(), dims.data(), owner, nullptr,
                               dlpack_dtype_of(type));
  return array.cast();
}

std::span<std::byte> writable_bytes(nb::handle out, MLOperandDataType type, uint64_t byte_length) {
  nb::ndarray<nb::device::cpu> array;
  if (!nb::try_cast(out, array))
    throw TypeError("read_tensor: `out` must be a writable numpy array");
  const DtypeEntry& want = entry_of(type);
  if (array.dtype() != want.dtype)
    throw TypeError("read_tensor: `out` has dtype " + dtype_text(out) + ", not " +
                    std::string(want.name));
  if (!c_contiguous(HostArray(array))) throw TypeError("read_tensor: `out` must be C-contiguous");
  if (array.nbytes() != byte_length)
    throw TypeError("read_tensor: `out` holds " + std::to_string(array.nbytes()) +
                    " bytes, the tensor " + std::to_string(byte_length));
  return {static_cast<std::byte*>(array.data()), array.nbytes()};
}

}  // namespace cppnn::py
