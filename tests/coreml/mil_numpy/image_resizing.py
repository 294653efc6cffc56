"""MIL image resizing ops (coremltools ops/defs iOS15/iOS16/iOS17 image_resizing.py):
upsample_nearest_neighbor, resize_nearest_neighbor, upsample_bilinear and resize_bilinear, which
resample the last two dimensions of x (rank >= 3), computed in x's element type.

Bilinear sampling grids are those of resize_bilinear's documentation (per sampling_mode); the
grid coordinates are computed in float32, the interpolation lo * (1 - w) + hi * w in x's type,
along the width first, then the height. Nearest-neighbor: upsample_nearest_neighbor reads index
floor(i / scale) (its documented integer upsampling; fractional scales use the same rule), and
resize_nearest_neighbor, whose rounding Apple does not document, floor(i * in / out) (TensorFlow's
resize_nearest_neighbor without half-pixel centers, the op's origin).
"""

import numpy as np

from .registry import mil_op


def _grid(n_in, n_out, mode):
    """The float32 input coordinates of the n_out output points, per resize_bilinear's docs."""
    i = np.arange(n_out, dtype=np.float32)
    f_in, f_out = np.float32(n_in), np.float32(n_out)
    if mode in ("STRICT_ALIGN_CORNERS", "ALIGN_CORNERS"):
        if n_out == 1:
            g = np.full(1, (f_in - 1) / 2 if mode == "ALIGN_CORNERS" else 0, dtype=np.float32)
        else:
            g = i * ((f_in - 1) / (f_out - 1))
    elif mode == "DEFAULT":
        spacing = (f_in - f_in / f_out) / (f_out - 1) if n_out > 1 else np.float32(0)
        g = i * spacing
    elif mode == "OFFSET_CORNERS":
        delta = np.float32(max(1, n_in - 1)) / f_out
        g = np.float32(0.5) * delta + i * delta
    elif mode == "UNALIGN_CORNERS":
        spacing = f_in / f_out
        g = i * spacing + np.float32(0.5) * spacing - np.float32(0.5)
    else:
        raise ValueError(f"resize: unknown sampling_mode {mode!r}")
    return np.clip(g, 0, f_in - 1).astype(np.float32)


def _interpolate(x, axis, grid):
    """x linearly interpolated along `axis` at the coordinates `grid`."""
    n_in = x.shape[axis]
    lo = np.floor(grid).astype(np.int64)
    hi = np.minimum(lo + 1, n_in - 1)
    w = (grid - lo.astype(np.float32)).astype(x.dtype)
    shape = [1] * x.ndim
    shape[axis] = -1
    w = w.reshape(shape)
    a, b = np.take(x, lo, axis=axis), np.take(x, hi, axis=axis)
    with np.errstate(all="ignore"):
        return (a * (x.dtype.type(1) - w) + b * w).astype(x.dtype)


def _bilinear(x, height, width, mode):
    if x.ndim < 3:
        raise ValueError(f"resize: x must have rank >= 3, got {x.ndim}")
    y = _interpolate(x, x.ndim - 1, _grid(x.shape[-1], width, mode))
    return _interpolate(y, x.ndim - 2, _grid(x.shape[-2], height, mode))


def _take_last_two(x, rows, cols):
    if x.ndim < 3:
        raise ValueError(f"resize: x must have rank >= 3, got {x.ndim}")
    return np.take(np.take(x, cols, axis=x.ndim - 1), rows, axis=x.ndim - 2)


@mil_op("upsample_nearest_neighbor")
def upsample_nearest_neighbor(x, scale_factor_height=np.int32(1), scale_factor_width=np.int32(1)):
    sh, sw = float(scale_factor_height), float(scale_factor_width)
    h, w = x.shape[-2], x.shape[-1]
    out_h, out_w = int(np.floor(h * sh)), int(np.floor(w * sw))
    rows = np.minimum(np.floor(np.arange(out_h) / sh).astype(np.int64), h - 1)
    cols = np.minimum(np.floor(np.arange(out_w) / sw).astype(np.int64), w - 1)
    return _take_last_two(x, rows, cols)


@mil_op("resize_nearest_neighbor")
def resize_nearest_neighbor(x, target_size_height, target_size_width):
    h, w = x.shape[-2], x.shape[-1]
    out_h, out_w = int(target_size_height), int(target_size_width)
    rows = np.minimum(np.arange(out_h, dtype=np.int64) * h // out_h, h - 1)
    cols = np.minimum(np.arange(out_w, dtype=np.int64) * w // out_w, w - 1)
    return _take_last_two(x, rows, cols)


@mil_op("resize_bilinear")
def resize_bilinear(x, target_size_height=np.int32(1), target_size_width=np.int32(1),
                    sampling_mode="DEFAULT"):
    return _bilinear(x, int(target_size_height), int(target_size_width), sampling_mode)


@mil_op("upsample_bilinear")
def upsample_bilinear(x, scale_factor_height=np.int32(1), scale_factor_width=np.int32(1),
                      align_corners=np.bool_(True), half_pixel_centers=None):
    """align_corners: STRICT_ALIGN_CORNERS' grid; else half-pixel centers (the default,
    UNALIGN_CORNERS' grid) or i * in / out."""
    out_h = int(np.floor(x.shape[-2] * float(scale_factor_height)))
    out_w = int(np.floor(x.shape[-1] * float(scale_factor_width)))
    align = bool(align_corners)
    half = (not align) if half_pixel_centers is None else bool(half_pixel_centers)
    if align:
        return _bilinear(x, out_h, out_w, "STRICT_ALIGN_CORNERS")
    if half:
        return _bilinear(x, out_h, out_w, "UNALIGN_CORNERS")
    y = x
    for axis, n_out in ((x.ndim - 1, out_w), (x.ndim - 2, out_h)):
        n_in = y.shape[axis]
        g = np.arange(n_out, dtype=np.float32) * (np.float32(n_in) / np.float32(n_out))
        y = _interpolate(y, axis, np.clip(g, 0, np.float32(n_in - 1)).astype(np.float32))
    return y
