"""numpy interop: every dtype in and out of tensors and constants, float16, strided arrays
(copied), zero-copy constants, dtype and size errors, raw buffers, int4/uint4 packing."""

import numpy as np
import pytest

import cppnn
from conftest import run

SPEC_DTYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8"]


def sample(dtype):
    """[2, 3] values that exercise a dtype (its extremes for the integer types)."""
    if np.dtype(dtype).kind == "f":
        return np.linspace(-2.5, 3.75, 6).astype(dtype).reshape(2, 3)
    info = np.iinfo(dtype)
    return np.array([int(info.min), int(info.max), 0, 1, 2, 3], dtype).reshape(2, 3)


@pytest.mark.parametrize("dtype", SPEC_DTYPES)
def test_tensor_round_trip_every_dtype(context, dtype):
    data = sample(dtype)
    t = context.create_tensor({"dataType": dtype, "shape": [2, 3], "readable": True,
                               "writable": True})
    assert (t.data_type, t.shape, t.readable, t.writable) == (dtype, [2, 3], True, True)
    context.write_tensor(t, data)
    out = context.read_tensor(t)
    assert out.dtype == np.dtype(dtype) and out.shape == (2, 3)
    np.testing.assert_array_equal(out, data)


@pytest.mark.parametrize("dtype", SPEC_DTYPES)
def test_identity_graph_every_dtype(context, builder, dtype):
    data = sample(dtype)
    x = builder.input("x", {"dataType": dtype, "shape": [2, 3]})
    c = builder.constant(data)  # descriptor from the array
    assert (c.data_type, c.shape) == (dtype, [2, 3])
    out = run(context, builder, {"x": builder.identity(x), "c": builder.identity(c)}, {"x": data})
    np.testing.assert_array_equal(out["x"], data)
    np.testing.assert_array_equal(out["c"], data)
    assert out["x"].dtype == np.dtype(dtype)


def test_float16_arithmetic(context, builder):
    a = np.array([1.5, -2.25, 65504.0, 0.0009765625], np.float16)
    x = builder.input("x", {"dataType": "float16", "shape": [4]})
    y = builder.add(x, builder.constant(a))
    out = run(context, builder, y, {"x": a})
    assert out.dtype == np.float16
    with np.errstate(over="ignore"):  # 65504 * 2 is +inf in float16
        expected = (a.astype(np.float32) * 2).astype(np.float16)
    np.testing.assert_array_equal(out, expected)


def test_scalar_zero_d_arrays(context, builder):
    x = builder.input("x", {"dataType": "float32", "shape": []})
    out = run(context, builder, builder.mul(x, builder.constant("float32", 3)),
              {"x": np.array(2.0, np.float32)})
    assert out.shape == () and out == 6.0


def test_non_contiguous_arrays_are_copied(context, builder):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    strided = base[::2, 1::2]  # [2, 3], non-contiguous
    assert not strided.flags.c_contiguous
    transposed = np.arange(6, dtype=np.float32).reshape(3, 2).T  # Fortran order
    x = builder.input("x", {"dataType": "float32", "shape": [2, 3]})
    c = builder.constant({"dataType": "float32", "shape": [2, 3]}, strided)
    strided_copy = strided.copy()
    base[:] = -1  # the constant took a copy: this does not show
    out = run(context, builder, builder.add(x, c), {"x": transposed})
    np.testing.assert_array_equal(out, strided_copy + transposed)


def test_write_tensor_strided(context):
    t = context.create_tensor({"dataType": "int32", "shape": [3], "readable": True,
                               "writable": True})
    data = np.arange(9, dtype=np.int32)[::3]
    context.write_tensor(t, data)
    np.testing.assert_array_equal(context.read_tensor(t), [0, 3, 6])
    reversed_view = np.arange(3, dtype=np.int32)[::-1]
    context.write_tensor(t, reversed_view)
    np.testing.assert_array_equal(context.read_tensor(t), [2, 1, 0])


def test_contiguous_constant_is_zero_copy(context, builder):
    data = np.zeros([4], np.float32)
    x = builder.input("x", {"dataType": "float32", "shape": [4]})
    c = builder.constant({"dataType": "float32", "shape": [4]}, data)
    data[:] = 7  # used in place: the constant sees this
    out = run(context, builder, builder.add(x, c), {"x": np.ones([4], np.float32)})
    np.testing.assert_array_equal(out, [8, 8, 8, 8])


def test_constant_keeps_the_array_alive(context, builder):
    import gc
    import weakref

    class Owner(np.ndarray):
        pass

    data = np.full([3], 2.0, np.float32).view(Owner)
    ref = weakref.ref(data)
    c = builder.constant({"dataType": "float32", "shape": [3]}, data)
    del data
    gc.collect()
    assert ref() is not None  # held by the constant
    out = run(context, builder, builder.identity(c))
    np.testing.assert_array_equal(out, [2, 2, 2])
    del c, builder
    gc.collect()


@pytest.mark.parametrize("bad", [np.zeros([2, 3], np.float64), np.zeros([2, 3], np.int32),
                                 np.zeros([2, 3], bool)])
def test_wrong_dtype_is_a_type_error(context, builder, bad):
    t = context.create_tensor({"dataType": "float32", "shape": [2, 3], "writable": True})
    with pytest.raises(cppnn.TypeError, match="dtype"):
        context.write_tensor(t, bad)
    with pytest.raises(cppnn.TypeError, match="dtype"):
        builder.constant({"dataType": "float32", "shape": [2, 3]}, bad)


def test_wrong_size_is_a_type_error(context, builder):
    t = context.create_tensor({"dataType": "float32", "shape": [2, 3], "writable": True})
    with pytest.raises(cppnn.TypeError):
        context.write_tensor(t, np.zeros([5], np.float32))
    with pytest.raises(cppnn.TypeError):
        builder.constant({"dataType": "float32", "shape": [2, 3]}, np.zeros([7], np.float32))
    with pytest.raises(cppnn.TypeError):
        context.write_tensor(t, b"\0" * 23)
    # builtin TypeError catches it too
    with pytest.raises(TypeError):
        context.write_tensor(t, np.zeros([2, 2], np.float32))


def test_raw_bytes(context, builder):
    values = np.array([1.0, 2.0, 3.0], np.float32)
    t = context.create_tensor({"dataType": "float32", "shape": [3], "readable": True,
                               "writable": True})
    context.write_tensor(t, values.tobytes())
    context.write_tensor(t, bytearray(values.tobytes()))
    context.write_tensor(t, memoryview(values.tobytes()))
    np.testing.assert_array_equal(context.read_tensor(t), values)
    buffer = bytearray(values.tobytes())
    c = builder.constant({"dataType": "float32", "shape": [3]}, buffer)
    buffer[:] = bytes(len(buffer))  # bytes-like data is copied
    np.testing.assert_array_equal(run(context, builder, builder.identity(c)), values)


def test_sequences_convert_with_the_operand_dtype(context, builder):
    x = builder.input("x", {"data_type": "int64", "shape": [2, 2]})
    c = builder.constant({"dataType": "int64", "shape": [2, 2]}, [[1, 2], [3, 2**40]])
    out = run(context, builder, builder.add(x, c), {"x": [[1, 1], [1, 1]]})
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [[2, 3], [4, 2**40 + 1]])
    with pytest.raises(cppnn.TypeError):
        builder.constant({"dataType": "uint8", "shape": [1]}, [300])


def test_read_tensor_into_out(context):
    t = context.create_tensor({"dataType": "float32", "shape": [2, 2], "readable": True,
                               "writable": True})
    context.write_tensor(t, np.eye(2, dtype=np.float32))
    out = np.empty([4], np.float32)
    assert context.read_tensor(t, out) is out
    np.testing.assert_array_equal(out, [1, 0, 0, 1])
    with pytest.raises(cppnn.TypeError):
        context.read_tensor(t, np.empty([4], np.float64))
    with pytest.raises(cppnn.TypeError):
        context.read_tensor(t, np.empty([3], np.float32))
    with pytest.raises(cppnn.TypeError):
        context.read_tensor(t, np.empty([4, 2], np.float32)[:, 0])


def pack4(values):
    """Two 4-bit values per byte, low nibble first (cppnn's int4.h layout)."""
    nibbles = [v & 0xF for v in values] + ([0] if len(values) % 2 else [])
    return np.array([nibbles[i] | (nibbles[i + 1] << 4) for i in range(0, len(nibbles), 2)],
                    np.uint8)


@pytest.mark.parametrize("dtype,values", [("int4", [-8, -1, 0, 3, 7]),
                                          ("uint4", [0, 1, 9, 15, 4])])
def test_int4_packing(context, builder, dtype, values):
    packed = pack4(values)
    assert packed.shape == (3,)
    t = context.create_tensor({"dataType": dtype, "shape": [5], "readable": True,
                               "writable": True})
    context.write_tensor(t, packed)
    back = context.read_tensor(t)
    assert back.dtype == np.uint8 and back.shape == (3,)
    np.testing.assert_array_equal(back, packed)
    # An int4 constant dequantized: (q - zero_point) * scale.
    q = builder.constant({"dataType": dtype, "shape": [5]}, packed)
    scale = builder.constant({"dataType": "float32", "shape": [5]}, np.full([5], 0.5, np.float32))
    zero = builder.constant({"dataType": dtype, "shape": [5]}, pack4([0] * 5))
    out = run(context, builder, builder.dequantizeLinear(q, scale, zero))
    np.testing.assert_array_equal(out, np.array(values, np.float32) * 0.5)
    with pytest.raises(cppnn.TypeError, match="uint8"):
        builder.constant({"dataType": dtype, "shape": [5]}, np.zeros([3], np.int8))
