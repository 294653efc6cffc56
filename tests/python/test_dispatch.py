"""Execution: dispatch on every compiled-in backend, compute(), constant tensors, binding
errors, context options, and the GIL released while a graph runs."""

import threading
import time

import numpy as np
import pytest

import cppnn
from conftest import rand


def small_convnet(builder):
    """conv2d(3x3, pad 1) + bias -> relu -> maxPool2d(2x2) -> reshape -> gemm."""
    x = builder.input("x", {"dataType": "float32", "shape": [1, 2, 4, 4]})
    w = builder.constant(rand([3, 2, 3, 3], seed=3) - 0.5)
    bias = builder.constant(np.array([0.1, -0.2, 0.3], np.float32))
    y = builder.relu(builder.conv2d(x, w, padding=[1, 1, 1, 1], bias=bias))
    y = builder.maxPool2d(y, window_dimensions=[2, 2], strides=[2, 2])
    y = builder.reshape(y, [1, 12])
    return builder.gemm(y, builder.constant(rand([12, 2], seed=4)))


def numpy_convnet(x):
    w = rand([3, 2, 3, 3], seed=3) - 0.5
    bias = np.array([0.1, -0.2, 0.3], np.float32)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros([1, 3, 4, 4], np.float32)
    for i in range(4):
        for j in range(4):
            conv[0, :, i, j] = np.tensordot(w, xp[0, :, i:i + 3, j:j + 3], axes=3)
    y = np.maximum(conv + bias[None, :, None, None], 0)
    y = y.reshape(1, 3, 2, 2, 2, 2).max(axis=(3, 5)).reshape(1, 12)
    return y @ rand([12, 2], seed=4)


def test_dispatch_on_every_backend(backend_context):
    context = backend_context
    builder = cppnn.MLGraphBuilder(context)
    graph = builder.build({"y": small_convnet(builder)})
    x = rand([1, 2, 4, 4], seed=5)
    tin = context.create_tensor({"dataType": "float32", "shape": [1, 2, 4, 4], "writable": True})
    tout = context.create_tensor({"dataType": "float32", "shape": [1, 2], "readable": True})
    context.write_tensor(tin, x)
    for _ in range(3):  # tensors and graph are reusable
        context.dispatch(graph, {"x": tin}, {"y": tout})
        np.testing.assert_allclose(context.read_tensor(tout), numpy_convnet(x), rtol=1e-4,
                                   atol=1e-5)
    np.testing.assert_allclose(context.compute(graph, {"x": x})["y"], numpy_convnet(x),
                               rtol=1e-4, atol=1e-5)


def test_context_options():
    backends = cppnn.available_backends()
    assert "reference" in backends and "minimal" not in backends  # test-only: not listed
    assert set(backends) <= set(cppnn.available_backends(with_test_only=True))
    c = cppnn.ml.create_context({"powerPreference": "low-power", "backend": "reference",
                                 "numThreads": 1})
    assert c.backend == "reference" and c.accelerated is False and c.lost is False
    c = cppnn.ml.create_context({"backend": "nope"}, backend="reference")  # keywords win
    assert c.backend == "reference"
    assert cppnn.ml.create_context(power_preference="high-performance").backend == backends[0]
    with pytest.raises(cppnn.TypeError):
        cppnn.ml.create_context(power_preference="fastest")
    with pytest.raises(cppnn.TypeError):
        cppnn.ml.create_context(num_threads=-1)


def test_op_support_limits(context):
    limits = context.op_support_limits()
    assert limits["preferredInputLayout"] in ("nchw", "nhwc")
    assert "float32" in limits["conv2d"]["input"]["dataTypes"]
    assert set(limits["add"]) == {"a", "b", "output"}


def test_binding_errors(context, builder):
    x = builder.input("x", {"dataType": "float32", "shape": [2]})
    graph = builder.build({"y": builder.relu(x)})
    t = context.create_tensor({"dataType": "float32", "shape": [2], "readable": True,
                               "writable": True})
    wrong = context.create_tensor({"dataType": "float32", "shape": [3], "writable": True})
    with pytest.raises(cppnn.TypeError):
        context.dispatch(graph, {"x": wrong}, {"y": t})
    with pytest.raises(cppnn.TypeError):
        context.dispatch(graph, {"x": t}, {"y": t})  # the same tensor twice
    with pytest.raises(cppnn.TypeError):
        context.dispatch(graph, {}, {"y": t})
    with pytest.raises(cppnn.TypeError):
        context.dispatch(graph, {"x": np.zeros(2)}, {"y": t})
    with pytest.raises(cppnn.TypeError, match="no input 'z'"):
        context.compute(graph, {"x": np.zeros(2, np.float32), "z": 1})
    with pytest.raises(cppnn.TypeError, match="missing"):
        context.compute(graph, {})
    other = cppnn.ml.create_context(backend="reference")
    with pytest.raises(cppnn.TypeError):
        other.dispatch(graph, {"x": t}, {"y": t})


def test_constant_tensor(context, builder):
    data = np.arange(4, dtype=np.float32)
    ct = context.create_constant_tensor({"dataType": "float32", "shape": [4]}, data)
    assert ct.constant and not ct.readable and not ct.writable
    x = builder.input("x", {"dataType": "float32", "shape": [4]})
    graph = builder.build({"y": builder.add(x, builder.constant(ct))})
    ct.destroy()  # the graph keeps the data
    out = context.compute(graph, {"x": np.ones(4, np.float32)})["y"]
    np.testing.assert_array_equal(out, data + 1)


def test_gil_is_released_during_dispatch(context):
    """A Python thread keeps running while dispatch (and build) run in C++."""
    builder = cppnn.MLGraphBuilder(context)
    x = builder.input("x", {"dataType": "float32", "shape": [384, 384]})
    y = x
    for _ in range(12):
        y = builder.matmul(y, x)
    graph = builder.build({"y": y})
    tin = context.create_tensor({"dataType": "float32", "shape": [384, 384], "writable": True})
    tout = context.create_tensor({"dataType": "float32", "shape": [384, 384], "readable": True})
    context.write_tensor(tin, np.full([384, 384], 1 / 384, np.float32))

    ticks = [0]
    stop = threading.Event()
    started = threading.Event()

    def spin():
        started.set()
        while not stop.is_set():
            ticks[0] += 1

    thread = threading.Thread(target=spin)
    thread.start()
    started.wait()
    try:
        before = ticks[0]
        start = time.perf_counter()
        context.dispatch(graph, {"x": tin}, {"y": tout})
        elapsed = time.perf_counter() - start
        during = ticks[0] - before
    finally:
        stop.set()
        thread.join()
    # With the GIL held for the whole call the thread could tick only around the switch
    # interval (5 ms); released, it runs the whole time.
    assert elapsed > 0.02, "the graph is too small to tell"
    assert during > 1000, (during, elapsed)
    np.testing.assert_allclose(context.read_tensor(tout), 1 / 384, rtol=1e-3)
