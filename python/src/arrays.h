// numpy interop: the numpy dtype of each operand data type, host bytes from numpy arrays, Python
// buffers and sequences (zero-copy where possible), and new numpy arrays for tensor reads.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "cppnn/data_type.h"

namespace cppnn::py {

// The DLPack dtype numpy uses for `type` (int4/uint4: uint8, packed two per byte).
nanobind::dlpack::dtype dlpack_dtype_of(MLOperandDataType type);
// The operand data type of a numpy dtype (nullopt for bool, float64, complex ...).
std::optional<MLOperandDataType> data_type_of(nanobind::dlpack::dtype dtype);
// The numpy dtype name for `type` ("float32"; "uint8" for int4/uint4).
std::string_view numpy_dtype_name(MLOperandDataType type);
// The element count of the uint8 array that holds `count` elements of `type`.
size_t host_element_count(MLOperandDataType type, uint64_t count);

// A Python reference held by C++ (decref'd with the GIL taken, from any thread).
std::shared_ptr<const void> keep_alive(nanobind::handle object);

// Bytes taken from a Python data argument: a view into the object (kept alive by `owner`) or a
// copy (owned by `owner`).
struct HostBytes {
  std::span<const std::byte> bytes;
  std::shared_ptr<const void> owner;
  bool copied = false;  // a copy made here (a strided array, a converted sequence)
  bool raw = false;     // a view of a buffer without a dtype (bytes, bytearray, memoryview)
};

// The bytes of `data` for elements of `type`: an object with a `dtype` (numpy array or scalar)
// must have the dtype of `type` (TypeError naming `what` otherwise) and is used in place when
// C-contiguous, else copied; other buffer objects (bytes, bytearray, memoryview) are raw bytes;
// lists, tuples and numbers go through numpy.asarray(data, dtype). The byte length is checked by
// the cppnn call that takes the bytes.
HostBytes host_bytes(nanobind::handle data, MLOperandDataType type, std::string_view what);

// A numpy array of `type` with `shape` (int4/uint4: uint8 [ceil(n/2)]) over new storage;
// `storage` receives the bytes to fill before the array is handed to Python.
nanobind::object new_numpy_array(MLOperandDataType type, const std::vector<uint32_t>& shape,
                                 std::span<std::byte>& storage);
// The writable C-contiguous bytes of `out` for a read into it: TypeError unless `out` is a
// writable C-contiguous array of `type`'s dtype with exactly `byte_length` bytes.
std::span<std::byte> writable_bytes(nanobind::handle out, MLOperandDataType type,
                                    uint64_t byte_length);

}  // namespace cppnn::py
