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

Text generation with small language models (GGUF llama/qwen2 models and converted ones):

    for piece in cppnn.generate("SmolLM2-135M-Instruct.Q4_1.gguf", "What is WebNN?", chat=True,
                                max_tokens=64):
        print(piece, end="", flush=True)

or, holding the model and a conversation: model = cppnn.LanguageModel.load(path);
generator = cppnn.Generator(model); generator.chat(messages) is an iterator of text pieces whose
.result has the text, tokens, finish reason and timings.
"""

import os
from collections.abc import Mapping, Sequence
from typing import Any, Union

from ._cppnn import (
    DataError,
    Error,
    GenerationResult,
    GenerationStream,
    Generator,
    InvalidStateError,
    LanguageModel,
    LanguageModelInfo,
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

# The keyword arguments of generate() that go to LanguageModel.load().
_LOAD_OPTIONS = ("backend", "threads", "context_length", "prefill_chunk", "tokenizer",
                 "chat_template")


def load_model(
    path: Union[str, "os.PathLike[str]"],
    backend: Union[str, None] = None,
    threads: int = 0,
    context_length: int = 0,
    prefill_chunk: int = 0,
    tokenizer: Union[str, "os.PathLike[str]", None] = None,
    chat_template: Union[str, "os.PathLike[str]", None] = None,
) -> LanguageModel:
    """LanguageModel.load(): a .gguf, a converted .webnn or an .onnx language model."""
    return LanguageModel.load(path, backend, threads, context_length, prefill_chunk, tokenizer,
                              chat_template)


def generate(
    model_or_path: Union[LanguageModel, str, "os.PathLike[str]"],
    prompt: Union[str, Sequence[Mapping[str, str]]],
    *,
    chat: bool = False,
    **options: Any,
) -> GenerationStream:
    """Generates text for `prompt` with a model (a LanguageModel, or a path loaded with the
    keywords backend, threads, context_length, prefill_chunk, tokenizer, chat_template) on a new
    Generator, and returns the iterator of its text pieces (its .result once it has ended;
    closing it cancels). With chat=True the prompt is a user message, or a list of
    {"role", "content"} messages, put through the model's chat template. The other keywords are
    Generator.generate()'s: max_tokens, temperature, top_k, top_p, repetition_penalty,
    repetition_window, seed, stop, ignore_eos."""
    load_options = {k: options.pop(k) for k in _LOAD_OPTIONS if k in options}
    if isinstance(model_or_path, LanguageModel):
        if load_options:
            raise TypeError("generate: " + ", ".join(load_options) +
                            " apply when a path is given, not a LanguageModel")
        model = model_or_path
    else:
        model = load_model(model_or_path, **load_options)
    generator = Generator(model)
    if chat:
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        return generator.chat(messages, **options)
    if not isinstance(prompt, str):
        raise TypeError("generate: the prompt must be a str (or chat=True with messages)")
    return generator.generate(prompt, **options)

__all__ = [
    "ML",
    "DataError",
    "Error",
    "GenerationResult",
    "GenerationStream",
    "Generator",
    "InvalidStateError",
    "LanguageModel",
    "LanguageModelInfo",
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
    "generate",
    "load_graph",
    "load_model",
    "ml",
    "save_graph",
]
