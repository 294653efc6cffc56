"""Pooling MIL ops (opset CoreML7): avg_pool, l2_pool and max_pool (coremltools ops/defs
iOS15/pool.py), for 1 to 3 spatial dimensions (l2_pool: 1 or 2), with pad_type, custom pad and
ceil_mode as documented (output sizes: conv.out_sizes).

Every output reduces the window elements at p·s + k of the padded input. Padding is not an
element of the input: avg_pool counts it in the divisor unless exclude_padding_from_average
(positions past the padded input, which only ceil_mode reaches, never count), l2_pool adds 0 for
it and max_pool ignores it. Sums (avg_pool, l2_pool) accumulate in a wider type (float64 for
fp32, float32 for fp16) and are rounded once to the op's type, like conv.py's dot products.
MIL does not document a window without a counted element (only padding, with
exclude_padding_from_average; or nothing at all for max_pool): such outputs are 0/0 = NaN
(avg_pool) and the empty maximum -Infinity (max_pool), values a program must not rely on (the
cppnn lowering replaces them). max_pool propagates NaN (numpy's maximum).
"""

from typing import List, Tuple

import numpy as np

from ._util import scalar
from .conv import accumulator, int_list, out_sizes, spatial_pads, window_slices
from .registry import mil_op


def _geometry(x, kernel_sizes, strides, pad_type, pad, ceil_mode, what: str):
    """(kernel, strides, pads, output sizes, extra end padding reached by ceil_mode windows)."""
    nd = x.ndim - 2
    if not 1 <= nd <= 3:
        raise ValueError(f"{what}: x has rank {x.ndim}, not 3 to 5")
    k = int_list(kernel_sizes, nd, 1, "kernel_sizes")
    s = int_list(strides, nd, 1, "strides")
    ceil = bool(scalar(ceil_mode, False))
    pads = spatial_pads(pad_type, pad, x.shape[2:], k, s)
    if ceil and (pad_type == "same" or any(b != e for b, e in pads)):
        raise ValueError(f"{what}: ceil_mode needs symmetric padding and no pad_type same")
    out = out_sizes(x.shape[2:], k, s, pads, ceil)
    extra = [max(0, (o - 1) * si + ki - (i + b + e))
             for o, si, ki, i, (b, e) in zip(out, s, k, x.shape[2:], pads)]
    return k, s, pads, out, extra


def _padded(v: np.ndarray, pads: List[Tuple[int, int]], extra: List[int], value) -> np.ndarray:
    """v padded with `value` by pads, plus `extra` more at each spatial end."""
    width = [(0, 0), (0, 0)] + [(b, e + x) for (b, e), x in zip(pads, extra)]
    return np.pad(v, width, constant_values=value)


def _window_sum(v: np.ndarray, k, s, out) -> np.ndarray:
    """Σ over the window of every output position of the (padded) v."""
    total = np.zeros(v.shape[:2] + tuple(out), dtype=v.dtype)
    for offsets in np.ndindex(*k):
        total += v[(slice(None), slice(None)) + window_slices(offsets, out, s)]
    return total


@mil_op("avg_pool")
def avg_pool(x, kernel_sizes, pad_type, strides=None, pad=None,
             exclude_padding_from_average=np.bool_(False), ceil_mode=np.bool_(False)):
    """The window sum over the counted elements: the window's positions inside the padded input,
    or inside the input itself with exclude_padding_from_average."""
    k, s, pads, out, extra = _geometry(x, kernel_sizes, strides, pad_type, pad, ceil_mode,
                                       "avg_pool")
    acc = accumulator(x.dtype)
    total = _window_sum(_padded(x.astype(acc), pads, extra, 0), k, s, out)
    # The counted positions: ones over the input (and its padding unless excluded).
    ones = np.ones((1, 1) + x.shape[2:], dtype=acc)
    if bool(scalar(exclude_padding_from_average, False)):
        counted = _padded(ones, pads, extra, 0)
    else:
        counted = _padded(_padded(ones, pads, [0] * len(k), 1), [(0, 0)] * len(k), extra, 0)
    count = _window_sum(counted, k, s, out)
    return (total / count).astype(x.dtype)


@mil_op("l2_pool")
def l2_pool(x, kernel_sizes, pad_type, strides=None, pad=None, ceil_mode=np.bool_(False)):
    """√Σx² over the window (padding adds 0). 1 or 2 spatial dimensions."""
    if x.ndim - 2 > 2:
        raise ValueError(f"l2_pool: {x.ndim - 2} spatial dimensions")
    k, s, pads, out, extra = _geometry(x, kernel_sizes, strides, pad_type, pad, ceil_mode,
                                       "l2_pool")
    v = x.astype(accumulator(x.dtype))
    total = _window_sum(_padded(v * v, pads, extra, 0), k, s, out)
    return np.sqrt(total).astype(x.dtype)


@mil_op("max_pool")
def max_pool(x, kernel_sizes, pad_type, strides=None, pad=None, ceil_mode=np.bool_(False)):
    """The largest window element (padding ignored)."""
    k, s, pads, out, extra = _geometry(x, kernel_sizes, strides, pad_type, pad, ceil_mode,
                                       "max_pool")
    v = _padded(x, pads, extra, -np.inf)
    best = np.full(x.shape[:2] + tuple(out), -np.inf, dtype=x.dtype)
    for offsets in np.ndindex(*k):
        best = np.maximum(best, v[(slice(None), slice(None)) + window_slices(offsets, out, s)])
    return best
