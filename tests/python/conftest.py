"""Shared fixtures of the cppnn Python tests: contexts on the reference backend and on every
compiled-in backend, and small helpers to build and run graphs."""

import numpy as np
import pytest

import cppnn


@pytest.fixture
def context():
    """A context on the reference backend (runs every op for every data type)."""
    return cppnn.ml.create_context(backend="reference")


@pytest.fixture
def builder(context):
    return cppnn.MLGraphBuilder(context)


def all_backends():
    """Every compiled-in backend, the test-only ones included."""
    return cppnn.available_backends(with_test_only=True)


@pytest.fixture(params=all_backends())
def backend_context(request):
    """A context on each compiled-in backend in turn."""
    return cppnn.ml.create_context(backend=request.param)


def run(context, builder, outputs, inputs=None):
    """builds `outputs` (an operand or a dict of them) and computes it on `inputs`."""
    named = outputs if isinstance(outputs, dict) else {"out": outputs}
    graph = builder.build(named)
    results = context.compute(graph, inputs or {})
    return results if isinstance(outputs, dict) else results["out"]


def rand(shape, dtype=np.float32, low=0.1, high=1.0, seed=0):
    """Deterministic random values in [low, high) as `dtype`."""
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape).astype(dtype)
