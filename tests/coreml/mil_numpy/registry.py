"""The numpy MIL evaluator's op table: one Python function per MIL operation type (opset CoreML7,
iOS17), computing the op as Apple documents it (coremltools' converters/mil/mil/ops/defs).

A function is registered with @mil_op("name") and called with the op's inputs as keyword
arguments named like MIL's parameters:
  - a tensor or scalar: a numpy array of MIL's element type (fp32 -> float32, fp16 -> float16,
    int32 -> int32, int8 -> int8, uint8 -> uint8, bool -> bool_); a scalar is a 0-d array;
  - a string: a Python str;
  - a variadic parameter (a tuple in MIL's input spec, such as concat's `values`): a list.
Parameters the op leaves out are not passed: the function's own defaults are MIL's.
It returns one numpy array, or a tuple for an op with several outputs; the evaluator checks each
against the output's declared type and shape (a mismatch is an evaluation failure naming the op).

Where MIL leaves the result undefined for the inputs at hand (ties in reduce_argmax, a cast of a
value outside the target type's range, ...), the function raises Unspecified with the reason: the
case then fails numerically with that reason instead of with a value MIL never promised.
"""

from typing import Callable, Dict

OPS: Dict[str, Callable] = {}


class Unspecified(Exception):
    """The op's result is not specified by MIL for these inputs (the message says why)."""


def mil_op(name: str) -> Callable[[Callable], Callable]:
    """Registers the decorated function as the evaluation of MIL op type `name`."""

    def register(fn: Callable) -> Callable:
        if name in OPS:
            raise RuntimeError(f"MIL op {name!r} is registered twice ({OPS[name].__module__} "
                               f"and {fn.__module__})")
        OPS[name] = fn
        return fn

    return register
