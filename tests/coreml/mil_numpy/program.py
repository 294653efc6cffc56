"""Evaluation of an ML Program's `main` function with numpy, from its protobuf spec.

`evaluate(spec, inputs, weights_dir)` walks the function's block in order: a `const` op's value is
decoded from the spec (an immediate value, or a blob of the package's weights/weight.bin read by
BlobFile below), every other op is computed by its registry.OPS function with its arguments
resolved, and every result is checked against the type and shape the program declares for it.
It returns the block's outputs by name.

Failures are exceptions naming the op:
  - NotEvaluated: an op type this evaluator has no function for ("not evaluated: MIL op X");
  - EvalError: anything else (a bad spec, a type or shape mismatch, an op function's error);
  - registry.Unspecified (wrapped as EvalError with the reason): MIL does not define the result.
"""

import os
import struct
from typing import Dict, List, Optional, Tuple

import numpy as np

from .registry import OPS, Unspecified

# ---- types ---------------------------------------------------------------------------------------

# MIL_pb2.DataType codes -> numpy element types (STRING is handled apart).
STRING = 2
DTYPES = {
    1: np.dtype(np.bool_),
    10: np.dtype(np.float16),
    11: np.dtype(np.float32),
    12: np.dtype(np.float64),
    21: np.dtype(np.int8),
    22: np.dtype(np.int16),
    23: np.dtype(np.int32),
    24: np.dtype(np.int64),
    31: np.dtype(np.uint8),
    32: np.dtype(np.uint16),
    33: np.dtype(np.uint32),
    34: np.dtype(np.uint64),
}
# MIL's names of them, for messages.
DTYPE_NAMES = {1: "bool", 2: "string", 10: "fp16", 11: "fp32", 12: "fp64", 21: "int8",
               22: "int16", 23: "int32", 24: "int64", 31: "uint8", 32: "uint16", 33: "uint32",
               34: "uint64"}

# Parameters that MIL declares as TupleInputType (variadic: always passed as a list), by op type
# (coremltools' ops/defs, iOS15-iOS17; test_mil_numpy.py checks this table against them).
VARIADIC = {
    "concat": {"values"},
    "stack": {"values"},
    "einsum": {"values"},
    "while_loop": {"loop_vars"},
    "make_list": {"elem_shape"},
    "reshape_like": {"ref_tensors", "begins", "ends", "end_masks"},
}


class EvalError(Exception):
    """The program could not be evaluated (the message names the op and the reason)."""


class NotEvaluated(EvalError):
    """The program uses an op type that registry.OPS lacks."""


def declared_type(value_type) -> Tuple[int, Tuple[int, ...]]:
    """(MIL data type code, static shape) of a MIL_pb2.ValueType; a rank-0 tensor is shape ()."""
    if value_type.WhichOneof("type") != "tensorType":
        raise EvalError(f"unsupported value type {value_type.WhichOneof('type')}")
    t = value_type.tensorType
    if t.rank != len(t.dimensions):
        raise EvalError(f"tensor type of rank {t.rank} with {len(t.dimensions)} dimensions")
    shape = []
    for d in t.dimensions:
        if d.WhichOneof("dimension") != "constant":
            raise EvalError("a dimension that is not a constant")
        shape.append(int(d.constant.size))
    return int(t.dataType), tuple(shape)


def type_str(code: int, shape) -> str:
    """MIL's spelling of a tensor type, e.g. "fp32[2,3]"."""
    return f"{DTYPE_NAMES.get(code, str(code))}[{','.join(str(d) for d in shape)}]"


def check_type(value, code: int, shape, what: str) -> None:
    """EvalError unless `value` is an array of MIL type `code` and `shape` (or a str for a
    string)."""
    if code == STRING:
        if not isinstance(value, str) or shape != ():
            raise EvalError(f"{what}: {_describe(value)} where string is declared")
        return
    if (not isinstance(value, np.ndarray) or value.dtype != DTYPES.get(code)
            or value.shape != tuple(shape)):
        raise EvalError(f"{what}: {_describe(value)} where {type_str(code, shape)} is declared")


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)}"
    return type(value).__name__


# ---- the weight blob -----------------------------------------------------------------------------

# milstorage's BlobDataType codes -> (numpy element type, the MIL data type it holds).
BLOB_DTYPES = {1: (np.float16, 10), 2: (np.float32, 11), 3: (np.uint8, 31), 4: (np.int8, 21),
               6: (np.int16, 22), 7: (np.uint16, 32), 14: (np.int32, 23), 15: (np.uint32, 33)}
BLOB_SENTINEL = 0xDEADBEEF
BLOB_ALIGNMENT = 64


class BlobFile:
    """Apple's MIL blob storage file (weights/weight.bin; coremltools' milstorage, cppnn's
    src/export/coreml/weight_blob.cpp): a 64-byte header (uint32 blob count, uint32 version 2),
    then per blob a 64-byte aligned metadata record (uint32 sentinel 0xDEADBEEF, uint32 data type,
    uint64 size in bytes, uint64 data offset) and its data. A const names a blob by the offset of
    its metadata record."""

    def __init__(self, path: str):
        with open(path, "rb") as f:
            self.data = f.read()
        if len(self.data) < BLOB_ALIGNMENT:
            raise EvalError(f"{path}: {len(self.data)} bytes, shorter than the storage header")
        self.count, self.version = struct.unpack_from("<II", self.data, 0)
        if self.version != 2:
            raise EvalError(f"{path}: storage version {self.version}, expected 2")

    def read(self, offset: int, code: int, count: int) -> np.ndarray:
        """The `count` elements of MIL type `code` of the blob whose metadata is at `offset`."""
        if offset % BLOB_ALIGNMENT or offset + BLOB_ALIGNMENT > len(self.data) or offset == 0:
            raise EvalError(f"blob offset {offset}: not a metadata record of the file")
        sentinel, blob_type, size, data_offset = struct.unpack_from("<IIQQ", self.data, offset)
        if sentinel != BLOB_SENTINEL:
            raise EvalError(f"blob offset {offset}: sentinel {sentinel:#x}, not 0xdeadbeef")
        if blob_type not in BLOB_DTYPES:
            raise EvalError(f"blob offset {offset}: unsupported blob data type {blob_type}")
        np_type, mil_code = BLOB_DTYPES[blob_type]
        if mil_code != code:
            raise EvalError(f"blob offset {offset}: holds {DTYPE_NAMES[mil_code]}, the const is "
                            f"{DTYPE_NAMES.get(code, code)}")
        itemsize = np.dtype(np_type).itemsize
        if size != count * itemsize:
            raise EvalError(f"blob offset {offset}: {size} bytes for {count} elements")
        if data_offset % BLOB_ALIGNMENT or data_offset + size > len(self.data):
            raise EvalError(f"blob offset {offset}: data at {data_offset} (+{size}) is outside "
                            "the file or unaligned")
        return np.frombuffer(self.data, np_type, count, data_offset).copy()


# ---- values --------------------------------------------------------------------------------------


class Weights:
    """The package's weight files, opened on first use."""

    def __init__(self, weights_dir: Optional[str]):
        self.dir = weights_dir
        self.files: Dict[str, BlobFile] = {}

    def blob(self, file_name: str) -> BlobFile:
        # "@model_path/weights/weight.bin": the file of that name in the weights folder.
        name = file_name.split("/")[-1]
        if name not in self.files:
            if not self.dir:
                raise EvalError(f"blob file {file_name}: no weights folder")
            self.files[name] = BlobFile(os.path.join(self.dir, name))
        return self.files[name]


def _immediate(tensor_value, code: int, shape) -> np.ndarray:
    """A MIL_pb2.TensorValue's elements as an array of MIL type `code` and `shape` (coremltools'
    fields: floats for fp32, ints for int32/int16/uint16, bools, strings, longInts, doubles, and
    raw little-endian bytes for fp16/int8/uint8)."""
    field = tensor_value.WhichOneof("value")
    count = int(np.prod(shape, dtype=np.int64))
    if field == "bytes":
        raw = tensor_value.bytes.values
        dtype = DTYPES[code]
        if len(raw) != count * dtype.itemsize:
            raise EvalError(f"{len(raw)} bytes for {type_str(code, shape)}")
        return np.frombuffer(raw, dtype).reshape(shape).copy()
    if field is None:
        values = []
    else:
        values = list(getattr(tensor_value, field).values)
    if len(values) != count:
        raise EvalError(f"{len(values)} values ({field}) for {type_str(code, shape)}")
    if field == "floats":  # float32 values: exact for fp32, rounded for other float types
        return np.array(values, dtype=np.float32).astype(DTYPES[code]).reshape(shape)
    return np.array(values, dtype=DTYPES[code]).reshape(shape)


def decode_value(value_spec, weights: Weights):
    """A MIL_pb2.Value: a numpy array of its declared type and shape, or a str for a string
    scalar."""
    code, shape = declared_type(value_spec.type)
    kind = value_spec.WhichOneof("value")
    if kind == "immediateValue":
        imm = value_spec.immediateValue
        if imm.WhichOneof("value") != "tensor":
            raise EvalError(f"immediate value of kind {imm.WhichOneof('value')}")
        if code == STRING:
            strings = list(imm.tensor.strings.values)
            if shape != () or len(strings) != 1:
                raise EvalError("string tensors other than scalars")
            return strings[0]
        if code not in DTYPES:
            raise EvalError(f"immediate value of MIL type {code}")
        return _immediate(imm.tensor, code, shape)
    if kind == "blobFileValue":
        count = int(np.prod(shape, dtype=np.int64))
        blob = weights.blob(value_spec.blobFileValue.fileName)
        return blob.read(int(value_spec.blobFileValue.offset), code, count).reshape(shape)
    raise EvalError(f"value without data ({kind})")


# ---- the program ---------------------------------------------------------------------------------


def main_block(spec):
    """The `main` function of a Model_pb2.Model holding an ML Program, and its block."""
    if spec.WhichOneof("Type") != "mlProgram":
        raise EvalError("not an ML Program")
    functions = spec.mlProgram.functions
    if "main" not in functions:
        raise EvalError("no function main")
    function = functions["main"]
    if function.opset not in function.block_specializations:
        raise EvalError(f"no block for opset {function.opset}")
    return function, function.block_specializations[function.opset]


def _op_name(op) -> str:
    """An op's name for messages: its type and first output."""
    out = op.outputs[0].name if op.outputs else "?"
    return f"{op.type} -> {out}"


def _arguments(op, env: Dict[str, object], weights: Weights) -> Dict[str, object]:
    """The op's keyword arguments: each parameter's bound variables or literal values, a list for
    the variadic parameters."""
    kwargs = {}
    variadic = VARIADIC.get(op.type, ())
    for param, argument in op.inputs.items():
        values = []
        for binding in argument.arguments:
            kind = binding.WhichOneof("binding")
            if kind == "name":
                if binding.name not in env:
                    raise EvalError(f"{param}: variable {binding.name!r} is not defined")
                values.append(env[binding.name])
            elif kind == "value":
                values.append(decode_value(binding.value, weights))
            else:
                raise EvalError(f"{param}: binding of kind {kind}")
        if param in variadic:
            kwargs[param] = values
        elif len(values) == 1:
            kwargs[param] = values[0]
        else:
            raise EvalError(f"{param}: {len(values)} arguments for a parameter that takes one")
    return kwargs


def _run_op(op, env: Dict[str, object], weights: Weights) -> List[object]:
    """The results of one op (one per declared output)."""
    if op.type == "const":
        if "val" not in op.attributes:
            raise EvalError("const without val")
        return [decode_value(op.attributes["val"], weights)]
    fn = OPS.get(op.type)
    if fn is None:
        raise NotEvaluated(f"not evaluated: MIL op {op.type}")
    kwargs = _arguments(op, env, weights)
    with np.errstate(all="ignore"):  # IEEE results (inf, nan) are values here, not errors
        result = fn(**kwargs)
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(r) if isinstance(r, np.generic) else r for r in results]


def evaluate(spec, inputs: Dict[str, np.ndarray], weights_dir: Optional[str]) -> Dict[str, object]:
    """Evaluates `main` of Model_pb2.Model `spec` on `inputs` (arrays by function input name, of
    the declared types) and returns its outputs by name. Raises EvalError (NotEvaluated for a
    missing op type)."""
    function, block = main_block(spec)
    weights = Weights(weights_dir)
    env: Dict[str, object] = {}
    for named in function.inputs:
        if named.name not in inputs:
            raise EvalError(f"input {named.name!r} not given")
        code, shape = declared_type(named.type)
        check_type(inputs[named.name], code, shape, f"input {named.name}")
        env[named.name] = inputs[named.name]
    for op in block.operations:
        try:
            results = _run_op(op, env, weights)
            if len(results) != len(op.outputs):
                raise EvalError(f"{len(results)} results for {len(op.outputs)} outputs")
            for value, out in zip(results, op.outputs):
                code, shape = declared_type(out.type)
                check_type(value, code, shape, f"output {out.name}")
                env[out.name] = value
        except NotEvaluated:
            raise
        except EvalError as e:
            raise EvalError(f"MIL op {_op_name(op)}: {e}") from None
        except Unspecified as e:
            raise EvalError(f"MIL op {_op_name(op)}: result not specified by MIL: {e}") from None
        except Exception as e:  # an op function's own failure (bad parameters, ...)
            raise EvalError(f"MIL op {_op_name(op)}: {type(e).__name__}: {e}") from None
    missing = [name for name in block.outputs if name not in env]
    if missing:
        raise EvalError(f"block outputs {missing} are not defined")
    return {name: env[name] for name in block.outputs}
