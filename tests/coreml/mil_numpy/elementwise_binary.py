"""Elementwise binary MIL ops (coremltools ops/defs/iOS15/elementwise_binary.py): x and y of the
same type (fp16, fp32, int32; bool for the logical ops), broadcast with numpy's rules; the
comparisons and logical ops give bool.

Arithmetic happens in the operands' type (float16 in float16). int32 results that overflow, int32
division by zero, and other results MIL does not define raise Unspecified (see _util)."""

import numpy as np

from ._util import checked_int32, is_float
from .registry import Unspecified, mil_op


def _same(op: str, x: np.ndarray, y: np.ndarray) -> None:
    if x.dtype != y.dtype:
        raise ValueError(f"{op}: x is {x.dtype}, y is {y.dtype}")


def _arith(op: str, x, y, exact_fn, float_fn):
    """float_fn(x, y) in the float type, or exact_fn on int64 values checked to fit int32."""
    _same(op, x, y)
    if x.dtype == np.int32:
        return checked_int32(exact_fn(x.astype(np.int64), y.astype(np.int64)), op)
    return np.asarray(float_fn(x, y)).astype(x.dtype)


@mil_op("add")
def add(x, y):
    return _arith("add", x, y, np.add, np.add)


@mil_op("sub")
def sub(x, y):
    return _arith("sub", x, y, np.subtract, np.subtract)


@mil_op("mul")
def mul(x, y):
    return _arith("mul", x, y, np.multiply, np.multiply)


def _int_divisor(op: str, y: np.ndarray) -> None:
    if (y == 0).any():
        raise Unspecified(f"{op}: int32 division by zero")


@mil_op("real_div")
def real_div(x, y):
    """x / y: IEEE division for floats; for int32 only an exact quotient is defined (MIL does not
    say how an int32 real_div rounds)."""
    _same("real_div", x, y)
    if x.dtype != np.int32:
        return np.divide(x, y).astype(x.dtype)
    _int_divisor("real_div", y)
    x64, y64 = np.broadcast_arrays(x.astype(np.int64), y.astype(np.int64))
    if (x64 % y64 != 0).any():
        raise Unspecified("real_div: an int32 quotient is not an integer (rounding undocumented)")
    return checked_int32(x64 // y64, "real_div")


@mil_op("floor_div")
def floor_div(x, y):
    """x / y rounded toward negative infinity (the exact quotient's floor, as Python's //)."""
    _same("floor_div", x, y)
    if x.dtype == np.int32:
        _int_divisor("floor_div", y)
        return checked_int32(np.floor_divide(x.astype(np.int64), y.astype(np.int64)),
                             "floor_div")
    return np.floor_divide(x, y).astype(x.dtype)


@mil_op("mod")
def mod(x, y):
    """x % y. MIL's doc says only "x % y"; its value inference (Python's %) and its frontends
    (torch roll's mod of a negative shift) use the floored remainder, which has the sign of y:
    numpy's mod."""
    _same("mod", x, y)
    if x.dtype == np.int32:
        _int_divisor("mod", y)
        return checked_int32(np.mod(x.astype(np.int64), y.astype(np.int64)), "mod")
    return np.mod(x, y).astype(x.dtype)


@mil_op("pow")
def pow_(x, y):
    """x ^ y: IEEE pow, correctly rounded to the type; int32 with exponents >= 0 (a negative
    int32 exponent has no documented result)."""
    _same("pow", x, y)
    if x.dtype == np.int32:
        if (y < 0).any():
            raise Unspecified("pow: a negative int32 exponent")
        xb, yb = np.broadcast_arrays(x.astype(object), y.astype(object))
        exact = np.array([a ** b for a, b in zip(xb.reshape(-1), yb.reshape(-1))], dtype=object)
        big = [v for v in exact if not -(2**31) <= v < 2**31]
        if big:
            raise Unspecified("pow: an int32 result overflows")
        return exact.astype(np.int64).reshape(xb.shape).astype(np.int32)
    return np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)


def _extreme(op: str, x, y, pick_x):
    """maximum / minimum as MIL documents them: x > y ? x : y and x > y ? y : x. With a NaN
    operand that formula and MIL's value inference (np.maximum, NaN-propagating) disagree: the
    result is not specified."""
    _same(op, x, y)
    if is_float(x) and (np.isnan(x).any() or np.isnan(y).any()):
        raise Unspecified(f"{op} with a NaN operand (documented as x > y ? ..., "
                          "implemented NaN-propagating)")
    return np.where(pick_x(x, y), x, y).astype(x.dtype)


@mil_op("maximum")
def maximum(x, y):
    return _extreme("maximum", x, y, lambda a, b: a > b)


@mil_op("minimum")
def minimum(x, y):
    return _extreme("minimum", x, y, lambda a, b: ~(a > b))


def _compare(op: str, fn):
    def compare(x, y):
        _same(op, x, y)
        return np.asarray(fn(x, y), dtype=np.bool_)
    compare.__doc__ = f"{op}: bool, IEEE comparisons (NaN compares unequal to everything)."
    return compare


for _name, _fn in (("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                   ("greater_equal", np.greater_equal), ("less", np.less),
                   ("less_equal", np.less_equal)):
    mil_op(_name)(_compare(_name, _fn))


def _logical(op: str, fn):
    def logical(x, y):
        if x.dtype != np.bool_ or y.dtype != np.bool_:
            raise ValueError(f"{op}: operands are {x.dtype} and {y.dtype}, not bool")
        return np.asarray(fn(x, y), dtype=np.bool_)
    logical.__doc__ = f"{op} of two bool tensors."
    return logical


for _name, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor)):
    mil_op(_name)(_logical(_name, _fn))
