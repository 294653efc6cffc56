"""MIL normalization ops (coremltools ops/defs iOS15/normalization.py, iOS17 versions): batch_norm,
instance_norm, layer_norm, l2_norm and local_response_norm, computed in x's element type.

iOS17 lets the parameters (mean, variance, gamma, beta, epsilon) have another float type than x
(type domain U): they are converted to x's type first. The affine step follows the order of
coremltools' own layer_norm value inference, (x - mean) / sqrt(variance + epsilon) * gamma + beta,
which is also WebNN's; an absent beta still adds 0.
"""

import numpy as np

from .registry import mil_op


def _as(value, dtype):
    return np.asarray(value).astype(dtype)


def _affine(normalized, gamma, beta, shape):
    """normalized * gamma + beta with gamma/beta reshaped to `shape` (absent: 1 and 0)."""
    dtype = normalized.dtype
    y = normalized
    if gamma is not None:
        y = y * _as(gamma, dtype).reshape(shape)
    b = _as(beta, dtype).reshape(shape) if beta is not None else dtype.type(0)
    return (y + b).astype(dtype)


def _normalize(x, axes, epsilon):
    """(x - mean) / sqrt(var + epsilon) over `axes` (population variance), in x's type."""
    dtype = x.dtype
    mean = np.mean(x, axis=axes, keepdims=True, dtype=dtype)
    d = x - mean
    var = np.mean(d * d, axis=axes, keepdims=True, dtype=dtype)
    return (d / np.sqrt(var + _as(epsilon, dtype))).astype(dtype)


@mil_op("batch_norm")
def batch_norm(x, mean, variance, gamma=None, beta=None, epsilon=np.float32(1e-5)):
    """x: [n, C, *D] (rank 3-5); per-channel mean/variance/gamma/beta of shape [C]."""
    if not 3 <= x.ndim <= 5:
        raise ValueError(f"batch_norm: x must have rank 3 to 5, got {x.ndim}")
    dtype = x.dtype
    shape = (1, -1) + (1,) * (x.ndim - 2)
    with np.errstate(all="ignore"):
        d = x - _as(mean, dtype).reshape(shape)
        root = np.sqrt(_as(variance, dtype).reshape(shape) + _as(epsilon, dtype))
        return _affine((d / root).astype(dtype), gamma, beta, shape)


@mil_op("instance_norm")
def instance_norm(x, gamma=None, beta=None, epsilon=np.float32(1e-5)):
    """x: [n, C, *D] (rank 3-4), normalized per (n, C) over the spatial dims *D."""
    if not 3 <= x.ndim <= 4:
        raise ValueError(f"instance_norm: x must have rank 3 or 4, got {x.ndim}")
    shape = (1, -1) + (1,) * (x.ndim - 2)
    with np.errstate(all="ignore"):
        y = _normalize(x, tuple(range(2, x.ndim)), epsilon)
        return _affine(y, gamma, beta, shape)


@mil_op("layer_norm")
def layer_norm(x, axes=None, gamma=None, beta=None, epsilon=np.float32(1e-5)):
    """Normalized over `axes` (default: all); gamma/beta have the dims of x at `axes`, in x's
    dimension order."""
    rank = x.ndim
    axes = list(range(rank)) if axes is None else [int(a) + rank if a < 0 else int(a)
                                                   for a in np.asarray(axes).reshape(-1)]
    shape = tuple(x.shape[i] if i in axes else 1 for i in range(rank))
    with np.errstate(all="ignore"):
        y = _normalize(x, tuple(axes), epsilon)
        return _affine(y, gamma, beta, shape)


@mil_op("l2_norm")
def l2_norm(x, epsilon=np.float32(1e-6)):
    """x / sqrt(sum(x^2) + epsilon) over the last three dims, per leading (batch) index."""
    if x.ndim < 3:
        raise ValueError(f"l2_norm: x must have rank >= 3, got {x.ndim}")
    dtype = x.dtype
    axes = tuple(range(x.ndim - 3, x.ndim))
    with np.errstate(all="ignore"):
        square_sum = np.sum(x * x, axis=axes, keepdims=True, dtype=dtype)
        return (x / np.sqrt(square_sum + _as(epsilon, dtype))).astype(dtype)


@mil_op("local_response_norm")
def local_response_norm(x, size, alpha=np.float32(1e-4), beta=np.float32(0.75),
                        k=np.float32(1.0)):
    """x / (k + alpha / size * sum of x^2 over `size` channels centred on each) ^ beta, along
    axis 1 (channels beyond the ends count as 0)."""
    dtype = x.dtype
    n = int(size)
    channels = x.shape[1]
    sq = (x * x).astype(dtype)
    sums = np.zeros_like(sq)
    lo_off, hi_off = (n - 1) // 2, n // 2
    for c in range(channels):
        lo, hi = max(0, c - lo_off), min(channels, c + hi_off + 1)
        sums[:, c] = np.sum(sq[:, lo:hi], axis=1, dtype=dtype)
    with np.errstate(all="ignore"):
        scale = _as(k, dtype) + _as(alpha, dtype) / dtype.type(n) * sums
        return (x / np.power(scale, _as(beta, dtype))).astype(dtype)
