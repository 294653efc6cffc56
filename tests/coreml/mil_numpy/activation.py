"""MIL activations (coremltools ops/defs/iOS15/activation.py and the iOS17 overrides, whose
alpha/beta may be fp16 or fp32 whatever x is: they are converted to x's type first). x is fp16
or fp32; the result has x's type and shape. tanh is in elementwise_unary.py.

Each activation is its documented formula evaluated in float64 on x's values (and the parameters
in x's type), rounded once to x's type: what an accurate implementation of the documented
function gives. Where the formula and MIL's own value inference disagree (a NaN input of
thresholded_relu), the result is Unspecified."""

import numpy as np

from ._util import axes_of, erf64, is_float, like
from .registry import Unspecified, mil_op


def _f64(x: np.ndarray, *params):
    """x and the parameters (converted to x's type) as float64 arrays."""
    if not is_float(x):
        raise ValueError(f"x is {x.dtype}, not fp16/fp32")
    return [x.astype(np.float64)] + [like(p, x).astype(np.float64) for p in params]


def _out(v: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.asarray(v).astype(x.dtype)


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


@mil_op("relu")
def relu(x):
    """max(x, 0) (NaN stays NaN, as MIL's value inference np.maximum gives)."""
    (v,) = _f64(x)
    return _out(np.where(np.isnan(v), v, np.where(v > 0, v, 0.0)), x)


@mil_op("relu6")
def relu6(x):
    """min(max(x, 0), 6) (NaN stays NaN)."""
    (v,) = _f64(x)
    return _out(np.where(np.isnan(v), v, np.clip(v, 0.0, 6.0)), x)


@mil_op("leaky_relu")
def leaky_relu(x, alpha):
    """x >= 0 ? x : alpha * x."""
    v, a = _f64(x, alpha)
    return _out(np.where(v >= 0, v, a * v), x)


@mil_op("elu")
def elu(x, alpha):
    """x > 0 ? x : alpha * (e^x - 1)."""
    v, a = _f64(x, alpha)
    return _out(np.where(v > 0, v, a * np.expm1(v)), x)


@mil_op("gelu")
def gelu(x, mode="EXACT"):
    """EXACT 0.5x(1 + erf(x / sqrt 2)); TANH_APPROXIMATION 0.5x(1 + tanh(sqrt(2/pi)(x +
    0.044715x^3))); SIGMOID_APPROXIMATION x * sigmoid(1.702x)."""
    (v,) = _f64(x)
    if mode == "EXACT":
        r = 0.5 * v * (1.0 + erf64(v / np.sqrt(2.0)))
    elif mode == "TANH_APPROXIMATION":
        r = 0.5 * v * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (v + 0.044715 * v ** 3)))
    elif mode == "SIGMOID_APPROXIMATION":
        r = v * _sigmoid(1.702 * v)
    else:
        raise ValueError(f"gelu: unknown mode {mode!r}")
    return _out(r, x)


@mil_op("sigmoid")
def sigmoid(x):
    """1 / (1 + e^-x)."""
    (v,) = _f64(x)
    return _out(_sigmoid(v), x)


@mil_op("sigmoid_hard")
def sigmoid_hard(x, alpha, beta):
    """min(max(alpha * x + beta, 0), 1) (NaN stays NaN)."""
    v, a, b = _f64(x, alpha, beta)
    t = a * v + b
    return _out(np.where(np.isnan(t), t, np.clip(t, 0.0, 1.0)), x)


@mil_op("silu")
def silu(x):
    """x * sigmoid(x)."""
    (v,) = _f64(x)
    return _out(v * _sigmoid(v), x)


@mil_op("softplus")
def softplus(x):
    """log(1 + e^x) (computed without overflow: large x give x)."""
    (v,) = _f64(x)
    return _out(np.logaddexp(0.0, v), x)


def _per_channel(p: np.ndarray, rank: int) -> np.ndarray:
    """A [C] parameter shaped to broadcast along dimension 1 of a rank-`rank` tensor."""
    shape = [1] * rank
    shape[1] = p.shape[0]
    return p.reshape(shape)


@mil_op("softplus_parametric")
def softplus_parametric(x, alpha, beta):
    """alpha_c * log(1 + e^(beta_c * x)) with alpha, beta [C] along dimension 1 of x."""
    v, a, b = _f64(x, alpha, beta)
    if x.ndim < 3 or a.shape != (x.shape[1],) or b.shape != (x.shape[1],):
        raise ValueError("softplus_parametric: x must have rank >= 3 and alpha/beta shape [C]")
    a, b = _per_channel(a, x.ndim), _per_channel(b, x.ndim)
    return _out(a * np.logaddexp(0.0, b * v), x)


@mil_op("softsign")
def softsign(x):
    """x / (1 + |x|) (the formula: NaN for infinite x)."""
    (v,) = _f64(x)
    return _out(v / (1.0 + np.abs(v)), x)


@mil_op("softmax")
def softmax(x, axis=np.int32(-1)):
    """exp(x) / sum(exp(x)) along `axis` (default -1), as e^(x - max) / sum e^(x - max)."""
    (v,) = _f64(x)
    (a,) = axes_of(axis, x.ndim, "axis")
    e = np.exp(v - np.max(v, axis=a, keepdims=True))
    return _out(e / np.sum(e, axis=a, keepdims=True), x)


@mil_op("linear_activation")
def linear_activation(x, alpha, beta):
    """x * alpha + beta."""
    v, a, b = _f64(x, alpha, beta)
    return _out(v * a + b, x)


@mil_op("prelu")
def prelu(x, alpha):
    """x > 0 ? x : alpha_c * x, alpha [C] along dimension 1 of x (rank 3 to 5)."""
    v, a = _f64(x, alpha)
    if x.ndim not in (3, 4, 5) or a.shape != (x.shape[1],):
        raise ValueError(f"prelu: x of rank {x.ndim} with alpha {list(a.shape)}")
    a = _per_channel(a, x.ndim)
    return _out(np.where(v > 0, v, a * v), x)


@mil_op("clamped_relu")
def clamped_relu(x, alpha, beta):
    """x >= 0 ? min(beta, x) : min(beta, alpha * x) (NaN stays NaN)."""
    v, a, b = _f64(x, alpha, beta)
    t = np.where(v >= 0, v, a * v)
    return _out(np.where(np.isnan(t), t, np.minimum(b, t)), x)


@mil_op("scaled_tanh")
def scaled_tanh(x, alpha, beta):
    """alpha * tanh(beta * x)."""
    v, a, b = _f64(x, alpha, beta)
    return _out(a * np.tanh(b * v), x)


@mil_op("thresholded_relu")
def thresholded_relu(x, alpha):
    """x >= alpha ? x : 0. For a NaN the doc gives 0 and the value inference NaN: Unspecified."""
    v, a = _f64(x, alpha)
    if np.isnan(v).any():
        raise Unspecified("thresholded_relu of NaN (documented 0, value inference NaN)")
    return _out(np.where(v >= a, v, 0.0), x)
