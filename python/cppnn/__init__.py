"""cppnn: the W3C WebNN API for Python, over the C++20 library libcppnn.

    import numpy as np
    import cppnn

    context = cppnn.ml.create_context(backend="reference")
    builder = cppnn.MLGraphBuilder(context)
    x = builder.input("x", {"dataType": "float32", "shape": [2, 2]})
    y = builder.relu(builder.add(x, builder.constant(np.ones((2, 2), np.float32))))
    graph = builder.build({"y": y})
    print(context.compute(graph, {"x": np.array([[-3, 0], [1, 2]], np.float32)})["y"])

Every operation of the spec is an MLGraphBuilder method by its spec name (and a snake_case
alias) taking the spec's positional arguments, then the options as a dict and/or keywords.
Errors are cppnn.Error subclasses named after the spec's (cppnn.TypeError is also a TypeError).
"""

from ._cppnn import (
    DataError,
    Error,
    InvalidStateError,
    MLContext,
    MLGraph,
    MLGraphBuilder,
    MLOperand,
    MLTensor,
    NotSupportedError,
    OperationError,
    SecurityError,
    TypeError,
    UnknownError,
    __version__,
    available_backends,
    convert_onnx,
    create_context,
    load_graph,
    save_graph,
)


class ML:
    """The spec's `navigator.ml`: creates contexts."""

    def create_context(
        self,
        options=None,
        *,
        power_preference=None,
        accelerated=None,
        backend=None,
        num_threads=None,
    ) -> MLContext:
        """ML.createContext(options): `options` may hold powerPreference, accelerated and
        cppnn's backend and numThreads (camelCase or snake_case); keywords override it."""
        return create_context(
            options,
            power_preference=power_preference,
            accelerated=accelerated,
            backend=backend,
            num_threads=num_threads,
        )


ml = ML()

__all__ = [
    "ML",
    "DataError",
    "Error",
    "InvalidStateError",
    "MLContext",
    "MLGraph",
    "MLGraphBuilder",
    "MLOperand",
    "MLTensor",
    "NotSupportedError",
    "OperationError",
    "SecurityError",
    "TypeError",
    "UnknownError",
    "__version__",
    "available_backends",
    "convert_onnx",
    "create_context",
    "load_graph",
    "ml",
    "save_graph",
]
