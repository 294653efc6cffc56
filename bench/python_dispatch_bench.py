#!/usr/bin/env python3
"""Python dispatch overhead: microseconds per MLContext.dispatch() call from Python against the
same dispatch called in a C++ loop (MLContext._cpp_dispatch_us, no Python in between), on small
graphs where the overhead dominates, for each compiled-in backend. Also times compute() (tensor
creation + write + dispatch + read, the convenience path). Prints a table and writes
reports/bench-python-dispatch.json.

    .venv/bin/python bench/python_dispatch_bench.py [--iterations N] [--repeats R]
"""

import argparse
import json
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

import cppnn

ROOT = pathlib.Path(__file__).resolve().parent.parent


def add_graph(builder):
    """add of two float32 [2, 2] inputs."""
    a = builder.input("a", {"dataType": "float32", "shape": [2, 2]})
    b = builder.input("b", {"dataType": "float32", "shape": [2, 2]})
    return {"y": builder.add(a, b)}


def matmul_graph(builder):
    """matmul of a float32 [4, 4] input by a constant [4, 4]."""
    a = builder.input("a", {"dataType": "float32", "shape": [4, 4]})
    w = builder.constant(np.eye(4, dtype=np.float32))
    return {"y": builder.matmul(a, w)}


GRAPHS = {"add_2x2": add_graph, "matmul_4x4": matmul_graph}


def python_dispatch_us(context, graph, inputs, outputs, iterations):
    dispatch = context.dispatch
    start = time.perf_counter_ns()
    for _ in range(iterations):
        dispatch(graph, inputs, outputs)
    return (time.perf_counter_ns() - start) / iterations / 1000


def compute_us(context, graph, values, iterations):
    start = time.perf_counter_ns()
    for _ in range(iterations):
        context.compute(graph, values)
    return (time.perf_counter_ns() - start) / iterations / 1000


def bench(backend, name, make, iterations, repeats):
    context = cppnn.ml.create_context(backend=backend)
    builder = cppnn.MLGraphBuilder(context)
    graph = builder.build(make(builder))
    values, inputs, outputs = {}, {}, {}
    for n, d in graph.inputs.items():
        values[n] = np.ones(d["shape"], np.float32)
        inputs[n] = context.create_tensor({**d, "writable": True})
        context.write_tensor(inputs[n], values[n])
    for n, d in graph.outputs.items():
        outputs[n] = context.create_tensor({**d, "readable": True})
    # warm up both paths
    python_dispatch_us(context, graph, inputs, outputs, max(1, iterations // 10))
    context._cpp_dispatch_us(graph, inputs, outputs, max(1, iterations // 10))
    py, cpp, comp = [], [], []
    for _ in range(repeats):  # interleaved, the median of each
        py.append(python_dispatch_us(context, graph, inputs, outputs, iterations))
        cpp.append(context._cpp_dispatch_us(graph, inputs, outputs, iterations))
        comp.append(compute_us(context, graph, values, max(1, iterations // 10)))
    py_us, cpp_us = statistics.median(py), statistics.median(cpp)
    return {
        "backend": backend,
        "graph": name,
        "iterations": iterations,
        "repeats": repeats,
        "python_dispatch_us": round(py_us, 3),
        "cpp_dispatch_us": round(cpp_us, 3),
        "overhead_us": round(py_us - cpp_us, 3),
        "ratio": round(py_us / cpp_us, 3) if cpp_us > 0 else None,
        "python_compute_us": round(statistics.median(comp), 3),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", default=str(ROOT / "reports" / "bench-python-dispatch.json"))
    args = parser.parse_args()

    results = []
    print(f"{'backend':<10} {'graph':<11} {'python us':>10} {'c++ us':>8} {'overhead':>9} "
          f"{'ratio':>6} {'compute us':>11}")
    for backend in cppnn.available_backends():
        for name, make in GRAPHS.items():
            r = bench(backend, name, make, args.iterations, args.repeats)
            results.append(r)
            print(f"{backend:<10} {name:<11} {r['python_dispatch_us']:>10.2f} "
                  f"{r['cpp_dispatch_us']:>8.2f} {r['overhead_us']:>9.2f} {r['ratio']:>6.2f} "
                  f"{r['python_compute_us']:>11.2f}")
    report = {
        "benchmark": "python-dispatch",
        "description": "us per MLContext.dispatch() from Python vs the same dispatch in a C++ "
                       "loop; compute() = create tensors + write + dispatch + read",
        "cppnn_version": cppnn.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "results": results,
    }
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
