"""Tensor transformations (opset CoreML7; coremltools ops/defs iOS15/iOS17
tensor_transformation): slice_by_index, slice_by_size, reverse, reverse_sequence. They move
elements only, so they are exact in every type. (reshape, transpose, squeeze and expand_dims are
in basic.py.)"""

import numpy as np

from ._util import axes_of
from .registry import mil_op


def _ints(v):
    return [int(i) for i in np.asarray(v).reshape(-1)]


def _bools(v, rank):
    return [False] * rank if v is None else [bool(b) for b in np.asarray(v).reshape(-1)]


@mil_op("slice_by_index")
def slice_by_index(x, begin, end, stride=None, begin_mask=None, end_mask=None,
                   squeeze_mask=None):
    """numpy's x[begin[i]:end[i]:stride[i], ...] (negative indices count from the end; a set
    begin_mask/end_mask entry means from the start/to the end; a squeeze_mask entry takes the
    one element at begin and drops the dim)."""
    rank = x.ndim
    b, e = _ints(begin), _ints(end)
    s = [1] * rank if stride is None else _ints(stride)
    if not len(b) == len(e) == len(s) == rank:
        raise ValueError(f"slice_by_index: begin/end/stride lengths {len(b)}/{len(e)}/{len(s)} "
                         f"for rank {rank}")
    if any(v == 0 for v in s):
        raise ValueError(f"slice_by_index: stride 0 in {s}")
    bm, em, sm = _bools(begin_mask, rank), _bools(end_mask, rank), _bools(squeeze_mask, rank)
    index = []
    for d in range(rank):
        if sm[d]:
            index.append(b[d])
        else:
            index.append(slice(None if bm[d] else b[d], None if em[d] else e[d], s[d]))
    return np.array(x[tuple(index)], copy=True)


@mil_op("slice_by_size")
def slice_by_size(x, begin, size):
    """x[begin[i] : begin[i] + size[i]] per dim (a negative begin counts from the end; size -1
    takes the rest of the dim)."""
    b, n = _ints(begin), _ints(size)
    if not len(b) == len(n) == x.ndim:
        raise ValueError(f"slice_by_size: begin/size lengths {len(b)}/{len(n)} for rank {x.ndim}")
    index = []
    for d in range(x.ndim):
        start = b[d] + x.shape[d] if b[d] < 0 else b[d]
        stop = x.shape[d] if n[d] == -1 else start + n[d]
        if not 0 <= start <= stop <= x.shape[d]:
            raise ValueError(f"slice_by_size: [{start}, {stop}) outside a dim of size "
                             f"{x.shape[d]}")
        index.append(slice(start, stop))
    return np.array(x[tuple(index)], copy=True)


@mil_op("reverse")
def reverse(x, axes=None):
    """x read backwards along `axes` (default: every dim)."""
    a = list(range(x.ndim)) if axes is None else axes_of(axes, x.ndim)
    return np.flip(x, axis=tuple(a)).copy() if a else np.array(x, copy=True)


@mil_op("reverse_sequence")
def reverse_sequence(x, lengths, seq_axis=np.int32(0), batch_axis=np.int32(0)):
    """For each index i along batch_axis, the first lengths[i] elements along seq_axis reversed."""
    (sa,) = axes_of(seq_axis, x.ndim, "seq_axis")
    (ba,) = axes_of(batch_axis, x.ndim, "batch_axis")
    out = np.array(x, copy=True)
    lens = _ints(lengths)
    if len(lens) != x.shape[ba]:
        raise ValueError(f"reverse_sequence: {len(lens)} lengths for a batch of {x.shape[ba]}")
    for i, n in enumerate(lens):
        if not 0 <= n <= x.shape[sa]:
            raise ValueError(f"reverse_sequence: length {n} outside [0, {x.shape[sa]}]")
        src = [slice(None)] * x.ndim
        src[ba] = i
        src[sa] = slice(0, n)
        dst = list(src)
        part = x[tuple(src)]
        # the batch axis is dropped in `part`: the sequence axis moves down when after it
        out[tuple(dst)] = np.flip(part, axis=sa - (1 if sa > ba else 0))
    return out
