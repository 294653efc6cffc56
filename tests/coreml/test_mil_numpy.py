"""Unit tests of the numpy MIL evaluator (tests/coreml/mil_numpy): ops of the basic, elementwise, activation and reduction modules against hand-computed
values, the weight blob reader (against files Apple's own milstorage writer makes) and the program
walk (consts of every kind, variadic parameters, declared-type checks, missing ops). The
checker's own rules are tested in test_check_packages.py.

Run: .venv-coreml/bin/python -m pytest -q tests/coreml/test_mil_numpy.py
"""

import logging
import os
import struct
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
logging.getLogger("coremltools").setLevel(logging.ERROR)

import mil_numpy  # noqa: E402
from mil_numpy import program  # noqa: E402
from mil_numpy.registry import OPS, Unspecified  # noqa: E402

f16, f32, i32 = np.float16, np.float32, np.int32


def op(name, **kwargs):
    """Runs registered op `name` as the evaluator does (IEEE warnings off)."""
    with np.errstate(all="ignore"):
        return OPS[name](**kwargs)


def a(values, dtype):
    return np.array(values, dtype=dtype)


def same(actual, expected):
    """Equal arrays: same dtype, shape and values (NaN equal to any NaN, the sign of zero
    checked)."""
    assert isinstance(actual, np.ndarray)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    np.testing.assert_array_equal(actual, expected)
    if actual.dtype.kind == "f":
        numbers = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(actual)[numbers], np.signbit(expected)[numbers])


# ---- basic ---------------------------------------------------------------------------------------


def test_reshape_ios17_zero_and_minus_one():
    x = np.arange(100, dtype=f32).reshape(2, 50)
    # iOS17: zeros align from the right; one with no matching dimension becomes 1.
    assert op("reshape", x=x, shape=a([1, 0, -1, 0], i32)).shape == (1, 1, 2, 50)
    assert op("reshape", x=x, shape=a([-1], i32)).shape == (100,)
    with pytest.raises(ValueError):
        op("reshape", x=x, shape=a([3, -1], i32))


def test_squeeze_expand_dims_transpose():
    x = np.zeros((1, 3, 1, 2), f16)
    assert op("squeeze", x=x).shape == (3, 2)
    assert op("squeeze", x=x, axes=a([-2], i32)).shape == (1, 3, 2)
    # A listed axis of size > 1 stays (coremltools' type inference).
    assert op("squeeze", x=x, axes=a([1, 2], i32)).shape == (1, 3, 2)
    y = np.zeros((2, 3), i32)
    assert op("expand_dims", x=y, axes=a([0, -1], i32)).shape == (1, 2, 3, 1)
    assert op("expand_dims", x=np.array(5, f32), axes=a([0], i32)).shape == (1,)
    t = op("transpose", x=np.arange(6, dtype=f32).reshape(2, 3), perm=a([1, 0], i32))
    same(t, a([[0, 3], [1, 4], [2, 5]], f32))


def test_select_fill_shape_identity():
    cond = a([True, False, True], np.bool_)
    same(op("select", cond=cond, a=a([1, 2, 3], f16), b=np.array(-1, f16)), a([1, -1, 3], f16))
    same(op("fill", shape=a([2, 1], i32)), a([[0], [0]], f32))
    same(op("fill", shape=a([3], i32), value=np.array(7, i32)), a([7, 7, 7], i32))
    same(op("shape", x=np.zeros((4, 5), f16)), a([4, 5], i32))
    same(op("identity", x=a([1.5], f32)), a([1.5], f32))


def test_cast():
    same(op("cast", x=a([1.9, -1.9, 0.5], f32), dtype="int32"), a([1, -1, 0], i32))
    same(op("cast", x=a([70000.0, -0.0], f32), dtype="fp16"), a([np.inf, -0.0], f16))
    same(op("cast", x=a([0.0, 2.0, np.nan], f32), dtype="bool"), a([False, True, True], np.bool_))
    same(op("cast", x=a([True, False], np.bool_), dtype="fp32"), a([1, 0], f32))
    same(op("cast", x=a([-128, 127], i32), dtype="int8"), a([-128, 127], np.int8))
    same(op("cast", x=a([255], np.uint8), dtype="int32"), a([255], i32))
    for bad, dtype in (([300], "int8"), ([-1], "uint8")):
        with pytest.raises(Unspecified):
            op("cast", x=a(bad, i32), dtype=dtype)
    with pytest.raises(Unspecified):
        op("cast", x=a([np.nan], f32), dtype="int32")
    with pytest.raises(Unspecified):
        op("cast", x=a([3e9], f32), dtype="int32")


# ---- elementwise binary --------------------------------------------------------------------------


def test_integer_division_rules():
    x, y = a([7, -7, 7, -7], i32), a([2, 2, -2, -2], i32)
    same(op("floor_div", x=x, y=y), a([3, -4, -4, 3], i32))
    same(op("mod", x=x, y=y), a([1, 1, -1, -1], i32))  # the sign of the divisor
    same(op("mod", x=a([-7.5], f32), y=a([2], f32)), a([0.5], f32))
    same(op("floor_div", x=a([-7.5], f16), y=a([2], f16)), a([-4], f16))
    same(op("real_div", x=a([6, -6], i32), y=a([3, 3], i32)), a([2, -2], i32))
    with pytest.raises(Unspecified):
        op("real_div", x=a([7], i32), y=a([2], i32))
    with pytest.raises(Unspecified):
        op("floor_div", x=a([1], i32), y=a([0], i32))


def test_arithmetic_in_float16_and_int32_overflow():
    # 2048 + 1 is not a float16: rounds (to even) back to 2048.
    same(op("add", x=a([2048], f16), y=a([1], f16)), a([2048], f16))
    same(op("mul", x=a([300], f16), y=a([300], f16)), a([np.inf], f16))
    same(op("sub", x=a([[1], [2]], f32), y=a([1, 2, 3], f32)), a([[0, -1, -2], [1, 0, -1]], f32))
    with pytest.raises(Unspecified):
        op("add", x=a([2**31 - 1], i32), y=a([1], i32))
    same(op("pow", x=a([2, 3], i32), y=a([10, 0], i32)), a([1024, 1], i32))
    same(op("pow", x=a([2.0], f16), y=a([-1.0], f16)), a([0.5], f16))


def test_maximum_minimum_and_comparisons():
    same(op("maximum", x=a([1, -0.0, 3], f32), y=a([2, 0.0, -1], f32)), a([2, 0.0, 3], f32))
    same(op("minimum", x=a([1, 5], i32), y=a([2, -1], i32)), a([1, -1], i32))
    with pytest.raises(Unspecified):
        op("maximum", x=a([np.nan], f32), y=a([1], f32))
    nan = a([np.nan, 1], f32)
    same(op("equal", x=nan, y=nan), a([False, True], np.bool_))
    same(op("not_equal", x=nan, y=nan), a([True, False], np.bool_))
    same(op("greater_equal", x=a([1, 2], i32), y=a([2, 2], i32)), a([False, True], np.bool_))
    t, f = np.bool_(True), np.bool_(False)
    same(op("logical_xor", x=a([t, t, f], np.bool_), y=np.array(t)), a([f, f, t], np.bool_))


# ---- elementwise unary ---------------------------------------------------------------------------


def test_round_is_half_to_even():
    same(op("round", x=a([0.5, 1.5, 2.5, -0.5, -2.7], f32)), a([0, 2, 2, -0.0, -3], f32))


def test_epsilon_defaults():
    # log: default epsilon 1e-45 is a float32 subnormal (log 0 = -103.28) and 0 in float16.
    assert op("log", x=a([0.0], f32))[0] == f32(np.log(np.float64(f32(1e-45))))
    same(op("log", x=a([0.0], f16)), a([-np.inf], f16))
    same(op("log", x=a([0.0], f32), epsilon=np.array(0, f32)), a([-np.inf], f32))
    # inverse: default epsilon 1e-4.
    same(op("inverse", x=a([1.0], f32)), a([f32(1) / (f32(1) + f32(1e-4))], f32))
    same(op("inverse", x=a([0.0], f16), epsilon=np.array(0, f32)), a([np.inf], f16))
    same(op("rsqrt", x=a([4.0], f32), epsilon=np.array(0, f16)), a([0.5], f32))


def test_unary_functions():
    same(op("exp", x=a([0, 1], f16)), a([1, np.e], f16))
    same(op("erf", x=a([0.0, 10.0, -np.inf], f32)), a([0, 1, -1], f32))
    same(op("abs", x=a([-3, 4], i32)), a([3, 4], i32))
    with pytest.raises(Unspecified):
        op("abs", x=a([-2**31], i32))
    same(op("sign", x=a([-2, 0, 5], i32)), a([-1, 0, 1], i32))
    same(op("exp2", x=a([0, 10], i32)), a([1, 1024], i32))
    same(op("square", x=a([3], f16)), a([9], f16))
    same(op("clip", x=a([-5, 0.5, 5, np.nan], f32), alpha=np.array(0, f32),
            beta=np.array(1, f32)), a([0, 0.5, 1, np.nan], f32))
    same(op("threshold", x=a([-1, 2], i32), alpha=np.array(0, i32)), a([0, 2], i32))
    same(op("logical_not", x=a([True, False], np.bool_)), a([False, True], np.bool_))
    same(op("ceil", x=a([-0.5, 1.2], f32)), a([-0.0, 2], f32))


# ---- activations ---------------------------------------------------------------------------------


def test_activations():
    x = a([-2.0, -0.5, 0.0, 1.0], f32)
    same(op("relu", x=x), a([0, 0, 0, 1], f32))
    same(op("relu6", x=a([-1, 3, 9, np.nan], f16)), a([0, 3, 6, np.nan], f16))
    same(op("leaky_relu", x=x, alpha=np.array(0.5, f16)), a([-1, -0.25, 0, 1], f32))
    same(op("elu", x=a([-1.0, 2.0], f32), alpha=np.array(2.0, f32)),
         a([2 * np.expm1(-1.0), 2.0], f32))
    same(op("sigmoid", x=a([0.0], f16)), a([0.5], f16))
    same(op("sigmoid_hard", x=x, alpha=np.array(0.5, f32), beta=np.array(0.5, f32)),
         a([0, 0.25, 0.5, 1], f32))
    same(op("linear_activation", x=x, alpha=np.array(2, f32), beta=np.array(1, f32)),
         a([-3, 0, 1, 3], f32))
    same(op("softsign", x=a([1.0, np.inf], f32)), a([0.5, np.nan], f32))
    same(op("softplus", x=a([0.0, 1000.0], f32)), a([np.log(2.0), 1000.0], f32))
    same(op("clamped_relu", x=x, alpha=np.array(2, f32), beta=np.array(0.5, f32)),
         a([-4, -1, 0, 0.5], f32))
    same(op("thresholded_relu", x=x, alpha=np.array(0.0, f32)), a([0, 0, 0, 1], f32))
    with pytest.raises(Unspecified):
        op("thresholded_relu", x=a([np.nan], f32), alpha=np.array(0.0, f32))


def test_gelu_modes():
    x = a([1.0], f32)
    exact = 0.5 * 1.0 * (1 + 0.6826894921370859)  # erf(1 / sqrt 2)
    same(op("gelu", x=x), a([exact], f32))
    same(op("gelu", x=x, mode="SIGMOID_APPROXIMATION"), a([1 / (1 + np.exp(-1.702))], f32))
    tanh = 0.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (1 + 0.044715)))
    same(op("gelu", x=x, mode="TANH_APPROXIMATION"), a([tanh], f32))


def test_softmax_and_prelu():
    s = op("softmax", x=a([[1, 2, 3], [0, 0, 0]], f32), axis=np.array(1, i32))
    e = np.exp([1.0, 2.0, 3.0])
    same(s, a([e / e.sum(), [1 / 3] * 3], f32))
    x = a([[[-1, 2]], [[-3, 4]]], f32).reshape(1, 2, 2)  # [B=1, C=2, 2]
    same(op("prelu", x=x, alpha=a([0.5, 2.0], f32)), a([[[-0.5, 2], [-6, 4]]], f32))


# ---- reductions ----------------------------------------------------------------------------------


def test_reductions():
    x = np.arange(1, 7, dtype=f32).reshape(2, 3)
    same(op("reduce_sum", x=x, axes=a([1], i32)), a([6, 15], f32))
    same(op("reduce_sum", x=x, axes=a([-2], i32), keep_dims=np.bool_(True)), a([[5, 7, 9]], f32))
    same(op("reduce_sum", x=x), np.array(21, f32))
    same(op("reduce_prod", x=x, axes=a([0], i32)), a([4, 10, 18], f32))
    same(op("reduce_mean", x=x, axes=a([1], i32)), a([2, 5], f32))
    same(op("reduce_max", x=a([[1, np.nan], [3, 2]], f32), axes=a([1], i32)), a([np.nan, 3], f32))
    same(op("reduce_l1_norm", x=a([-3, 4], i32)), np.array(7, i32))
    same(op("reduce_l2_norm", x=a([3, -4], f16)), np.array(5, f16))
    same(op("reduce_sum_square", x=a([[1, 2], [3, 4]], i32), axes=a([1], i32)), a([5, 25], i32))
    same(op("reduce_log_sum", x=a([1, 2], f32)), np.array(np.log(3.0), f32))
    same(op("reduce_log_sum_exp", x=a([0, 0], f32)), np.array(np.log(2.0), f32))
    # MIL's shifted form subtracts an infinite maximum too.
    same(op("reduce_log_sum_exp", x=a([np.inf, 0], f32)), np.array(np.nan, f32))
    with pytest.raises(Unspecified):
        op("reduce_mean", x=a([1, 2], i32))
    with pytest.raises(Unspecified, match="empty axes"):
        op("reduce_sum", x=x, axes=np.zeros(0, i32))


def test_float16_sums_round_every_partial_sum():
    # 256 ones then 2048: pairwise in float16, 2048 + 256 is exact; the mean of 300 values of
    # 0.1 in float16 (1/1024 ULP) differs from the float64 mean.
    x = np.full(4, 60000, f16)
    same(op("reduce_sum", x=x), np.array(np.inf, f16))  # 120000 overflows float16
    same(op("reduce_l2_norm", x=a([300, 300], f16)), np.array(np.inf, f16))  # 90000 overflows
    same(op("reduce_l2_norm", x=a([300, 300], f32)), np.array(np.float32(np.sqrt(180000.0)), f32))
    same(op("reduce_sum", x=a([-0.0, -0.0, -0.0], f32)), np.array(-0.0, f32))


def test_arg_reductions():
    x = a([[1, 5, 2], [7, 0, 3]], f32)
    same(op("reduce_argmax", x=x, axis=np.array(1, i32)), a([1, 0], i32))
    same(op("reduce_argmin", x=x, axis=np.array(0, i32), keep_dims=np.bool_(True)),
         a([[0, 1, 0]], i32))
    same(op("reduce_argmax", x=x, output_dtype="uint16"), a([1, 0], np.uint16))
    with pytest.raises(Unspecified):
        op("reduce_argmax", x=a([3, 1, 3], i32))
    with pytest.raises(Unspecified):
        op("reduce_argmin", x=a([np.nan, 1], f32))


def test_cumsum():
    x = a([[1, 2, 3], [4, 5, 6]], i32)
    same(op("cumsum", x=x, axis=np.array(1, i32)), a([[1, 3, 6], [4, 9, 15]], i32))
    same(op("cumsum", x=x, axis=np.array(1, i32), exclusive=np.bool_(True)),
         a([[0, 1, 3], [0, 4, 9]], i32))
    same(op("cumsum", x=x, axis=np.array(-1, i32), exclusive=np.bool_(True),
            reverse=np.bool_(True)), a([[5, 3, 0], [11, 6, 0]], i32))
    same(op("cumsum", x=x), a([[1, 2, 3], [5, 7, 9]], i32))
    # Sequential float16 sums: 2048 + 1 rounds back to 2048 at every step.
    same(op("cumsum", x=a([2048, 1, 1], f16)), a([2048, 2048, 2048], f16))


# ---- the weight blob -----------------------------------------------------------------------------


def write_blob(path, blobs):
    """A weight file in the storage format: [(blob data type code, bytes)] -> metadata offsets."""
    data = bytearray(64)
    struct.pack_into("<II", data, 0, len(blobs), 2)
    offsets = []
    for code, payload in blobs:
        data.extend(b"\0" * (-len(data) % 64))
        meta = len(data)
        data.extend(struct.pack("<IIQQ", 0xDEADBEEF, code, len(payload), meta + 64))
        data.extend(b"\0" * (64 - 24))
        data.extend(payload)
        offsets.append(meta)
    with open(path, "wb") as f:
        f.write(bytes(data))
    return offsets


def test_blob_reader(tmp_path):
    path = str(tmp_path / "weight.bin")
    halves = a([1.5, -2, 65504], f16)
    ints = a([7, -8, 9, 10, 11], i32)
    o1, o2 = write_blob(path, [(1, halves.tobytes()), (14, ints.tobytes())])
    blob = program.BlobFile(path)
    same(blob.read(o1, 10, 3), halves)
    same(blob.read(o2, 23, 5), ints)
    with pytest.raises(program.EvalError, match="holds fp16"):
        blob.read(o1, 11, 3)  # an fp32 const naming an fp16 blob
    with pytest.raises(program.EvalError, match="bytes for"):
        blob.read(o2, 23, 4)
    with pytest.raises(program.EvalError, match="sentinel"):
        blob.read(o1 + 64, 10, 3)


def test_blob_reader_reads_apples_writer(tmp_path):
    """Blobs written by coremltools' milstorage (Apple's C++ writer) read back the same."""
    from coremltools.libmilstoragepython import _BlobStorageWriter
    path = str(tmp_path / "weight.bin")
    writer = _BlobStorageWriter(path)
    values = {
        10: np.linspace(-3, 3, 17).astype(f16),
        11: np.linspace(-1, 1, 33).astype(f32),
        21: a([-128, 0, 127], np.int8),
        31: a([0, 200, 255], np.uint8),
    }
    offsets = {
        10: writer.write_fp16_data(values[10].view(np.uint16)),
        11: writer.write_float_data(values[11]),
        21: writer.write_int8_data(values[21]),
        31: writer.write_uint8_data(values[31]),
    }
    del writer  # flushes the file
    blob = program.BlobFile(path)
    for code, v in values.items():
        same(blob.read(offsets[code], code, v.size), v)


# ---- the program walk ----------------------------------------------------------------------------


def tensor_type(vt, code, shape):
    vt.tensorType.dataType = code
    vt.tensorType.rank = len(shape)
    for d in shape:
        vt.tensorType.dimensions.add().constant.size = d


def new_model():
    from coremltools.proto import Model_pb2
    m = Model_pb2.Model()
    m.specificationVersion = 8
    f = m.mlProgram.functions["main"]
    f.opset = "CoreML7"
    return m, f, f.block_specializations["CoreML7"]


def add_const(block, name, code, shape, fill):
    o = block.operations.add()
    o.type = "const"
    out = o.outputs.add()
    out.name = name
    tensor_type(out.type, code, shape)
    val = o.attributes["val"]
    tensor_type(val.type, code, shape)
    fill(val)


def add_op(block, op_type, params, name, code, shape):
    o = block.operations.add()
    o.type = op_type
    for p, names in params.items():
        for n in ([names] if isinstance(names, str) else names):
            o.inputs[p].arguments.add().name = n
    out = o.outputs.add()
    out.name = name
    tensor_type(out.type, code, shape)


def test_program_consts_and_ops(tmp_path):
    (tmp_path / "weights").mkdir()
    ws = np.arange(12, dtype=f32).reshape(3, 4)
    (offset,) = write_blob(str(tmp_path / "weights" / "weight.bin"), [(2, ws.tobytes())])
    m, f, block = new_model()
    x = f.inputs.add()
    x.name = "x"
    tensor_type(x.type, 11, [3, 4])

    def floats(v):
        v.immediateValue.tensor.floats.values.extend([0.5] * 4)

    def halves(v):
        v.immediateValue.tensor.bytes.values = a([1, 2], f16).tobytes()

    def blobv(v):
        v.blobFileValue.fileName = "@model_path/weights/weight.bin"
        v.blobFileValue.offset = offset

    add_const(block, "w", 11, [3, 4], blobv)
    add_const(block, "b", 11, [4], floats)
    add_const(block, "h", 10, [2], halves)
    add_const(block, "axes", 23, [1], lambda v: v.immediateValue.tensor.ints.values.append(1))
    add_const(block, "keep", 1, [], lambda v: v.immediateValue.tensor.bools.values.append(True))
    add_const(block, "dt", 2, [], lambda v: v.immediateValue.tensor.strings.values.append("fp16"))
    add_op(block, "add", {"x": "x", "y": "w"}, "s", 11, [3, 4])
    add_op(block, "add", {"x": "s", "y": "b"}, "t", 11, [3, 4])
    add_op(block, "reduce_sum", {"x": "t", "axes": "axes", "keep_dims": "keep"}, "r", 11, [3, 1])
    add_op(block, "cast", {"x": "r", "dtype": "dt"}, "out", 10, [3, 1])
    block.outputs.extend(["out", "h"])
    xv = np.ones((3, 4), f32)
    out = program.evaluate(m, {"x": xv}, str(tmp_path / "weights"))
    same(out["out"], ((xv + ws + 0.5).sum(axis=1, keepdims=True)).astype(f16))
    same(out["h"], a([1, 2], f16))

    # A declared type that differs from the result is an error naming the op.
    block.operations[-1].outputs[0].type.tensorType.dimensions[0].constant.size = 4
    with pytest.raises(program.EvalError, match=r"cast -> out: output out: float16\[3, 1\]"):
        program.evaluate(m, {"x": xv}, str(tmp_path / "weights"))
    # An input of the wrong type too.
    with pytest.raises(program.EvalError, match="input x"):
        program.evaluate(m, {"x": xv.astype(f16)}, str(tmp_path / "weights"))


def test_program_variadic_unknown_and_unspecified(monkeypatch):
    m, f, block = new_model()
    for name in ("p", "q"):
        i = f.inputs.add()
        i.name = name
        tensor_type(i.type, 23, [2])
    seen = {}

    def fake(values, axis=None):
        seen["values"] = values
        return np.concatenate(values)

    monkeypatch.setitem(OPS, "test_concat", fake)
    monkeypatch.setitem(program.VARIADIC, "test_concat", {"values"})
    add_op(block, "test_concat", {"values": ["p"]}, "one", 23, [2])
    add_op(block, "test_concat", {"values": ["p", "q"]}, "two", 23, [4])
    block.outputs.extend(["two"])
    out = program.evaluate(m, {"p": a([1, 2], i32), "q": a([3, 4], i32)}, None)
    same(out["two"], a([1, 2, 3, 4], i32))
    assert isinstance(seen["values"], list)

    add_op(block, "no_such_op", {"x": "p"}, "z", 23, [2])
    with pytest.raises(program.NotEvaluated, match="not evaluated: MIL op no_such_op"):
        program.evaluate(m, {"p": a([1, 2], i32), "q": a([3, 4], i32)}, None)
    del block.operations[-1]
    add_op(block, "reduce_argmax", {"x": "p"}, "arg", 23, [])
    with pytest.raises(program.EvalError, match="not specified by MIL: reduce_argmax: ties"):
        program.evaluate(m, {"p": a([5, 5], i32), "q": a([3, 4], i32)}, None)


def test_variadic_table_matches_coremltools():
    """program.VARIADIC lists every TupleInputType parameter of coremltools' ops."""
    import coremltools  # noqa: F401  (registers the ops)
    from coremltools.converters.mil.mil import TupleInputType
    from coremltools.converters.mil.mil.ops.registry import SSAOpRegistry
    found = {}
    for name, versions in SSAOpRegistry.core_ops.items():  # op name -> {target: class}
        for cls in versions.values():
            for p, t in cls.input_spec.input_types.items():
                if isinstance(t, TupleInputType):
                    found.setdefault(name, set()).add(p)
    assert found == program.VARIADIC


def test_every_module_registers_only_mil_ops():
    """Every registered name is an op coremltools knows (a typo would never be called)."""
    import coremltools  # noqa: F401
    from coremltools.converters.mil.mil.ops.registry import SSAOpRegistry
    assert sorted(set(mil_numpy.OPS) - set(SSAOpRegistry.core_ops)) == []
