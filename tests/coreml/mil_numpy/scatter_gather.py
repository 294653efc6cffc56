"""Gathers and scatters (opset CoreML7; coremltools ops/defs iOS17 scatter_gather): gather,
gather_along_axis, gather_nd, scatter, scatter_along_axis, scatter_nd.

iOS17 takes only in-range indices (0 <= i < dim; "negative values are considered out-of-bound",
and the result of an out-of-bound index is undefined): such an index is Unspecified here. The
scatters' "update" mode does not say which of several updates of one element wins, so duplicate
indices whose updates differ (bitwise) are Unspecified too; the accumulating modes (add, sub, mul,
div, max, min) are applied in index order.
"""

import numpy as np

from ._util import axes_of, checked_int32, scalar
from .registry import Unspecified, mil_op


def _check_indices(indices, dims, what):
    """Unspecified unless every index is in 0..dim-1 (dims: one bound, or one per last-axis
    column for the ND ops)."""
    if indices.dtype.kind not in "iu":
        raise ValueError(f"{what}: indices of type {indices.dtype}")
    if indices.size == 0:
        return
    bounds = np.asarray(dims, dtype=np.int64)
    idx = indices.astype(np.int64)
    if (idx < 0).any() or (idx >= bounds).any():
        raise Unspecified(f"{what}: an index outside [0, dim) (iOS17 leaves negative and "
                          "out-of-range indices undefined)")


def _gather(x, indices, axis, batch_dims):
    if batch_dims == 0:
        return np.take(x, indices, axis=axis)
    return np.stack([_gather(x[i], indices[i], axis - 1, batch_dims - 1)
                     for i in range(x.shape[0])])


@mil_op("gather")
def gather(x, indices, axis=np.int32(0), batch_dims=np.int32(0), validate_indices=None):
    """Slices of x along `axis` at `indices`: out shape x[:axis] ++ indices[batch_dims:] ++
    x[axis+1:] (tf.gather with batch_dims)."""
    (a,) = axes_of(axis, x.ndim, "axis")
    bd = int(scalar(batch_dims))
    if not 0 <= bd <= min(a, indices.ndim) or x.shape[:bd] != indices.shape[:bd]:
        raise ValueError(f"gather: batch_dims {bd} for x {x.shape}, indices {indices.shape}")
    _check_indices(indices, x.shape[a], "gather")
    return np.array(_gather(x, indices.astype(np.int64), a, bd), copy=True)


@mil_op("gather_along_axis")
def gather_along_axis(x, indices, axis=np.int32(0), validate_indices=None):
    """out[p] = x[p with p[axis] = indices[p]]; indices has x's rank and x's dims except at
    axis, and out has indices' shape."""
    (a,) = axes_of(axis, x.ndim, "axis")
    if indices.ndim != x.ndim or any(indices.shape[d] != x.shape[d]
                                     for d in range(x.ndim) if d != a):
        raise ValueError(f"gather_along_axis: indices {indices.shape} for x {x.shape}, axis {a}")
    _check_indices(indices, x.shape[a], "gather_along_axis")
    return np.take_along_axis(x, indices.astype(np.int64), axis=a)


def _nd_rows(indices):
    """The index rows of an ND op as int64 [count, k]."""
    k = indices.shape[-1]
    return indices.reshape(-1, k).astype(np.int64)


@mil_op("gather_nd")
def gather_nd(x, indices, batch_dims=np.int32(0), validate_indices=None):
    """out[t] = x[indices[t, :]] (a slice of x's remaining dims): out shape indices[:-1] ++
    x[batch_dims + k:] with k = indices.shape[-1]."""
    bd = int(scalar(batch_dims))
    if bd:
        if x.shape[:bd] != indices.shape[:bd]:
            raise ValueError(f"gather_nd: batch_dims {bd} for x {x.shape}, indices "
                             f"{indices.shape}")
        return np.stack([gather_nd(x[i], indices[i], np.int32(bd - 1))
                         for i in range(x.shape[0])])
    k = indices.shape[-1]
    if k > x.ndim:
        raise ValueError(f"gather_nd: index rows of {k} for rank {x.ndim}")
    _check_indices(indices, x.shape[:k], "gather_nd")
    rows = _nd_rows(indices)
    picked = [x[tuple(r)] for r in rows]
    out_shape = indices.shape[:-1] + x.shape[k:]
    if not picked:
        return np.zeros(out_shape, x.dtype)
    return np.stack(picked).reshape(out_shape)


def _bits(v):
    """An element as comparable bits (NaN payloads and -0 distinct)."""
    a = np.asarray(v)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")).tobytes() if a.dtype.kind == "f" else \
        a.tobytes()


def _apply(out, target, update, mode, written):
    """out[target] combined with `update` by `mode`; `written` records "update" writes."""
    if mode == "update":
        if target in written and _bits(written[target]) != _bits(update):
            raise Unspecified("scatter mode update: duplicate indices with different updates "
                              "(MIL does not say which wins)")
        written[target] = update
        out[target] = update
        return
    cur = out[target]
    if out.dtype == np.int32:
        c, u = np.int64(cur), np.int64(update)
        if mode == "div":
            raise Unspecified("scatter mode div on int32 (rounding not documented)")
        r = {"add": c + u, "sub": c - u, "mul": c * u, "max": max(c, u), "min": min(c, u)}[mode]
        out[target] = checked_int32(np.asarray(r), f"scatter mode {mode}")
        return
    ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "max": np.maximum, "min": np.minimum}
    out[target] = ops[mode](cur, update).astype(out.dtype)


MODES = {"update", "add", "sub", "mul", "div", "max", "min"}


def _mode(mode):
    if mode not in MODES:
        raise ValueError(f"scatter: unknown mode {mode!r}")
    return mode


@mil_op("scatter")
def scatter(data, indices, updates, axis=np.int32(0), mode="add", validate_indices=None):
    """data with, for each i, the slice at indices[i] along `axis` combined with the slice i of
    updates (shape data[:axis] ++ [len(indices)] ++ data[axis+1:]) by `mode`."""
    mode = _mode(mode)
    (a,) = axes_of(axis, data.ndim, "axis")
    if indices.ndim != 1:
        raise ValueError(f"scatter: indices of rank {indices.ndim}, needs 1")
    expected = data.shape[:a] + indices.shape + data.shape[a + 1:]
    if updates.shape != expected or updates.dtype != data.dtype:
        raise ValueError(f"scatter: updates {updates.dtype}{updates.shape}, expected {expected}")
    _check_indices(indices, data.shape[a], "scatter")
    out = np.array(data, copy=True)
    written = {}
    for pos in np.ndindex(*updates.shape):
        target = pos[:a] + (int(indices[pos[a]]),) + pos[a + 1:]
        _apply(out, target, updates[pos], mode, written)
    return out


@mil_op("scatter_along_axis")
def scatter_along_axis(data, indices, updates, axis=np.int32(0), mode="add",
                       validate_indices=None):
    """data with, for each position p of indices, element p with p[axis] = indices[p] combined
    with updates[p] by `mode` (indices and updates share a shape equal to data's but at axis)."""
    mode = _mode(mode)
    (a,) = axes_of(axis, data.ndim, "axis")
    if (indices.shape != updates.shape or indices.ndim != data.ndim
            or any(indices.shape[d] != data.shape[d] for d in range(data.ndim) if d != a)
            or updates.dtype != data.dtype):
        raise ValueError(f"scatter_along_axis: indices {indices.shape}, updates "
                         f"{updates.dtype}{updates.shape} for data {data.dtype}{data.shape}")
    _check_indices(indices, data.shape[a], "scatter_along_axis")
    out = np.array(data, copy=True)
    written = {}
    for pos in np.ndindex(*indices.shape):
        target = pos[:a] + (int(indices[pos]),) + pos[a + 1:]
        _apply(out, target, updates[pos], mode, written)
    return out


@mil_op("scatter_nd")
def scatter_nd(data, indices, updates, mode="add", validate_indices=None):
    """data with the slice at each index row indices[t, :] combined with updates[t] by `mode`
    (updates shape indices[:-1] ++ data[k:], k = indices.shape[-1])."""
    mode = _mode(mode)
    k = indices.shape[-1]
    expected = indices.shape[:-1] + data.shape[k:]
    if k > data.ndim or updates.shape != expected or updates.dtype != data.dtype:
        raise ValueError(f"scatter_nd: indices {indices.shape}, updates "
                         f"{updates.dtype}{updates.shape} for data {data.dtype}{data.shape}")
    _check_indices(indices, data.shape[:k], "scatter_nd")
    out = np.array(data, copy=True)
    written = {}
    rows = _nd_rows(indices)
    flat_updates = updates.reshape((len(rows),) + data.shape[k:])
    for t, row in enumerate(rows):
        for inner in np.ndindex(*data.shape[k:]):
            _apply(out, tuple(int(i) for i in row) + inner, flat_updates[t][inner], mode, written)
    return out
