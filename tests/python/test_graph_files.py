"""Graph files through the Python API: save_graph / load_graph round trips in .webnn text and
GraphJson, with big constants in a SafeTensors sidecar, text written by hand, and ONNX import."""

import os

import numpy as np
import pytest

import cppnn

ONNX_RELU = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx"


def make_graph(context):
    """x -> matmul(w) -> relu -> reshape -> conv2d(1x1): outputs y and z."""
    b = cppnn.MLGraphBuilder(context)
    x = b.input("x", {"dataType": "float32", "shape": [2, 2]})
    w = b.constant(np.array([[1, -2], [3, 4]], np.float32))
    y = b.relu(b.matmul(x, w), label="act")
    f = b.constant(np.full([1, 1, 1, 1], 0.5, np.float32))
    z = b.conv2d(b.reshape(y, [1, 1, 2, 2]), f, padding=[0, 0, 0, 0])
    return b.build({"y": y, "z": z})


X = np.array([[1, 2], [-3, 0.5]], np.float32)


def reload(context, path, **kwargs):
    b = cppnn.MLGraphBuilder(context)
    outputs = cppnn.load_graph(b, path, **kwargs)
    assert sorted(outputs) == ["y", "z"]
    assert all(isinstance(o, cppnn.MLOperand) for o in outputs.values())
    return b.build(outputs)


@pytest.mark.parametrize("suffix", [".webnn", ".json"])
@pytest.mark.parametrize("max_inline", [65536, 4])
def test_save_load_round_trip(context, tmp_path, suffix, max_inline):
    graph = make_graph(context)
    expected = context.compute(graph, {"x": X})
    path = tmp_path / ("model" + suffix)
    cppnn.save_graph(graph, path, name="demo", max_inline_bytes=max_inline)
    assert path.exists()
    assert (tmp_path / "model.safetensors").exists() == (max_inline == 4)
    loaded = reload(context, str(path))  # str or PathLike
    assert loaded.inputs == graph.inputs and loaded.outputs == graph.outputs
    got = context.compute(loaded, {"x": X})
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])


def test_explicit_weights_path(context, tmp_path):
    graph = make_graph(context)
    cppnn.save_graph(graph, tmp_path / "a.webnn", max_inline_bytes=4)
    os.rename(tmp_path / "a.safetensors", tmp_path / "other.safetensors")
    with pytest.raises(cppnn.DataError):
        reload(context, tmp_path / "a.webnn")
    loaded = reload(context, tmp_path / "a.webnn", weights=tmp_path / "other.safetensors")
    np.testing.assert_array_equal(context.compute(loaded, {"x": X})["y"],
                                  context.compute(graph, {"x": X})["y"])


def test_hand_written_text(context, builder, tmp_path):
    path = tmp_path / "hand.webnn"
    path.write_text("""webnn_graph "hand" v1 {
  inputs { x: f32[3]; }
  consts { two: f32[3] @bytes([0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 64]); }
  nodes { y = mul(x, two); }
  outputs { y; }
}
""")
    outputs = cppnn.load_graph(builder, path)
    graph = builder.build(outputs)
    out = context.compute(graph, {"x": np.array([1, 2, 3], np.float32)})["y"]
    np.testing.assert_array_equal(out, [2, 4, 6])


@pytest.mark.skipif(not os.path.exists(ONNX_RELU), reason="Debian libonnx-testdata not installed")
def test_convert_onnx(context, builder):
    result = cppnn.convert_onnx(builder, ONNX_RELU)
    assert set(result) == {"graph_name", "outputs", "input_names", "output_names", "warnings"}
    assert list(result["input_names"]) == ["x"] and list(result["output_names"]) == ["y"]
    graph = builder.build(result["outputs"])
    x = np.linspace(-1, 1, int(np.prod(graph.inputs["x"]["shape"]))).astype(np.float32)
    x = x.reshape(graph.inputs["x"]["shape"])
    np.testing.assert_array_equal(context.compute(graph, {"x": x})["y"], np.maximum(x, 0))


@pytest.mark.skipif(not os.path.exists(ONNX_RELU), reason="Debian libonnx-testdata not installed")
def test_convert_onnx_input_shapes(context, builder):
    result = cppnn.convert_onnx(builder, ONNX_RELU, input_shapes={"x": [3, 4, 5]},
                                free_dimensions={})
    assert result["outputs"]["y"].shape == [3, 4, 5]


def test_convert_onnx_malformed(builder, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(cppnn.DataError):
        cppnn.convert_onnx(builder, bad)
