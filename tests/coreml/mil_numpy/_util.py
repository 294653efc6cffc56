"""Helpers shared by the op modules of basic, elementwise, activation and reduction ops.

How these modules compute (the evaluator's precision rules):
  - every op computes in its own element type T: numpy arithmetic on float16 arrays rounds each
    step to float16 (numpy evaluates +, -, *, / of two halves in float32 and rounds, which is the
    correctly rounded half result), so a float16 op never gains float32 precision or range;
  - an elementary function (exp, log, tanh, erf, sin, ...) is evaluated in float64 and rounded
    once to T (`elementary`), the result an accurate implementation of the documented function
    gives; a documented formula of several steps (elu's alpha * (e^x - 1), sigmoid's
    1 / (1 + e^-x), ...) rounds every step to T;
  - integer results outside int32 (overflow) and other inputs MIL leaves undefined raise
    registry.Unspecified.
"""

import math
from typing import Iterable, List, Optional

import numpy as np

from .registry import Unspecified

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def is_float(x: np.ndarray) -> bool:
    return x.dtype in (np.float16, np.float32)


def like(value, x: np.ndarray) -> np.ndarray:
    """A parameter (an array or scalar, possibly of another float type: iOS17's `U` domains)
    converted to x's element type (rounded to nearest)."""
    return np.asarray(value).astype(x.dtype)


def elementary(fn, x: np.ndarray) -> np.ndarray:
    """fn (a float64 numpy ufunc or function) of x, rounded once to x's type."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(x.astype(np.float64))).astype(x.dtype)


# math.erf over a float64 array (numpy has no erf).
_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf64(x: np.ndarray) -> np.ndarray:
    return _erf(x) if x.size else x.copy()


def checked_int32(exact: np.ndarray, what: str) -> np.ndarray:
    """int64 results of an int32 op as int32; Unspecified when one does not fit."""
    if exact.size and (exact.min() < INT32_MIN or exact.max() > INT32_MAX):
        raise Unspecified(f"{what}: an int32 result overflows (MIL does not say whether it wraps "
                          "or saturates)")
    return exact.astype(np.int32)


def axes_of(axes, rank: int, what: str = "axes") -> List[int]:
    """A const int32 axes parameter (0-d or 1-d) as non-negative ints, checked against rank."""
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"{what} {a} is out of range for rank {rank}")
        out.append(a + rank if a < 0 else a)
    return out


def scalar(value, default=None):
    """A const scalar parameter as a Python value (None when absent and no default)."""
    if value is None:
        return default
    if isinstance(value, str):
        return value
    return np.asarray(value).reshape(-1)[0].item()


def pairwise_sum(x: np.ndarray, axes: Iterable[int], keep_dims: bool) -> np.ndarray:
    """The sum of x over `axes` in x's own type: the reduced elements (in row-major order) are
    added pairwise, every partial sum rounded to the type (an int32 sum is exact, then checked)."""
    axes = sorted(set(axes))
    rank = x.ndim
    kept = [a for a in range(rank) if a not in axes]
    # Move the reduced axes last and flatten them into one: [kept..., n].
    moved = np.transpose(x, kept + axes)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    flat = moved.reshape([x.shape[a] for a in kept] + [n])
    if x.dtype == np.int32:
        total = checked_int32(flat.astype(np.int64).sum(axis=-1), "sum")
    else:
        total = _pairwise_last(flat)
    if keep_dims:
        total = total.reshape([1 if a in axes else x.shape[a] for a in range(rank)])
    return total


def _pairwise_last(v: np.ndarray) -> np.ndarray:
    """Sum along the last axis in v's float type, pairwise (an odd count is padded with -0, which
    leaves every sum as it is, -0 + -0 included)."""
    if v.shape[-1] == 0:
        return np.zeros(v.shape[:-1], dtype=v.dtype)
    while v.shape[-1] > 1:
        if v.shape[-1] % 2:
            pad = np.full(v.shape[:-1] + (1,), -0.0, dtype=v.dtype)
            v = np.concatenate([v, pad], axis=-1)
        v = v[..., 0::2] + v[..., 1::2]
    return v[..., 0]


def reduce_shape(shape, axes: List[int], keep_dims: bool) -> List[int]:
    """The shape of a reduction of `shape` over `axes`."""
    if keep_dims:
        return [1 if i in axes else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in axes]


def reduction_axes(x: np.ndarray, axes: Optional[np.ndarray]) -> List[int]:
    """MIL's reduction axes: every axis when absent."""
    if axes is None:
        return list(range(x.ndim))
    return axes_of(axes, x.ndim)
