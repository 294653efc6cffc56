"""Errors: every cppnn::Error reaches Python as the class named after its spec error, with
cppnn's message; cppnn.TypeError is also the builtin TypeError."""

import builtins

import numpy as np
import pytest

import cppnn

NAMES = ["TypeError", "InvalidStateError", "OperationError", "NotSupportedError", "UnknownError",
         "DataError", "SecurityError"]


@pytest.mark.parametrize("name", NAMES)
def test_classes(name):
    cls = getattr(cppnn, name)
    assert issubclass(cls, cppnn.Error) and issubclass(cls, Exception)
    assert cls.name == name and cls.__name__ == name and cls.__module__ == "cppnn"
    assert issubclass(cls, builtins.TypeError) == (name == "TypeError")
    assert cppnn.Error.name == "Error"


def test_type_error_names_the_op_and_label(builder):
    x = builder.input("x", {"dataType": "float32", "shape": [2, 3]})
    y = builder.input("y", {"dataType": "float32", "shape": [4]})
    with pytest.raises(cppnn.TypeError) as info:
        builder.add(x, y, label="sum")
    assert info.value.name == "TypeError"
    assert str(info.value).startswith("add [sum]:")
    with pytest.raises(TypeError):  # the builtin class catches it too
        builder.matmul(x, y)


def test_bad_arguments_are_type_errors(builder):
    x = builder.input("x", {"dataType": "float32", "shape": [2, 3]})
    with pytest.raises(cppnn.TypeError, match="unexpected keyword argument 'paddding'"):
        builder.averagePool2d(x, paddding=[0, 0, 0, 0])
    with pytest.raises(cppnn.TypeError):
        builder.reshape(x)  # newShape missing
    with pytest.raises(cppnn.TypeError):
        builder.reshape(x, [6], {}, "extra")
    with pytest.raises(cppnn.TypeError):
        builder.softmax(x, -1)  # [EnforceRange] unsigned long
    with pytest.raises(cppnn.TypeError):
        builder.relu("x")
    with pytest.raises(cppnn.TypeError):
        builder.input("z", {"dataType": "float128", "shape": [1]})
    with pytest.raises(cppnn.TypeError):
        builder.input("z", {"shape": [1]})
    with pytest.raises(cppnn.TypeError):
        builder.constant("float32")
    with pytest.raises(cppnn.TypeError):
        builder.build({"y": "not an operand"})


def test_invalid_state_after_build(context, builder):
    x = builder.input("x", {"dataType": "float32", "shape": [1]})
    builder.build({"y": builder.relu(x)})
    with pytest.raises(cppnn.InvalidStateError) as info:
        builder.relu(x)
    assert info.value.name == "InvalidStateError"


def test_invalid_state_for_destroyed_graph_and_lost_context(context, builder):
    x = builder.input("x", {"dataType": "float32", "shape": [1]})
    graph = builder.build({"y": builder.relu(x)})
    graph.destroy()
    graph.destroy()  # idempotent
    assert graph.destroyed
    with pytest.raises(cppnn.InvalidStateError):
        context.compute(graph, {"x": np.zeros([1], np.float32)})
    context.destroy()
    assert context.lost
    with pytest.raises(cppnn.InvalidStateError):
        context.create_tensor({"dataType": "float32", "shape": [1]})
    with pytest.raises(cppnn.InvalidStateError):
        cppnn.MLGraphBuilder(context)


def test_not_supported_backend():
    with pytest.raises(cppnn.NotSupportedError, match="reference") as info:
        cppnn.ml.create_context(backend="no-such-backend")
    assert info.value.name == "NotSupportedError"


def test_tensor_usage_errors(context):
    t = context.create_tensor({"dataType": "float32", "shape": [2]})
    with pytest.raises(cppnn.TypeError):
        context.write_tensor(t, np.zeros([2], np.float32))  # not writable
    with pytest.raises(cppnn.TypeError):
        context.read_tensor(t)  # not readable
    t.destroy()
    assert t.destroyed


def test_data_error_for_malformed_files(builder, tmp_path):
    bad = tmp_path / "bad.webnn"
    bad.write_text("webnn_graph \"g\" v1 {\n  inputs { x: f32[1] \n")
    with pytest.raises(cppnn.DataError) as info:
        cppnn.load_graph(builder, bad)
    assert info.value.name == "DataError"
    with pytest.raises(cppnn.DataError):
        cppnn.load_graph(builder, tmp_path / "missing.webnn")
