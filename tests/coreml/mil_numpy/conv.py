"""Convolution MIL ops (opset CoreML7): conv and conv_transpose (coremltools ops/defs iOS15/conv.py,
iOS17/conv.py), for 1 to 3 spatial dimensions, plus the window geometry the pools share
(pool.py): pad_type, custom pad and the output size rule of `spatial_dimensions_out_shape`.

Precision: a convolution is one op whose every output element is a dot product: its products and
their sum are accumulated in a wider type (float64 for fp32, float32 for fp16, where the product
of two halves is exact) and rounded once to the op's type, bias included, as Core ML's kernels
accumulate (a float16 kernel rounding each partial sum to float16 would be a worse, not a
different, result). Zero padding takes part in the products like any element (0·Inf is NaN).
"""

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ._util import scalar
from .registry import Unspecified, mil_op

PAD_TYPES = ("valid", "same", "same_lower", "custom")


def accumulator(dtype) -> np.dtype:
    """The type a dot product of `dtype` elements accumulates in."""
    return np.dtype(np.float64 if dtype == np.float32 else np.float32)


def int_list(value, count: int, default: int, what: str) -> List[int]:
    """A const int32 vector parameter of `count` entries, or `default` repeated when absent."""
    if value is None:
        return [default] * count
    out = [int(v) for v in np.asarray(value).reshape(-1)]
    if len(out) != count:
        raise ValueError(f"{what} has {len(out)} entries for {count} spatial dimensions")
    return out


def spatial_pads(pad_type: str, pad, in_sizes: Sequence[int], kernels: Sequence[int],
                 strides: Sequence[int]) -> List[Tuple[int, int]]:
    """(before, after) padding per spatial dimension (kernels are the effective, dilated
    sizes): valid none; custom `pad` ([before, after] per dimension); same / same_lower the total
    s·ceil(i/s) − i + k − s (at least 0, coremltools' aggregated_pad), its odd element after
    (same) or before (same_lower)."""
    n = len(in_sizes)
    if pad_type not in PAD_TYPES:
        raise ValueError(f"pad_type {pad_type!r}")
    if pad_type == "valid":
        return [(0, 0)] * n
    if pad_type == "custom":
        p = int_list(pad, 2 * n, 0, "pad")
        if any(v < 0 for v in p):
            raise ValueError(f"negative pad {p}")
        return [(p[2 * i], p[2 * i + 1]) for i in range(n)]
    out = []
    for i, k, s in zip(in_sizes, kernels, strides):
        total = max(0, s * math.ceil(i / s) - i + k - s)
        small = total // 2
        out.append((small, total - small) if pad_type == "same" else (total - small, small))
    return out


def out_sizes(in_sizes, kernels, strides, pads, ceil_mode: bool = False) -> List[int]:
    """MIL's output sizes (spatial_dimensions_out_shape): floor((i + p − k)/s) + 1, or with
    ceil_mode floor((i + p − k + s − 1)/s) + 1, less one when that last window starts at or past
    i + p/2 (and p > 0); p the total padding, k the effective kernel."""
    out = []
    for i, k, s, (b, e) in zip(in_sizes, kernels, strides, pads):
        p = b + e
        if not ceil_mode:
            o = (i + p - k) // s + 1
        else:
            o = (i + p - k + s - 1) // s + 1
            if (o - 1) * s >= i + p / 2 and p > 0:
                o -= 1
        if o <= 0:
            raise ValueError(f"output size {o} <= 0")
        out.append(o)
    return out


def window_slices(offsets: Sequence[int], counts: Sequence[int], strides: Sequence[int]):
    """The spatial slices reading, for every output position, the window element at `offsets`."""
    return tuple(slice(o, o + (c - 1) * s + 1, s) for o, c, s in zip(offsets, counts, strides))


def _check_rank(x: np.ndarray, what: str) -> int:
    nd = x.ndim - 2
    if not 1 <= nd <= 3:
        raise ValueError(f"{what}: x has rank {x.ndim}, not 3 to 5")
    return nd


def _bias(y: np.ndarray, bias: Optional[np.ndarray], channels: int) -> np.ndarray:
    """y (accumulator type, [n, C, ...]) plus bias [C] along the channels."""
    if bias is None:
        return y
    if bias.shape != (channels,):
        raise ValueError(f"bias shape {bias.shape}, expected ({channels},)")
    return y + bias.astype(y.dtype).reshape((1, channels) + (1,) * (y.ndim - 2))


@mil_op("conv")
def conv(x, weight, bias=None, strides=None, pad_type="valid", pad=None, dilations=None,
         groups=np.int32(1)):
    """y[n, o, *p] = bias[o] + Σ x_padded[n, g·Cin/G + c, *(p·s + k·d)] · weight[o, c, *k] over
    c < Cin/G and the kernel positions k, where g = o / (Cout/G); x is zero-padded. The output
    size is floor((i + pb + pe − ((K−1)·d + 1))/s) + 1. weight and bias may be of another float
    type (iOS17 `U`): they are read as x's type."""
    nd = _check_rank(x, "conv")
    g = int(scalar(groups))
    n, cin = x.shape[:2]
    w = weight.astype(x.dtype)
    cout, cin_g = w.shape[:2]
    kernel = list(w.shape[2:])
    if len(kernel) != nd or g <= 0 or cin % g or cin // g != cin_g or cout % g:
        raise ValueError(f"conv: weight {w.shape} does not fit x {x.shape} with groups {g}")
    s = int_list(strides, nd, 1, "strides")
    d = int_list(dilations, nd, 1, "dilations")
    eff = [(k - 1) * di + 1 for k, di in zip(kernel, d)]
    pads = spatial_pads(pad_type, pad, x.shape[2:], eff, s)
    out = out_sizes(x.shape[2:], eff, s, pads)
    acc = accumulator(x.dtype)
    xp = np.pad(x.astype(acc), [(0, 0), (0, 0)] + list(pads))
    xg = xp.reshape((n, g, cin_g) + xp.shape[2:])
    wg = w.astype(acc).reshape((g, cout // g, cin_g) + tuple(kernel))
    y = np.zeros((n, g, cout // g) + tuple(out), dtype=acc)
    for k in np.ndindex(*kernel):
        offsets = [ki * di for ki, di in zip(k, d)]
        patch = xg[(slice(None),) * 3 + window_slices(offsets, out, s)]
        y += np.einsum("ngc...,goc->ngo...", patch, wg[(Ellipsis,) + k])
    y = _bias(y.reshape((n, cout) + tuple(out)), bias, cout)
    return y.astype(x.dtype)


@mil_op("conv_transpose")
def conv_transpose(x, weight, bias=None, pad=None, output_shape=None, pad_type="valid",
                   strides=None, dilations=None, groups=np.int32(1)):
    """The transposed convolution: every x[n, c, *i] adds x · weight[c, o, *k] to the full
    output at i·s + k·d (output channel g·Cout/G + o for the group g of c), the full output being
    (i − 1)·s + (K − 1)·d + 1 long; `pad` (custom) crops pad[2j] elements at the start and
    pad[2j+1] at the end of dimension j; then bias. weight is [Cin, Cout/G, *K]. output_shape
    and pad_type same leave open which side absorbs the difference from the full size: only an
    output_shape equal to the padded size is evaluated."""
    nd = _check_rank(x, "conv_transpose")
    g = int(scalar(groups))
    n, cin = x.shape[:2]
    w = weight.astype(x.dtype)
    if w.shape[0] != cin or len(w.shape) != nd + 2 or g <= 0 or cin % g:
        raise ValueError(f"conv_transpose: weight {w.shape} does not fit x {x.shape} "
                         f"with groups {g}")
    cout_g = w.shape[1]
    cout = cout_g * g
    kernel = list(w.shape[2:])
    s = int_list(strides, nd, 1, "strides")
    d = int_list(dilations, nd, 1, "dilations")
    full = [(i - 1) * si + (k - 1) * di + 1 for i, k, si, di in zip(x.shape[2:], kernel, s, d)]
    if pad_type == "valid":
        pads = [(0, 0)] * nd
    elif pad_type == "custom":
        p = int_list(pad, 2 * nd, 0, "pad")
        pads = [(p[2 * j], p[2 * j + 1]) for j in range(nd)]
    elif pad_type == "same":
        raise Unspecified("conv_transpose pad_type same: MIL does not say which side is cropped")
    else:
        raise ValueError(f"conv_transpose: pad_type {pad_type!r}")
    out = [f - b - e for f, (b, e) in zip(full, pads)]
    if any(o <= 0 for o in out):
        raise ValueError(f"conv_transpose: output size {out} <= 0")
    if output_shape is not None:
        shape = [int(v) for v in np.asarray(output_shape).reshape(-1)]
        if shape != [n, cout] + out:
            raise Unspecified(f"conv_transpose output_shape {shape} differs from the padded size "
                              f"{[n, cout] + out}: MIL does not say where the difference goes")
    acc = accumulator(x.dtype)
    xg = x.astype(acc).reshape((n, g, cin // g) + x.shape[2:])
    wg = w.astype(acc).reshape((g, cin // g, cout_g) + tuple(kernel))
    y = np.zeros((n, g, cout_g) + tuple(full), dtype=acc)
    for k in np.ndindex(*kernel):
        offsets = [ki * di for ki, di in zip(k, d)]
        target = (slice(None),) * 3 + window_slices(offsets, x.shape[2:], s)
        y[target] += np.einsum("ngc...,gco->ngo...", xg, wg[(Ellipsis,) + k])
    y = y.reshape((n, cout) + tuple(full))
    y = y[(slice(None), slice(None)) + tuple(slice(b, b + o) for (b, _), o in zip(pads, out))]
    return _bias(y, bias, cout).astype(x.dtype)
