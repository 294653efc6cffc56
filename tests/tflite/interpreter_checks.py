"""The checks of one exported TFLite model for check_interpreter.py, per op resolver of the wheel's
independent Python interpreter (ai_edge_litert.interpreter.Interpreter(model_content=...)):

  load     the interpreter reads the model and allocates its tensors; its SignatureDef
           "serving_default" has exactly the index's inputs and outputs, by name, with the
           index's element types (modelType) and shapes;
  run      the case's .npy inputs (what the backend was dispatched with) go through the signature
           runner and it invokes;
  compare  every output equals the one the backend (the LiteRT C API) produced, under the case's
           WPT tolerance and metric by the C++ WPT runner's rules (tools/cppnn/wpt_compare.cpp,
           as tests/python/wpt_runner.py ports them: ULP or ATOL, NaN and infinity rules,
           exactCompare), the backend's values taking the place of WPT's expected numbers; the
           bit-exact storage cases (metric "bitExact") compare bits, any NaN matching a NaN.

The interpreter's outputs are also compared with WPT's own expected values (the same rules), for
the report only: whether the interpreter would pass the WPT case.
"""

import math
import os
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "python"))

import wpt_runner as wpt  # noqa: E402  (the WPT comparison rules, ported from wpt_compare.cpp)

SIGNATURE = "serving_default"  # the one SignatureDef the converter writes

# The numpy dtype of each model element type of the index (modelType).
MODEL_DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32,
                "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "int8": np.int8,
                "uint8": np.uint8}
# The unsigned integer type of each float type's bits.
FLOAT_BITS = {"float32": np.uint32, "float16": np.uint16}


class InputError(Exception):
    """A problem with the checker's own input (index, .npy files, expectations, report path)."""


class StageFailure(Exception):
    """The stage fails with this message."""


# ---- the interpreter -----------------------------------------------------------------------------


def op_resolvers() -> Dict[str, object]:
    """The resolvers a check can run, by name: "xnnpack" (the interpreter's default, BUILTIN with
    its default delegate XNNPACK), "builtin" (BUILTIN_WITHOUT_DEFAULT_DELEGATES: TFLite's
    optimized builtin kernels alone) and "reference" (BUILTIN_REF: the reference kernels)."""
    from ai_edge_litert.interpreter import OpResolverType
    return {"xnnpack": OpResolverType.AUTO,
            "builtin": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
            "reference": OpResolverType.BUILTIN_REF}


RESOLVER_NAMES = ("xnnpack", "builtin", "reference")


def _error(e: BaseException) -> str:
    text = str(e).strip().replace("\n", " | ")
    return f"{type(e).__name__}: {text}"


def describe(dtype, shape) -> str:
    return f"{np.dtype(dtype).name}{list(int(d) for d in shape)}"


def load_model(content: bytes, resolver: str):
    """An interpreter of the model with the resolver, tensors allocated, and its signature runner
    (StageFailure for anything the interpreter rejects)."""
    from ai_edge_litert.interpreter import Interpreter
    try:
        interpreter = Interpreter(model_content=content, num_threads=1,
                                  experimental_op_resolver_type=op_resolvers()[resolver])
        interpreter.allocate_tensors()
        signatures = interpreter.get_signature_list()
        if SIGNATURE not in signatures:
            raise StageFailure(f"no SignatureDef {SIGNATURE!r} (the model has "
                               f"{sorted(signatures)})")
        return interpreter, interpreter.get_signature_runner(SIGNATURE)
    except StageFailure:
        raise
    except Exception as e:  # the wrapper raises ValueError / RuntimeError with TFLite's report
        raise StageFailure(_error(e)) from None


def model_shape(entry: dict) -> List[int]:
    """The model tensor's shape of an index entry: modelShape ([1] for a WebNN scalar, see
    include/cppnn/tflite.h), or the WebNN shape in an index without it."""
    return entry.get("modelShape", entry["shape"])


def check_signature(runner, inputs: List[dict], outputs: List[dict]) -> None:
    """The signature's inputs and outputs against the index's: names, element types, shapes."""
    for what, details, entries in (("input", runner.get_input_details(), inputs),
                                   ("output", runner.get_output_details(), outputs)):
        names = sorted(e["name"] for e in entries)
        if sorted(details) != names:
            raise StageFailure(f"the signature's {what}s are {sorted(details)}, the index's "
                               f"{names}")
        for e in entries:
            d = details[e["name"]]
            want = describe(MODEL_DTYPES[e["modelType"]], model_shape(e))
            got = describe(d["dtype"], d["shape"])
            if got != want:
                raise StageFailure(f"{what} {e['name']}: the model's tensor is {got}, the "
                                   f"index's {want}")


def run_model(runner, feeds: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    """Invokes the signature on the inputs; its outputs by name (StageFailure on an error)."""
    try:
        out = runner(**feeds)
    except Exception as e:
        raise StageFailure(_error(e)) from None
    return {name: np.array(value, copy=True) for name, value in out.items()}


# ---- the comparison ------------------------------------------------------------------------------


@dataclass
class Comparison:
    """One output compared: elements compared, mismatches, largest error, first mismatch."""
    checked: int = 0
    mismatches: int = 0
    max_error: float = 0.0
    first: str = ""


def tolerance_of(tolerance: dict):
    """The case's tolerance: ("bitExact", 0) or wpt.Tolerance("ULP" | "ATOL", value)."""
    metric = tolerance.get("metricType")
    if metric == "bitExact":
        return "bitExact"
    if metric not in ("ULP", "ATOL"):
        raise InputError(f"unknown metricType {metric!r}")
    return wpt.Tolerance(metric, float(wpt.js_number(tolerance["value"])))


def reference_numbers(values: np.ndarray) -> list:
    """The backend's output as the numbers WPT's comparison takes for its expected data: exact
    doubles of float16/float32 elements (which WPT's float32 rounding and toHalf give back
    unchanged), exact Python ints of integer elements."""
    flat = np.asarray(values).reshape(-1)
    if flat.dtype.kind == "f":
        return flat.astype(np.float64).tolist()
    return [int(v) for v in flat.tolist()]


def _nan_bits(model_type: str, bits: np.ndarray) -> np.ndarray:
    if model_type not in FLOAT_BITS:
        return np.zeros(bits.shape, dtype=bool)
    return np.isnan(bits.view(MODEL_DTYPES[model_type]))


def compare_bits(model_type: str, actual: np.ndarray, reference: np.ndarray) -> Comparison:
    """Bit for bit (the storage cases): identical bits, or NaN for a NaN."""
    dtype = MODEL_DTYPES[model_type]
    unsigned = FLOAT_BITS.get(model_type, np.dtype(dtype).str.replace("i", "u"))
    a = np.ascontiguousarray(actual, dtype=dtype).reshape(-1).view(unsigned)
    r = np.ascontiguousarray(reference, dtype=dtype).reshape(-1).view(unsigned)
    ok = (a == r) | (_nan_bits(model_type, a) & _nan_bits(model_type, r))
    c = Comparison(checked=int(a.size), mismatches=int(np.count_nonzero(~ok)))
    if c.mismatches:
        i = int(np.flatnonzero(~ok)[0])
        c.max_error = math.inf
        c.first = f"[{i}] bits {int(a[i])}, expected {int(r[i])}"
    return c


def compare_output(model_type: str, actual: np.ndarray, reference: np.ndarray, tolerance,
                   exact: bool) -> Comparison:
    """The interpreter's output against the backend's, under the case's tolerance (see the module
    docstring). Both arrays hold `model_type` elements of the same shape."""
    if tolerance == "bitExact":
        return compare_bits(model_type, actual, reference)
    count = int(np.asarray(reference).size)
    with np.errstate(invalid="ignore"):  # signaling NaNs widened to float64
        k = wpt.check_output(model_type, np.asarray(actual), count,
                             reference_numbers(reference), tolerance, exact)
    return Comparison(k.checked, k.mismatches, k.max_error, k.first)


def compare_expected(entry: dict, actual: np.ndarray, tolerance, exact: bool) -> Comparison:
    """The interpreter's output against WPT's expected values of the case (index `expected` or
    `expectedBits`), by the same rules; int4/uint4 outputs compare their unpacked elements."""
    if "expectedBits" in entry:
        bits = np.array([int(b) for b in entry["expectedBits"]], dtype=np.uint64)
        dtype = MODEL_DTYPES[entry["modelType"]]
        reference = bits.astype(np.dtype(dtype).str.replace("i", "u").replace("f", "u"))
        return compare_bits(entry["modelType"], actual, reference.view(dtype))
    if tolerance == "bitExact":
        raise InputError(f"output {entry['name']}: a bitExact case without expectedBits")
    data_type = entry["dataType"] if entry["dataType"] in MODEL_DTYPES else entry["modelType"]
    count = wpt.element_count(entry["shape"])
    with np.errstate(invalid="ignore"):
        k = wpt.check_output(data_type, np.asarray(actual), count,
                             wpt.numbers(entry["expected"]), tolerance, exact)
    return Comparison(k.checked, k.mismatches, k.max_error, k.first)


# ---- one case ------------------------------------------------------------------------------------


def load_npy(base_dir: str, entry: dict) -> np.ndarray:
    """The tensor of an index entry, checked against its modelType and shape."""
    path = os.path.join(base_dir, entry["file"])
    try:
        a = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    want = describe(MODEL_DTYPES[entry["modelType"]], model_shape(entry))
    if describe(a.dtype, a.shape) != want:
        raise InputError(f"{path} holds {describe(a.dtype, a.shape)}, the index says {want}")
    return a


def check_resolver(case: dict, content: bytes, feeds: Dict[str, np.ndarray],
                   references: Dict[str, np.ndarray], resolver: str,
                   progress: Callable[[str, str], None]) -> dict:
    """The three stages of one case on one resolver: {"stages": {stage: {"status", "message"}},
    "max_error", "expected": WPT check of the interpreter's outputs ("" passes)}."""
    stages = {s: {"status": "skipped", "message": ""} for s in ("load", "run", "compare")}
    r = {"stages": stages, "max_error": None, "expected": None}
    tolerance = tolerance_of(case["tolerance"])
    exact = bool(case.get("exactCompare", False))
    try:
        progress(resolver, "load")
        _, runner = load_model(content, resolver)
        check_signature(runner, case["inputs"], case["outputs"])
        stages["load"]["status"] = "passed"
        progress(resolver, "run")
        got = run_model(runner, feeds)
        stages["run"]["status"] = "passed"
    except StageFailure as e:
        stage = "load" if stages["load"]["status"] != "passed" else "run"
        stages[stage] = {"status": "failed", "message": str(e)}
        return r
    progress(resolver, "compare")
    failures, expected_failures, max_error = [], [], 0.0
    for o in case["outputs"]:
        actual = got[o["name"]]
        want = describe(MODEL_DTYPES[o["modelType"]], model_shape(o))
        gave = describe(actual.dtype, actual.shape)
        if gave != want:
            failures.append(f"{o['name']}: the interpreter gave {gave}, the index says {want}")
            continue
        c = compare_output(o["modelType"], actual, references[o["name"]], tolerance, exact)
        max_error = max(max_error, c.max_error)
        if c.mismatches:
            failures.append(f"{o['name']}: {c.mismatches} of {c.checked} elements differ from "
                            f"the backend's, first {c.first}")
        e = compare_expected(o, actual, tolerance, exact)
        if e.mismatches:
            expected_failures.append(f"{o['name']}: {e.mismatches} of {e.checked} elements "
                                     f"differ from WPT's expected values, first {e.first}")
    stages["compare"] = {"status": "failed" if failures else "passed",
                         "message": "; ".join(failures)}
    r["max_error"] = max_error if math.isfinite(max_error) else None
    r["expected"] = "; ".join(expected_failures)
    return r


def check_case(case: dict, base_dir: str, resolvers: List[str],
               progress: Optional[Callable[[str, str], None]] = None) -> dict:
    """Every resolver's stages of one index case: {"id", "model", "exported", "error",
    "resolvers": {name: check_resolver(...)}} (a case with no model: exported false, its
    error)."""
    progress = progress or (lambda resolver, stage: None)
    r = {"id": case["id"], "model": case.get("model"), "exported": False, "resolvers": {},
         "error": case.get("error", ""), "wpt": case.get("wpt")}
    if "error" in case or not case.get("model"):
        r["error"] = r["error"] or "no model"
        return r
    r["exported"] = True
    try:
        with open(os.path.join(base_dir, case["model"]), "rb") as f:
            content = f.read()
    except OSError as e:
        raise InputError(f"cannot read the model of {case['id']}: {e}") from None
    feeds = {i["name"]: load_npy(base_dir, i) for i in case["inputs"]}
    references = {o["name"]: load_npy(base_dir, o) for o in case["outputs"]}
    for resolver in resolvers:
        r["resolvers"][resolver] = check_resolver(case, content, feeds, references, resolver,
                                                  progress)
    return r
