"""Elementwise unary MIL ops (coremltools ops/defs/iOS15/elementwise_unary.py, iOS17 overrides of
clip, inverse, log, rsqrt; cast is in basic.py): fp16/fp32 (abs, exp2, sign, square and threshold
also int32), the result of x's type and shape.

Elementary functions are evaluated in float64 and rounded once to x's type; the documented
epsilon of inverse (1e-4), log (1e-45) and rsqrt (1e-12) is added to x in x's type first, so a
program that wants the plain function must pass epsilon 0 (MIL's default 1e-45 is a float32
subnormal: log(0) is -103.28 in fp32, -inf in fp16 where it rounds to 0)."""

import numpy as np

from ._util import checked_int32, elementary, erf64, is_float, like
from .registry import Unspecified, mil_op


def _float_only(op: str, x: np.ndarray) -> None:
    if not is_float(x):
        raise ValueError(f"{op}: x is {x.dtype}, not fp16/fp32")


def _elementary(name: str, fn):
    """Registers MIL op `name` as float64 function `fn` rounded to x's type."""
    def op(x):
        _float_only(name, x)
        return elementary(fn, x)
    op.__doc__ = f"{name}(x), evaluated in float64 and rounded to x's type."
    mil_op(name)(op)


for _name, _fn in (("acos", np.arccos), ("asin", np.arcsin), ("atan", np.arctan),
                   ("atanh", np.arctanh), ("cos", np.cos), ("cosh", np.cosh), ("erf", erf64),
                   ("exp", np.exp), ("sin", np.sin), ("sinh", np.sinh), ("sqrt", np.sqrt),
                   ("tan", np.tan), ("tanh", np.tanh)):
    _elementary(_name, _fn)


@mil_op("ceil")
def ceil(x):
    _float_only("ceil", x)
    return np.ceil(x)


@mil_op("floor")
def floor(x):
    _float_only("floor", x)
    return np.floor(x)


@mil_op("round")
def round_(x):
    """The nearest integer, ties to even (MIL: "0.5 is rounded to 0"; its value inference is
    np.round)."""
    _float_only("round", x)
    return np.rint(x)


@mil_op("abs")
def abs_(x):
    """|x|; int32 -2^31 has no int32 absolute value."""
    if x.dtype == np.int32:
        return checked_int32(np.abs(x.astype(np.int64)), "abs")
    return np.abs(x)


@mil_op("exp2")
def exp2(x):
    """2^x; for int32 only exponents 0..30 have an int32 result."""
    if x.dtype == np.int32:
        if (x < 0).any():
            raise Unspecified("exp2 of a negative int32")
        if (x > 62).any():
            raise Unspecified("exp2: an int32 result overflows")
        return checked_int32(np.left_shift(np.int64(1), x.astype(np.int64)), "exp2")
    return elementary(np.exp2, x)


@mil_op("sign")
def sign(x):
    """-1, 0 or 1 (NaN stays NaN; the sign of a zero result is not documented, numpy's np.sign
    gives +0)."""
    return np.sign(x).astype(x.dtype)


@mil_op("square")
def square(x):
    if x.dtype == np.int32:
        return checked_int32(np.square(x.astype(np.int64)), "square")
    return np.multiply(x, x)


@mil_op("inverse")
def inverse(x, epsilon=None):
    """1 / (x + epsilon), epsilon (default 1e-4) in x's type."""
    _float_only("inverse", x)
    eps = like(1e-4 if epsilon is None else epsilon, x)
    return np.divide(x.dtype.type(1), x + eps).astype(x.dtype)


@mil_op("log")
def log(x, epsilon=None):
    """ln(x + epsilon), epsilon (default 1e-45) in x's type."""
    _float_only("log", x)
    eps = like(1e-45 if epsilon is None else epsilon, x)
    return elementary(np.log, (x + eps).astype(x.dtype))


@mil_op("rsqrt")
def rsqrt(x, epsilon=None):
    """1 / sqrt(x + epsilon), epsilon (default 1e-12) in x's type, the function rounded once."""
    _float_only("rsqrt", x)
    eps = like(1e-12 if epsilon is None else epsilon, x)
    return elementary(lambda v: 1.0 / np.sqrt(v), (x + eps).astype(x.dtype))


@mil_op("logical_not")
def logical_not(x):
    if x.dtype != np.bool_:
        raise ValueError(f"logical_not: x is {x.dtype}, not bool")
    return np.logical_not(x)


@mil_op("clip")
def clip(x, alpha, beta):
    """Values below alpha become alpha, above beta become beta (NaN stays NaN; iOS17 requires
    alpha < beta, which coremltools' loader checks)."""
    _float_only("clip", x)
    a, b = like(alpha, x), like(beta, x)
    y = np.where(x < a, a, x)
    return np.where(y > b, b, y).astype(x.dtype)


@mil_op("threshold")
def threshold(x, alpha):
    """Values below alpha become alpha (NaN stays NaN)."""
    a = like(alpha, x)
    return np.where(x < a, a, x).astype(x.dtype)
