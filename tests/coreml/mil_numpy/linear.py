"""Linear algebra MIL ops (opset CoreML7): matmul and linear (coremltools ops/defs iOS15/linear.py,
iOS17/linear.py).

Precision: every output element is a dot product accumulated in a wider type (float64 for fp32,
float32 for fp16, where the product of two halves is exact) and rounded once to the op's type,
bias included (see conv.py); int32 products are exact, a result outside int32 is Unspecified.
"""

import numpy as np

from ._util import checked_int32, scalar
from .conv import accumulator
from .registry import mil_op


def _product(x: np.ndarray, y: np.ndarray, out_dtype) -> np.ndarray:
    """np.matmul of x and y (same type) computed exactly enough and rounded once to out_dtype."""
    if x.dtype == np.int32:
        return checked_int32(np.matmul(x.astype(np.int64), y.astype(np.int64)), "matmul")
    acc = accumulator(x.dtype)
    return np.matmul(x.astype(acc), y.astype(acc)).astype(out_dtype)


@mil_op("matmul")
def matmul(x, y, transpose_x=np.bool_(False), transpose_y=np.bool_(False)):
    """The batched matrix product with numpy broadcasting of the batch dimensions (all but the
    last two); transpose_x / transpose_y swap the last two dimensions of x / y first (no effect on
    1-D; transpose_x on a 1-D x is an error). A 1-D x is promoted to [1, K] and a 1-D y to
    [K, 1], the inserted dimension removed from the result. iOS17: x and y may differ in type
    when one is const; the result then has the non-const one's type, which this evaluator cannot
    tell apart: it requires equal types."""
    if x.dtype != y.dtype:
        raise ValueError(f"matmul: x is {x.dtype}, y is {y.dtype}")
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("matmul: a 0-D operand")
    if bool(scalar(transpose_x)):
        if x.ndim == 1:
            raise ValueError("matmul: transpose_x on a 1-D x")
        x = np.swapaxes(x, -1, -2)
    if bool(scalar(transpose_y)) and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    if x.shape[-1] != (y.shape[0] if y.ndim == 1 else y.shape[-2]):
        raise ValueError(f"matmul: x {x.shape} and y {y.shape} do not match")
    return _product(x, y, x.dtype)


@mil_op("linear")
def linear(x, weight, bias=None):
    """x · weightᵀ + bias over the last dimension of x (rank 1 to 3); weight [D_out, D_in],
    bias [D_out] (default 0), read as x's type (iOS17 `U` may differ)."""
    if not 1 <= x.ndim <= 3:
        raise ValueError(f"linear: x has rank {x.ndim}")
    w = weight.astype(x.dtype)
    if w.ndim != 2 or w.shape[1] != x.shape[-1]:
        raise ValueError(f"linear: weight {w.shape} does not fit x {x.shape}")
    if x.dtype == np.int32:
        y = np.matmul(x.astype(np.int64), w.T.astype(np.int64))
        if bias is not None:
            y = y + bias.astype(np.int64)
        return checked_int32(y, "linear")
    acc = accumulator(x.dtype)
    y = np.matmul(x.astype(acc), w.T.astype(acc))
    if bias is not None:
        if bias.shape != (w.shape[0],):
            raise ValueError(f"linear: bias {bias.shape} for weight {w.shape}")
        y = y + bias.astype(x.dtype).astype(acc)
    return y.astype(x.dtype)
