"""Tensor operations (opset CoreML7; coremltools ops/defs iOS15 tensor_operation): band_part,
concat, pad, range_1d, split, stack, tile. They move elements (band_part and range_1d also
compute a little), so they are exact in every type. (cumsum is in reduction.py; fill and shape
in basic.py.)"""

import numpy as np

from ._util import axes_of, scalar
from .registry import mil_op


@mil_op("band_part")
def band_part(x, lower=np.int32(-1), upper=np.int32(-1)):
    """x times the band mask of its last two dims [M, N]: element (m, n) is kept when
    (lower < 0 or m - n <= lower) and (upper < 0 or n - m <= upper), else multiplied by 0 as
    documented (so an Inf or NaN outside the band becomes NaN)."""
    if x.ndim < 2:
        raise ValueError(f"band_part: x has rank {x.ndim}, needs >= 2")
    lo, up = int(scalar(lower)), int(scalar(upper))
    m, n = x.shape[-2:]
    diff = np.arange(n)[None, :] - np.arange(m)[:, None]  # n - m
    band = ((lo < 0) | (-diff <= lo)) & ((up < 0) | (diff <= up))
    if x.dtype == np.bool_:
        return x & band
    return (x * band.astype(x.dtype)).astype(x.dtype)


@mil_op("concat")
def concat(values, axis, interleave=None):
    """The tensors of `values` (same rank and type, equal but at `axis`) joined along `axis`;
    with interleave (all shapes equal) their slices alternate: out[i*n + k] = values[k][i]."""
    if not values:
        raise ValueError("concat: no values")
    dtypes = {v.dtype for v in values}
    if len(dtypes) != 1:
        raise ValueError(f"concat: values of several types {sorted(map(str, dtypes))}")
    rank = values[0].ndim
    if rank == 0:
        raise ValueError("concat: 0-d values")
    (a,) = axes_of(axis, rank, "axis")
    if scalar(interleave, False):
        if len({v.shape for v in values}) != 1:
            raise ValueError("concat: interleave needs values of one shape")
        stacked = np.stack(values, axis=a + 1)
        shape = list(values[0].shape)
        shape[a] *= len(values)
        return stacked.reshape(shape)
    return np.concatenate(values, axis=a)


# MIL pad's modes -> numpy's.
PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


@mil_op("pad")
def pad(x, pad, mode="constant", constant_val=None):
    """x padded in its last N dims (pad: int32 [2N], pairs (before, after) per dim, N <= rank):
    constant (constant_val, default 0), reflect (mirrored about the edge element, at most
    D - 1 per side) or replicate (the edge element repeated, at most D per side). The Core ML
    runtime rejects reflect/replicate padding outside the last two dims ("Padding for more than
    two dimensions only supports `constant` mode"; coremltools issues #2576, #2701), so such a
    pad is an error here too."""
    if mode not in PAD_MODES:
        raise ValueError(f"pad: unknown mode {mode!r}")
    p = [int(v) for v in np.asarray(pad).reshape(-1)]
    if len(p) % 2 or len(p) // 2 > x.ndim:
        raise ValueError(f"pad: {len(p)} pad values for rank {x.ndim}")
    if any(v < 0 for v in p):
        raise ValueError(f"pad: negative pad {p}")
    pairs = [(0, 0)] * (x.ndim - len(p) // 2) + [(p[2 * i], p[2 * i + 1])
                                                  for i in range(len(p) // 2)]
    if mode != "constant":
        for d, (b, e) in enumerate(pairs):
            if (b or e) and d < x.ndim - 2:
                raise ValueError(f"pad: mode {mode} pads dim {d} of rank {x.ndim}; Core ML pads "
                                 "only the last two dims in that mode")
            limit = x.shape[d] - 1 if mode == "reflect" else x.shape[d]
            if b > limit or e > limit:
                raise ValueError(f"pad: mode {mode} pads ({b}, {e}) a dim of size {x.shape[d]}")
        return np.pad(x, pairs, mode=PAD_MODES[mode])
    value = np.zeros((), x.dtype) if constant_val is None else np.asarray(constant_val)
    if value.dtype != x.dtype:
        raise ValueError(f"pad: constant_val is {value.dtype}, x is {x.dtype}")
    return np.pad(x, pairs, mode="constant", constant_values=value)


@mil_op("range_1d")
def range_1d(end, start, step):
    """start, start + step, ... up to (excluding) end, in their type (fp16/fp32/int32)."""
    s, e, st = np.asarray(start), np.asarray(end), np.asarray(step)
    if not s.dtype == e.dtype == st.dtype:
        raise ValueError(f"range_1d: start {s.dtype}, end {e.dtype}, step {st.dtype}")
    if st == 0:
        raise ValueError("range_1d: step 0")
    if s.dtype == np.int32:
        return np.arange(int(s), int(e), int(st), dtype=np.int32)
    # Float ranges: element i is start + i * step, each step in the type.
    count = max(0, int(np.ceil((float(e) - float(s)) / float(st))))
    i = np.arange(count).astype(s.dtype)
    return (s + i * st).astype(s.dtype)


@mil_op("split")
def split(x, axis, num_splits=None, split_sizes=None):
    """x cut along `axis` into split_sizes (summing to the dim), or into num_splits equal parts."""
    (a,) = axes_of(axis, x.ndim, "axis")
    if split_sizes is not None:
        sizes = [int(s) for s in np.asarray(split_sizes).reshape(-1)]
        if num_splits is not None and int(scalar(num_splits)) != len(sizes):
            raise ValueError(f"split: num_splits {scalar(num_splits)} with {len(sizes)} sizes")
    elif num_splits is not None:
        n = int(scalar(num_splits))
        if n <= 0 or x.shape[a] % n:
            raise ValueError(f"split: {n} equal parts of a dim of size {x.shape[a]}")
        sizes = [x.shape[a] // n] * n
    else:
        raise ValueError("split: neither num_splits nor split_sizes")
    if sum(sizes) != x.shape[a] or any(s <= 0 for s in sizes):
        raise ValueError(f"split: sizes {sizes} of a dim of size {x.shape[a]}")
    bounds = np.cumsum(sizes)[:-1]
    return tuple(part.copy() for part in np.split(x, bounds, axis=a))


@mil_op("stack")
def stack(values, axis):
    """The tensors of `values` (one shape and type) stacked along a new dim `axis`."""
    if not values or len({(v.shape, v.dtype) for v in values}) != 1:
        raise ValueError("stack: values must share one shape and type")
    (a,) = axes_of(axis, values[0].ndim + 1, "axis")
    return np.stack(values, axis=a)


@mil_op("tile")
def tile(x, reps):
    """x repeated reps[d] times along each dim d (reps: int32 [rank], every entry > 0)."""
    r = [int(v) for v in np.asarray(reps).reshape(-1)]
    if len(r) != x.ndim or x.ndim == 0:
        raise ValueError(f"tile: {len(r)} repetitions for rank {x.ndim}")
    if any(v <= 0 for v in r):
        raise ValueError(f"tile: repetitions {r} must be > 0")
    return np.tile(x, r)

