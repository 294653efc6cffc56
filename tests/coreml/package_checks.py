"""The checks of one CoreML package for check_packages.py: the structural stage (coremltools 9
reads the package and its milproto loader rebuilds the program, re-running MIL validation and
type inference of every op; the program's form and its features' types) and the numeric stage
(the numpy MIL evaluator's outputs against WPT's expected values, by the C++ WPT runner's rules
as tests/python/wpt_runner.py ports them)."""

import logging
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "python"))

import wpt_runner as wpt  # noqa: E402  (the WPT comparison rules)
from mil_numpy import program  # noqa: E402

# The package's element types (CoremlFeature::packageType): numpy type, MIL data type code,
# coremltools' type name, ArrayFeatureType code.
PACKAGE_TYPES = {
    "float32": (np.float32, 11, "fp32", 65568),
    "float16": (np.float16, 10, "fp16", 65552),
    "int32": (np.int32, 23, "int32", 131104),
}


class InputError(Exception):
    """A problem with the checker's own input (index, expectations, report path)."""


class StageFailure(Exception):
    """The stage fails with this message."""


# ---- coremltools ---------------------------------------------------------------------------------

_CT = {}


def coremltools():
    """(coremltools, milproto load, mil types), imported once per process with its logging at
    ERROR (its import warns about the macOS-only libraries it cannot load here)."""
    if not _CT:
        logging.getLogger("coremltools").setLevel(logging.ERROR)
        warnings.filterwarnings("ignore", module="coremltools")
        import coremltools as ct
        from coremltools.converters.mil.frontend.milproto.load import load
        from coremltools.converters.mil.mil import types
        _CT.update(ct=ct, load=load, types=types)
    return _CT["ct"], _CT["load"], _CT["types"]


# ---- structural ----------------------------------------------------------------------------------


def _shape_str(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _var_type(var):
    """(coremltools type name, shape) of a MIL variable (a 0-d one is shape [])."""
    _, _, types = coremltools()
    t = var.sym_type
    if types.is_tensor(t):
        return types.builtin_to_string(t.get_primitive()), [d for d in t.get_shape()]
    return types.builtin_to_string(t), []


def _check_feature(what: str, description, var, name: str, package_type: str, shape) -> None:
    """The description's feature and the function's variable of one input/output against the
    expected name, package type and shape."""
    if description.name != name:
        raise StageFailure(f"{what}: the description names {description.name!r}, not {name!r}")
    array = description.type.multiArrayType
    _, _, mil_name, array_code = PACKAGE_TYPES[package_type]
    if description.type.WhichOneof("Type") != "multiArrayType":
        raise StageFailure(f"{what} {name}: not a multi-array feature")
    if array.dataType != array_code or list(array.shape) != list(shape):
        raise StageFailure(f"{what} {name}: the description says array type {array.dataType} "
                           f"{_shape_str(array.shape)}, expected {package_type}"
                           f"{_shape_str(shape)}")
    got_type, got_shape = _var_type(var)
    if got_type != mil_name or got_shape != list(shape):
        raise StageFailure(f"{what} {name}: MIL infers {got_type}{_shape_str(got_shape)}, expected "
                           f"{mil_name}{_shape_str(shape)}")


def _package_type_of_array(code: int) -> str:
    for name, (_, _, _, array_code) in PACKAGE_TYPES.items():
        if array_code == code:
            return name
    raise StageFailure(f"feature of unsupported array type {code}")


def _sym_type_str(t) -> str:
    """A coremltools type as "fp32[2,3]" (a scalar "fp32[]")."""
    _, _, types = coremltools()
    try:
        if types.is_tensor(t):
            return types.builtin_to_string(t.get_primitive()) + _shape_str(t.get_shape())
        return types.builtin_to_string(t) + "[]"
    except Exception:  # a symbolic dimension or a list type: coremltools' own spelling
        return str(t)


def _failing_op(tb) -> str:
    """The op milproto's loader was rebuilding when it raised ("relu -> y: "), with the declared
    and inferred types of an output type mismatch; "" when the traceback shows none."""
    frame_locals = None
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "_load_operation" and "op_spec" in tb.tb_frame.f_locals:
            frame_locals = tb.tb_frame.f_locals
        tb = tb.tb_next
    if frame_locals is None:
        return ""
    op = frame_locals["op_spec"]
    where = f"MIL op {op.type} -> {op.outputs[0].name if op.outputs else '?'}: "
    if "proto_type" in frame_locals and "pymil_type" in frame_locals:
        spec = frame_locals.get("spec")
        name = f" {spec.name}" if spec is not None else ""
        where += (f"output{name} declared {_sym_type_str(frame_locals['proto_type'])}, MIL "
                  f"infers {_sym_type_str(frame_locals['pymil_type'])}: ")
    return where


def load_package(path: str):
    """(spec, weights_dir, MIL program) of a package: coremltools' reading and milproto loading
    (StageFailure with the exception's message, and the op it was loading, when either fails),
    and the program's form (version 8, one function main in opset CoreML7)."""
    ct, load, _ = coremltools()
    try:
        model = ct.models.MLModel(path, skip_model_load=True)
        spec = model.get_spec()
        prog = load(spec, spec.specificationVersion, model.weights_dir)
    except Exception as e:  # coremltools raises anything: each one is the failure's message
        where = _failing_op(e.__traceback__)
        raise StageFailure(f"{where}{type(e).__name__}: {e}".strip()) from None
    if spec.specificationVersion != 8:
        raise StageFailure(f"specification version {spec.specificationVersion}, expected 8")
    functions = dict(spec.mlProgram.functions)
    if list(functions) != ["main"] or functions["main"].opset != "CoreML7":
        raise StageFailure("expected one function main in opset CoreML7, found "
                           + ", ".join(f"{k} ({f.opset})" for k, f in functions.items()))
    return spec, model.weights_dir, prog


def check_structure(loaded, inputs, outputs) -> None:
    """The rest of the structural stage of a loaded package (load_package's result): its
    features should be `inputs` and `outputs` (lists of (feature, packageType, packageShape))."""
    spec, _, prog = loaded
    main = prog.functions["main"]
    desc_in, desc_out = list(spec.description.input), list(spec.description.output)
    if [d.name for d in desc_in] != [f for f, _, _ in inputs]:
        raise StageFailure(f"inputs {[d.name for d in desc_in]}, expected "
                           f"{[f for f, _, _ in inputs]}")
    if [d.name for d in desc_out] != [f for f, _, _ in outputs]:
        raise StageFailure(f"outputs {[d.name for d in desc_out]}, expected "
                           f"{[f for f, _, _ in outputs]}")
    if list(main.inputs) != [f for f, _, _ in inputs]:
        raise StageFailure(f"function inputs {list(main.inputs)}, expected "
                           f"{[f for f, _, _ in inputs]}")
    if [v.name for v in main.outputs] != [f for f, _, _ in outputs]:
        raise StageFailure(f"function outputs {[v.name for v in main.outputs]}, expected "
                           f"{[f for f, _, _ in outputs]}")
    for d, (name, t, shape) in zip(desc_in, inputs):
        _check_feature("input", d, main.inputs[name], name, t, shape)
    for d, var, (name, t, shape) in zip(desc_out, main.outputs, outputs):
        _check_feature("output", d, var, name, t, shape)


def features_of(descriptions):
    """(name, packageType, shape) of the description's features (--package mode)."""
    out = []
    for d in descriptions:
        if d.type.WhichOneof("Type") != "multiArrayType":
            raise StageFailure(f"feature {d.name}: not a multi-array")
        a = d.type.multiArrayType
        out.append((d.name, _package_type_of_array(a.dataType), list(a.shape)))
    return out


# ---- numeric -------------------------------------------------------------------------------------


class NotEvaluated(Exception):
    """The evaluator lacks an op of the program."""


def bits_check(name: str, data_type: str, actual: np.ndarray, expected_bits) -> str:
    """A bit-exact output (cast-storage cases): "" or the first difference (any NaN matches a
    NaN, as the C++ runner's is_nan_bits)."""
    flat = actual.reshape(-1)
    if data_type == "float16":
        got = flat.astype(np.float16).view(np.uint16).astype(np.int64)
        nan = lambda b: (b & 0x7C00) == 0x7C00 and (b & 0x03FF) != 0  # noqa: E731
    elif data_type == "float32":
        got = flat.astype(np.float32).view(np.uint32).astype(np.int64)
        nan = lambda b: (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0  # noqa: E731
    else:
        got = flat.astype(np.int64)
        nan = lambda b: False  # noqa: E731
    if len(expected_bits) != got.size:
        return f"{name}: {got.size} elements, {len(expected_bits)} expected bit patterns"
    for i, e in enumerate(expected_bits):
        g = int(got[i])
        if g != int(e) and not (nan(int(e)) and nan(g)):
            return f"{name}: [{i}] bits {g}, expected {int(e)}"
    return ""


def check_numbers(case: dict, base_dir: str, spec, weights_dir: str) -> float:
    """The numeric stage; returns the largest error (StageFailure / NotEvaluated otherwise)."""
    feeds = {}
    for i in case.get("inputs", []):
        arr = np.load(os.path.join(base_dir, i["file"]), allow_pickle=False)
        np_type = PACKAGE_TYPES[i["packageType"]][0]
        feeds[i["feature"]] = arr.astype(np_type).reshape(i["packageShape"])
    try:
        results = program.evaluate(spec, feeds, weights_dir)
    except program.NotEvaluated as e:
        raise NotEvaluated(str(e)) from None
    except program.EvalError as e:
        raise StageFailure(f"evaluation: {e}") from None
    tolerance = case.get("tolerance") or {}
    exact = bool(case.get("exactCompare", False))
    max_error = 0.0
    for o in case["outputs"]:
        actual = results[o["feature"]]
        if "expectedBits" in o:
            message = bits_check(o["name"], o["dataType"], actual, o["expectedBits"])
            if message:
                raise StageFailure(message)
            continue
        try:
            tol = wpt.Tolerance(tolerance["metricType"], float(wpt.js_number(tolerance["value"])))
            expected = wpt.numbers(o["expected"])
        except (KeyError, wpt.CaseFailure) as e:
            raise InputError(f"{case['id']}: bad tolerance or expected data: {e}") from None
        if tol.metric not in ("ULP", "ATOL"):
            raise InputError(f"{case['id']}: unknown metric {tol.metric}")
        # int8/uint8 outputs are int32 in the package: compared by value as the runner does.
        compare_type = o["dataType"] if o["dataType"] in ("float32", "float16") else "int32"
        count = wpt.element_count(o["shape"])
        k = wpt.check_output(compare_type, actual, count, expected, tol, exact)
        max_error = max(max_error, k.max_error)
        if k.mismatches:
            raise StageFailure(f"{o['name']}: {k.mismatches} of {k.checked} elements differ, "
                               f"first {k.first}")
    return max_error
