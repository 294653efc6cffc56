"""Basic MIL ops (opset CoreML7): identity, cast, fill, select, shape and the shape changes reshape,
transpose, squeeze, expand_dims (coremltools ops/defs iOS15 control_flow/tensor_operation/
tensor_transformation, iOS17 elementwise_unary.cast and tensor_transformation). `const` is decoded
by program.py."""

import numpy as np

from ._util import axes_of, is_float
from .registry import Unspecified, mil_op

# cast's dtype strings -> numpy types (iOS17: int8, uint8, int16, uint16, int32, fp16, fp32, bool).
CAST_TYPES = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
              "int32": np.int32, "fp16": np.float16, "fp32": np.float32, "bool": np.bool_}


@mil_op("identity")
def identity(x):
    """x itself."""
    return np.array(x, copy=True)


@mil_op("cast")
def cast(x, dtype):
    """x converted to `dtype`: to bool x != 0; from bool 0/1; float to float rounds to nearest
    (even), overflowing to infinity; integers to floats round to nearest; floats to integers
    truncate toward zero (coremltools' own value inference: MIL documents no rounding) and
    integers convert exactly. A NaN, or a value outside the target integer type, has no
    documented result: Unspecified."""
    if dtype not in CAST_TYPES:
        raise ValueError(f"cast: unknown dtype {dtype!r}")
    to = np.dtype(CAST_TYPES[dtype])
    if to == np.bool_:
        return x != 0
    if to.kind == "f" or x.dtype == np.bool_:
        return x.astype(to)
    # To an integer type.
    if is_float(x):
        if np.isnan(x).any():
            raise Unspecified(f"cast of NaN to {dtype}")
        values = np.trunc(x.astype(np.float64))
    else:
        values = x.astype(np.int64)
    info = np.iinfo(to)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise Unspecified(f"cast to {dtype} of a value outside its range "
                          f"[{info.min}, {info.max}] (wrap or saturate is not documented)")
    return values.astype(to)


@mil_op("fill")
def fill(shape, value=np.float32(0)):
    """A tensor of shape `shape` (int32 [K]) holding `value` (default 0.0, fp32)."""
    value = np.asarray(value)
    dims = [int(d) for d in np.asarray(shape).reshape(-1)]
    if any(d <= 0 for d in dims):
        raise ValueError(f"fill: shape {dims} has a dimension <= 0")
    return np.full(dims, value, dtype=value.dtype)


@mil_op("select")
def select(cond, a, b):
    """a where cond, else b, all three broadcast (numpy rules)."""
    if cond.dtype != np.bool_:
        raise ValueError(f"select: cond is {cond.dtype}, not bool")
    if a.dtype != b.dtype:
        raise ValueError(f"select: a is {a.dtype}, b is {b.dtype}")
    return np.where(cond, a, b).astype(a.dtype)


@mil_op("shape")
def shape(x):
    """x's shape as int32 [rank]."""
    return np.array(x.shape, dtype=np.int32)


def reshape_target(from_shape, to_shape):
    """iOS17 reshape's output shape: each 0 in `to_shape` takes the dimension of x at the same
    position counted from the right (1 where x has none), then one -1 takes what is left."""
    to = [int(d) for d in to_shape]
    rev_from = list(from_shape)[::-1]
    rev_to = to[::-1]
    for i, d in enumerate(rev_to):
        if d == 0:
            rev_to[i] = rev_from[i] if i < len(rev_from) else 1
    to = rev_to[::-1]
    total = int(np.prod(from_shape, dtype=np.int64))
    if to.count(-1) > 1:
        raise ValueError(f"reshape: more than one -1 in {to_shape}")
    if -1 in to:
        rest = int(np.prod([d for d in to if d != -1], dtype=np.int64))
        to[to.index(-1)] = total // rest if rest else 0
    if any(d < 0 for d in to) or int(np.prod(to, dtype=np.int64)) != total:
        raise ValueError(f"reshape: {list(from_shape)} cannot become {list(to_shape)}")
    return to


@mil_op("reshape")
def reshape(x, shape):
    """x's elements (row-major) in the shape `shape` (iOS17 rules for 0 and -1)."""
    return np.reshape(x, reshape_target(x.shape, np.asarray(shape).reshape(-1))).copy()


@mil_op("transpose")
def transpose(x, perm):
    """x with its dimensions permuted: output dim i is input dim perm[i]."""
    p = axes_of(perm, x.ndim, "perm")
    if sorted(p) != list(range(x.ndim)):
        raise ValueError(f"transpose: perm {p} is not a permutation of rank {x.ndim}")
    return np.ascontiguousarray(np.transpose(x, p))


@mil_op("squeeze")
def squeeze(x, axes=None):
    """x without its size-1 dimensions: all of them, or those of `axes` that have size 1
    (listed axes of another size stay, as MIL's type inference has it)."""
    if x.ndim == 0:
        raise ValueError("squeeze: x must have rank >= 1")
    if axes is None:
        keep = [d for d in x.shape if d != 1]
    else:
        drop = set(axes_of(axes, x.ndim))
        keep = [d for i, d in enumerate(x.shape) if not (i in drop and d == 1)]
    return np.reshape(x, keep).copy()


@mil_op("expand_dims")
def expand_dims(x, axes):
    """x with a size-1 dimension inserted at each of `axes` (positions in the output, whose
    rank is rank(x) + len(axes); negative ones count from its end)."""
    axes = [int(a) for a in np.asarray(axes).reshape(-1)]
    out_rank = x.ndim + len(axes)
    normalised = sorted(axes_of(axes, out_rank))
    if len(set(normalised)) != len(normalised):
        raise ValueError(f"expand_dims: repeated axes {axes}")
    shape = list(x.shape)
    for a in normalised:
        shape.insert(a, 1)
    return np.reshape(x, shape).copy()
