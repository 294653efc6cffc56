"""MIL reductions (coremltools ops/defs/iOS15/reduction.py, iOS17 reduce_argmax/argmin) and cumsum
(iOS15/tensor_operation.py).

reduce_*(x, axes=all, keep_dims=False) over fp16, fp32 or int32 x: the reduced dimensions are
dropped (kept as 1 with keep_dims); with no dimension left the result is a 0-d array. Partial
results are values of x's type: squares and absolute values are rounded to it and the sums
(products) are taken pairwise with every partial sum rounded to it, so float16 reductions
overflow where float16 arithmetic does; log/sqrt are then rounded once. reduce_max/min propagate
NaN (MIL's value inference np.max; the doc says nothing). reduce_argmax/argmin leave ties
unspecified (MIL: "the identity of the return value is not guaranteed"): a tie, or a NaN, in a
reduced slice is Unspecified. cumsum adds sequentially along the axis in x's type."""

import numpy as np

from ._util import (axes_of, checked_int32, elementary, pairwise_sum, reduce_shape,
                    reduction_axes, scalar)
from .registry import Unspecified, mil_op


def _keep(keep_dims) -> bool:
    return bool(scalar(keep_dims, False))


def _sum(x, axes, keep_dims):
    return pairwise_sum(x, axes, keep_dims)


def _prod(x: np.ndarray, axes, keep: bool) -> np.ndarray:
    """Pairwise product in x's type (int32 exact, then checked)."""
    if x.dtype == np.int32:
        exact = np.prod(x.astype(object), axis=tuple(axes), keepdims=keep)
        return checked_int32(_object_to_int64(exact), "reduce_prod")
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + sorted(axes))
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    v = moved.reshape([x.shape[a] for a in kept] + [n])
    while v.shape[-1] > 1:
        if v.shape[-1] % 2:
            v = np.concatenate([v, np.ones(v.shape[:-1] + (1,), dtype=v.dtype)], axis=-1)
        v = v[..., 0::2] * v[..., 1::2]
    r = v[..., 0] if n else np.ones(v.shape[:-1], dtype=x.dtype)
    return r.reshape(reduce_shape(x.shape, axes, keep))


def _object_to_int64(a) -> np.ndarray:
    """Python ints (an object array) as int64, saturated just outside int32 for the check."""
    a = np.asarray(a, dtype=object)
    clipped = np.vectorize(lambda v: max(min(int(v), 2**31), -(2**31) - 1), otypes=[np.int64])
    return clipped(a) if a.size else a.astype(np.int64)


def _reduction(name: str, fn):
    """Registers reduce op `name`: fn(x, axes, keep_dims) -> array of x's type."""
    def op(x, axes=None, keep_dims=None):
        if x.dtype not in (np.float16, np.float32, np.int32):
            raise ValueError(f"{name}: x is {x.dtype}")
        if x.ndim == 0:
            raise ValueError(f"{name}: x must have rank >= 1")
        ax = reduction_axes(x, axes)
        if not ax:
            raise Unspecified(f"{name} with empty axes (coremltools infers no reduction, MIL "
                              "documents only a missing axes parameter: all axes)")
        r = np.asarray(fn(x, ax, _keep(keep_dims)))
        return r.astype(x.dtype).reshape(reduce_shape(x.shape, ax, _keep(keep_dims)))
    op.__doc__ = fn.__doc__
    mil_op(name)(op)


def _float_fn(fn, x: np.ndarray) -> np.ndarray:
    """A float function of an x-typed result (int32 results are converted: the log/sqrt of an
    int32 reduction is not integral and MIL does not say how it rounds)."""
    if x.dtype == np.int32:
        raise Unspecified("a logarithm or root of an int32 reduction (rounding undocumented)")
    return elementary(fn, x)


def _l1(x, axes, keep):
    """sum |x|."""
    a = checked_int32(np.abs(x.astype(np.int64)), "abs") if x.dtype == np.int32 else np.abs(x)
    return _sum(a, axes, keep)


def _squares(x):
    if x.dtype == np.int32:
        return checked_int32(np.square(x.astype(np.int64)), "square")
    return np.multiply(x, x)


def _l2(x, axes, keep):
    """sqrt(sum x^2)."""
    return _float_fn(np.sqrt, _sum(_squares(x), axes, keep))


def _log_sum(x, axes, keep):
    """ln(sum x)."""
    return _float_fn(np.log, _sum(x, axes, keep))


def _log_sum_exp(x, axes, keep):
    """ln(sum e^(x - m)) + m, m the largest element (MIL's form: an infinite m gives NaN)."""
    if x.dtype == np.int32:
        raise Unspecified("reduce_log_sum_exp of int32 (rounding undocumented)")
    m = np.max(x, axis=tuple(axes), keepdims=True)
    e = elementary(np.exp, (x - m).astype(x.dtype))
    s = _float_fn(np.log, _sum(e, axes, True))
    r = (s + m).astype(x.dtype)
    return r if keep else np.reshape(r, reduce_shape(x.shape, axes, False))


def _max(x, axes, keep):
    """The largest element (NaN if any is NaN)."""
    return np.max(x, axis=tuple(axes), keepdims=keep)


def _min(x, axes, keep):
    """The smallest element (NaN if any is NaN)."""
    return np.min(x, axis=tuple(axes), keepdims=keep)


def _mean(x, axes, keep):
    """sum x / count (the division rounded once to x's type; int32: exact quotients only)."""
    s = _sum(x, axes, keep)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    if x.dtype == np.int32:
        if (s.astype(np.int64) % n != 0).any():
            raise Unspecified("reduce_mean of int32 with a remainder (rounding undocumented)")
        return s // n
    return (s.astype(np.float64) / n).astype(x.dtype)


def _sum_square(x, axes, keep):
    """sum x^2."""
    return _sum(_squares(x), axes, keep)


for _name, _fn in (("reduce_l1_norm", _l1), ("reduce_l2_norm", _l2),
                   ("reduce_log_sum", _log_sum), ("reduce_log_sum_exp", _log_sum_exp),
                   ("reduce_max", _max), ("reduce_min", _min), ("reduce_mean", _mean),
                   ("reduce_prod", lambda x, a, k: _prod(x, a, k)),
                   ("reduce_sum", _sum), ("reduce_sum_square", _sum_square)):
    _reduction(_name, _fn)


def _arg(name: str, pick):
    """Registers reduce_argmax / reduce_argmin: the index of the extreme along `axis`."""
    def op(x, axis=np.int32(-1), keep_dims=None, output_dtype="int32"):
        if x.ndim == 0:
            raise ValueError(f"{name}: x must have rank >= 1")
        if output_dtype not in ("int32", "uint16"):
            raise ValueError(f"{name}: output_dtype {output_dtype!r}")
        (a,) = axes_of(axis, x.ndim, "axis")
        if x.dtype != np.int32 and np.isnan(x).any():
            raise Unspecified(f"{name} over a NaN")
        extreme = pick(x, axis=a, keepdims=True)
        if ((x == extreme).sum(axis=a) > 1).any():
            raise Unspecified(f"{name}: ties in a reduced slice (MIL does not say which index)")
        idx = np.argmax(x == extreme, axis=a)
        if _keep(keep_dims):
            idx = np.expand_dims(idx, a)
        return idx.astype(np.int32 if output_dtype == "int32" else np.uint16)
    op.__doc__ = f"{name}(x, axis=-1, keep_dims=False, output_dtype='int32')."
    mil_op(name)(op)


_arg("reduce_argmax", np.max)
_arg("reduce_argmin", np.min)


@mil_op("cumsum")
def cumsum(x, axis=np.int32(0), exclusive=None, reverse=None):
    """Running sums along `axis` (default 0) in x's type, added in order; exclusive starts at 0
    (each sum leaves its own element out), reverse runs from the end."""
    (a,) = axes_of(axis, x.ndim, "axis")
    v = np.flip(x, axis=a) if scalar(reverse, False) else x
    if x.dtype == np.int32:
        s = checked_int32(np.cumsum(v.astype(np.int64), axis=a), "cumsum")
    else:
        s = np.cumsum(v, axis=a, dtype=x.dtype)
    if scalar(exclusive, False):
        zero = np.zeros_like(np.take(s, [0], axis=a))
        s = np.concatenate([zero, np.delete(s, -1, axis=a)], axis=a)
    return np.flip(s, axis=a).copy() if scalar(reverse, False) else s
