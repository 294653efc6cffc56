"""Every builder operation from Python: all 95 of ops.def run once with minimal valid arguments
(table below, checked to cover op_support_limits()), spec and snake_case names, options as a dict
and/or keywords (camelCase or snake_case), operand-valued options, exact 64-bit integers and
non-finite numbers, and values checked against numpy for each family."""

import ast
import math
import pathlib

import numpy as np
import pytest

import cppnn
from conftest import rand, run


def f32(b, name, shape):
    return b.input(name, {"dataType": "float32", "shape": list(shape)})


def const(b, dtype, shape, value=0):
    return b.constant(np.full(shape, value, dtype))


def unary(op):
    return lambda b: getattr(b, op)(f32(b, "x", [2, 3]))


def binary(op):
    return lambda b: getattr(b, op)(f32(b, "a", [2, 3]), f32(b, "b", [2, 3]))


def logical(op):
    return lambda b: getattr(b, op)(const(b, np.uint8, [2, 3], 1), const(b, np.uint8, [2, 3]))


# op -> a call with minimal valid arguments.
CALLS = {
    "argMin": lambda b: b.argMin(f32(b, "x", [2, 3]), 1),
    "argMax": lambda b: b.argMax(f32(b, "x", [2, 3]), 0, keep_dimensions=True),
    "batchNormalization": lambda b: b.batchNormalization(
        f32(b, "x", [1, 2, 3, 3]), f32(b, "m", [2]), f32(b, "v", [2]),
        scale=f32(b, "s", [2]), bias=f32(b, "bias", [2])),
    "cast": lambda b: b.cast(f32(b, "x", [2, 3]), "int32"),
    "clamp": lambda b: b.clamp(f32(b, "x", [2, 3]), minValue=0.2, max_value=0.8),
    "concat": lambda b: b.concat([f32(b, "x", [2, 3]), f32(b, "y", [1, 3])], 0),
    "conv2d": lambda b: b.conv2d(f32(b, "x", [1, 2, 3, 3]), f32(b, "w", [1, 2, 1, 1]),
                                 {"padding": [1, 1, 1, 1]}, bias=f32(b, "bias", [1])),
    "convTranspose2d": lambda b: b.convTranspose2d(f32(b, "x", [1, 2, 3, 3]),
                                                   f32(b, "w", [2, 1, 2, 2])),
    "cumulativeSum": lambda b: b.cumulativeSum(f32(b, "x", [2, 3]), 1, exclusive=True),
    "dequantizeLinear": lambda b: b.dequantizeLinear(
        const(b, np.int8, [2, 3], 3), f32(b, "s", [2, 3]), const(b, np.int8, [2, 3], 1)),
    "quantizeLinear": lambda b: b.quantizeLinear(
        f32(b, "x", [2, 3]), f32(b, "s", [2, 3]), const(b, np.uint8, [2, 3], 2)),
    "elu": lambda b: b.elu(f32(b, "x", [2, 3]), alpha=0.5),
    "expand": lambda b: b.expand(f32(b, "x", [1, 3]), [2, 3]),
    "gather": lambda b: b.gather(f32(b, "x", [3, 3]), const(b, np.int32, [2]), axis=1),
    "gatherElements": lambda b: b.gatherElements(f32(b, "x", [3, 3]), const(b, np.int32, [2, 3])),
    "gatherND": lambda b: b.gatherND(f32(b, "x", [3, 3]), const(b, np.int32, [2, 2])),
    "gemm": lambda b: b.gemm(f32(b, "a", [3, 2]), f32(b, "b", [3, 4]), a_transpose=True,
                             c=f32(b, "c", [4])),
    "gru": lambda b: b.gru(f32(b, "x", [1, 1, 2]), f32(b, "w", [1, 6, 2]), f32(b, "r", [1, 6, 2]),
                           1, 2, return_sequence=True),
    "gruCell": lambda b: b.gruCell(f32(b, "x", [1, 2]), f32(b, "w", [6, 2]), f32(b, "r", [6, 2]),
                                   f32(b, "h", [1, 2]), 2),
    "hardSigmoid": lambda b: b.hardSigmoid(f32(b, "x", [2, 3]), alpha=0.1, beta=0.4),
    "instanceNormalization": lambda b: b.instanceNormalization(f32(b, "x", [1, 2, 3, 3])),
    "layerNormalization": lambda b: b.layerNormalization(f32(b, "x", [2, 3]), axes=[1]),
    "leakyRelu": lambda b: b.leakyRelu(f32(b, "x", [2, 3]), alpha=0.2),
    "linear": lambda b: b.linear(f32(b, "x", [2, 3]), alpha=2, beta=1),
    "lstm": lambda b: b.lstm(f32(b, "x", [1, 1, 2]), f32(b, "w", [1, 8, 2]),
                             f32(b, "r", [1, 8, 2]), 1, 2),
    "lstmCell": lambda b: b.lstmCell(f32(b, "x", [1, 2]), f32(b, "w", [8, 2]), f32(b, "r", [8, 2]),
                                     f32(b, "h", [1, 2]), f32(b, "c", [1, 2]), 2),
    "matmul": lambda b: b.matmul(f32(b, "a", [2, 3]), f32(b, "b", [3, 4])),
    "pad": lambda b: b.pad(f32(b, "x", [2, 3]), [1, 0], [0, 2], mode="edge"),
    "averagePool2d": lambda b: b.averagePool2d(f32(b, "x", [1, 2, 3, 3]), window_dimensions=[2, 2]),
    "l2Pool2d": lambda b: b.l2Pool2d(f32(b, "x", [1, 2, 3, 3])),
    "maxPool2d": lambda b: b.maxPool2d(f32(b, "x", [1, 3, 3, 2]), layout="nhwc"),
    "prelu": lambda b: b.prelu(f32(b, "x", [2, 3]), f32(b, "s", [3])),
    "resample2d": lambda b: b.resample2d(f32(b, "x", [1, 1, 2, 2]), scales=[2.0, 2.0],
                                         mode="linear"),
    "reshape": lambda b: b.reshape(f32(b, "x", [2, 3]), [3, 2]),
    "reverse": lambda b: b.reverse(f32(b, "x", [2, 3]), axes=[0]),
    "scatterElements": lambda b: b.scatterElements(f32(b, "x", [3, 3]), const(b, np.int32, [2, 3]),
                                                   f32(b, "u", [2, 3])),
    "scatterND": lambda b: b.scatterND(f32(b, "x", [3, 3]), const(b, np.int32, [2, 1]),
                                       f32(b, "u", [2, 3])),
    "slice": lambda b: b.slice(f32(b, "x", [3, 3]), [0, 1], [2, 2], strides=[1, 1]),
    "softmax": lambda b: b.softmax(f32(b, "x", [2, 3]), 1),
    "split": lambda b: b.split(f32(b, "x", [4, 3]), 2),
    "tile": lambda b: b.tile(f32(b, "x", [2, 3]), [2, 1]),
    "transpose": lambda b: b.transpose(f32(b, "x", [2, 3]), permutation=[1, 0]),
    "triangular": lambda b: b.triangular(f32(b, "x", [3, 3]), upper=False, diagonal=-1),
    "where": lambda b: b.where(const(b, np.uint8, [2, 3], 1), f32(b, "x", [2, 3]),
                               f32(b, "y", [2, 3])),
}
for _op in ["add", "sub", "mul", "div", "max", "min", "pow", "equal", "notEqual", "greater",
            "greaterOrEqual", "lesser", "lesserOrEqual"]:
    CALLS[_op] = binary(_op)
for _op in ["logicalAnd", "logicalOr", "logicalXor"]:
    CALLS[_op] = logical(_op)
CALLS["logicalNot"] = lambda b: b.logicalNot(const(b, np.uint8, [2, 3]))
for _op in ["isNaN", "isInfinite", "abs", "ceil", "cos", "erf", "exp", "floor", "identity", "log",
            "neg", "reciprocal", "roundEven", "sin", "sign", "sqrt", "tan", "gelu", "hardSwish",
            "relu", "sigmoid", "softplus", "softsign", "tanh", "reduceL1", "reduceL2",
            "reduceLogSum", "reduceLogSumExp", "reduceMax", "reduceMean", "reduceMin",
            "reduceProduct", "reduceSum", "reduceSumSquare"]:
    CALLS[_op] = unary(_op)

LIST_OPS = {"split", "gru", "lstm", "lstmCell"}


def op_names():
    context = cppnn.ml.create_context(backend="reference")
    limits = context.op_support_limits()
    globals_ = {"preferredInputLayout", "maxTensorByteLength", "input", "constant", "output"}
    return [k for k in limits if k not in globals_]


def test_the_table_covers_every_op():
    names = op_names()
    assert len(names) == 95
    assert sorted(CALLS) == sorted(names)


@pytest.mark.parametrize("op", sorted(CALLS))
def test_every_op_builds_and_runs(context, builder, op):
    result = CALLS[op](builder)
    outputs = result if isinstance(result, list) else [result]
    assert isinstance(result, list) == (op in LIST_OPS)
    named = {f"out{i}": o for i, o in enumerate(outputs)}
    graph = builder.build(named)
    inputs = {name: rand(d["shape"]) for name, d in graph.inputs.items()}
    results = context.compute(graph, inputs)
    for name, operand in named.items():
        assert list(results[name].shape) == operand.shape
        assert results[name].dtype == np.dtype(operand.data_type)


def camel_to_snake(name):
    if name == "isNaN":
        return "is_nan"
    out = ""
    for i, c in enumerate(name):
        if i and c.isupper() and (name[i - 1].islower() or name[i - 1].isdigit()):
            out += "_"
        out += c.lower()
    return out


@pytest.mark.parametrize("op", sorted(CALLS))
def test_snake_case_aliases(op):
    snake = camel_to_snake(op)
    assert hasattr(cppnn.MLGraphBuilder, op) and hasattr(cppnn.MLGraphBuilder, snake)


def stub_methods():
    """MLGraphBuilder's methods in the installed type stub: name -> ast.FunctionDef."""
    stub = pathlib.Path(cppnn.__file__).with_name("_cppnn.pyi")
    tree = ast.parse(stub.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MLGraphBuilder")
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}


def test_positional_names_match_the_operand_roles(context):
    """The signatures' operand parameters are the spec's: the first roles of opSupportLimits."""
    methods = stub_methods()
    limits = context.op_support_limits()
    for op in op_names():
        params = [a.arg for a in methods[op].args.args[1:]]
        assert params[-1] == "options"
        operands = [a.arg for a in methods[op].args.args[1:]
                    if ast.unparse(a.annotation) in ("MLOperand", "Sequence[MLOperand]")]
        roles = list(limits[op])
        assert operands == roles[:len(operands)], op
        assert roles[len(operands)].startswith("output") or roles[len(operands)] not in operands


def test_options_dict_keywords_and_snake_case(context, builder):
    x = f32(builder, "x", [1, 1, 4, 4])
    w = builder.constant(np.ones([1, 1, 2, 2], np.float32))
    a = builder.conv2d(x, w, {"strides": [2, 2]})
    b = builder.conv2d(x, w, strides=[2, 2])
    c = builder.conv2d(x, w, {"strides": [1, 1]}, strides=[2, 2])  # keywords win
    d = builder.conv2d(x, w, {"input_layout": "nchw", "filter_layout": "oihw"}, strides=[2, 2])
    e = builder.conv2d(input=x, filter=w, strides=[2, 2])
    f = builder.conv2d(x, w, options={"strides": [2, 2]})
    for o in (a, b, c, d, e, f):
        assert o.shape == [1, 1, 2, 2]
    nhwc = builder.conv2d(f32(builder, "y", [1, 4, 4, 1]), builder.constant(
        np.ones([2, 2, 1, 1], np.float32)), input_layout="nhwc", filterLayout="hwio")
    assert nhwc.shape == [1, 3, 3, 1]
    xi = rand([1, 1, 4, 4])
    out = run(context, builder, {"a": a, "e": e, "nhwc": nhwc}, {"x": xi, "y": rand([1, 4, 4, 1])})
    expected = xi.reshape(2, 2, 2, 2).sum(axis=(1, 3)).reshape(1, 1, 2, 2)
    np.testing.assert_allclose(out["a"], expected, rtol=1e-6)
    np.testing.assert_array_equal(out["a"], out["e"])


def test_snake_case_methods_and_positional_keywords(builder):
    x = f32(builder, "x", [2, 3])
    assert builder.reduce_sum(x, keep_dimensions=True).shape == [1, 1]
    assert builder.reshape(x, new_shape=[6]).shape == [6]
    assert builder.reshape(x, newShape=[3, 2]).shape == [3, 2]
    with pytest.raises(cppnn.TypeError, match="multiple values"):
        builder.reshape(x, [6], new_shape=[6])
    mean = f32(builder, "m", [3])
    assert builder.batch_normalization(x, mean, mean, axis=1).shape == [2, 3]
    assert builder.is_nan(x).data_type == "uint8"
    parts = builder.split(x, [1, 2], axis=1)
    assert [p.shape for p in parts] == [[2, 1], [2, 2]]


def test_unknown_dict_keys_are_ignored_like_webidl(builder):
    x = f32(builder, "x", [2, 3])
    assert builder.relu(x, {"noSuchOption": 1}).shape == [2, 3]


def test_label_appears_in_errors(builder):
    x = f32(builder, "x", [2, 3])
    with pytest.raises(cppnn.TypeError, match=r"^softmax \[my label\]"):
        builder.softmax(x, 5, label="my label")


def test_exact_64_bit_integers(context, builder):
    big = 2**60 + 1  # not a double
    neg = -(2**62) - 3
    out = run(context, builder, {
        "big": builder.identity(builder.constant("int64", big)),
        "neg": builder.identity(builder.constant("int64", neg)),
        "umax": builder.identity(builder.constant("uint64", 2**64 - 1)),
        "clamped": builder.clamp(builder.constant(np.array([2**61, -(2**61)], np.int64)),
                                 min_value=-(2**53) - 1, max_value=2**53 + 1),
    })
    assert int(out["big"]) == big and int(out["neg"]) == neg
    assert int(out["umax"]) == 2**64 - 1
    assert out["clamped"].tolist() == [2**53 + 1, -(2**53) - 1]


def test_non_finite_numbers_pass_through(context, builder):
    x = f32(builder, "x", [3])
    y = builder.clamp(x, min_value=float("-inf"), max_value=float("inf"))
    out = run(context, builder, {
        "y": y,
        "nan": builder.identity(builder.constant("float32", float("nan"))),
        "inf": builder.identity(builder.constant("float16", math.inf)),
        "pad": builder.pad(x, [1], [1], value=float("nan")),
        "npy": builder.identity(builder.constant("float32", np.float32(2.5))),
    }, {"x": np.array([-1e30, 0, 1e30], np.float32)})
    np.testing.assert_array_equal(out["y"], np.array([-1e30, 0, 1e30], np.float32))
    assert math.isnan(out["nan"]) and out["inf"] == np.inf and out["inf"].dtype == np.float16
    assert math.isnan(out["pad"][0]) and math.isnan(out["pad"][-1])
    assert out["npy"] == 2.5


def test_values_against_numpy(context, builder):
    """One op of each family, checked against numpy."""
    a, m = rand([2, 3], seed=1), rand([3, 4], seed=2)
    x = f32(builder, "a", [2, 3])
    w = f32(builder, "m", [3, 4])
    outputs = {
        "sub": builder.sub(x, builder.constant(np.float32(0.5))),
        "matmul": builder.matmul(x, w),
        "softmax": builder.softmax(x, 1),
        "transpose": builder.transpose(x),
        "reduce": builder.reduceSum(x, axes=[1]),
        "gather": builder.gather(x, builder.constant(np.array([2, 0], np.uint32)), axis=1),
        "cast": builder.cast(builder.mul(x, builder.constant("float32", 10)), "int32"),
        "greater": builder.greater(x, builder.constant("float32", 0.5)),
        "tanh": builder.tanh(x),
        "concat": builder.concat([x, x], 1),
    }
    out = run(context, builder, outputs, {"a": a, "m": m})
    np.testing.assert_allclose(out["sub"], a - 0.5, rtol=1e-6)
    np.testing.assert_allclose(out["matmul"], a @ m, rtol=1e-5)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out["softmax"], e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(out["transpose"], a.T)
    np.testing.assert_allclose(out["reduce"], a.sum(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(out["gather"], a[:, [2, 0]])
    np.testing.assert_array_equal(out["cast"], (a * 10).astype(np.int32))
    np.testing.assert_array_equal(out["greater"], (a > 0.5).astype(np.uint8))
    np.testing.assert_allclose(out["tanh"], np.tanh(a), rtol=1e-5)
    np.testing.assert_array_equal(out["concat"], np.concatenate([a, a], 1))
