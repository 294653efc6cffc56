#!/usr/bin/env python3
"""The WPT WebNN corpus (../shared/wpt, see its README.md) through the Python package `cppnn`.

A Python mirror of `cppnn wpt` (tools/cppnn/wpt*.cpp) that uses only the package's public API:

* ``--suite conformance`` builds every conformance case the way WPT's buildAndExecuteGraph does
  (graph inputs, constants, operators with their positional arguments and options), dispatches it
  once through MLTensors on ``--backend`` and compares every graph output with the expected
  descriptor and data under the case's tolerance (WPT's ULP and ATOL metrics, its toHalf for
  float16, exact 64-bit integers, any NaN where NaN is expected, exactCompare); the bit-exact
  storage cases of cast-storage.json build one identity or cast and dispatch twice.
* ``--suite validation`` replays the recorded validation traces through the builder and checks
  what WPT requires of each step: success with the expected output descriptors, or the expected
  exception (and the label in its message). As in the C++ runner, a successful input() or
  constant() of a data type outside the context's opSupportLimits() is not run (nor anything
  using its operand), and a successful op call whose operands (or expected outputs) are outside
  the op's limits must throw TypeError.

Known failures come from the C++ runner's lists (tests/wpt/<suite>-expected-failures.txt); a
listed case that passes fails the run. The JSON report has the C++ runner's schema. The last
line reads ``wpt-conformance-python-<backend>: N passed, N failed, N skipped`` (or
``wpt-validation-python: ...``). Exit status: 0 success, 1 failures or bad input, 2 usage
error, 77 skipped (no corpus).

Usable as a module: run_suite() returns the results (tests/python/test_wpt.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import decimal
import json
import math
import os
import re
import sys
import tempfile
import time
from typing import Callable, Optional

import numpy as np

try:
    import cppnn
except ImportError:  # the comparison helpers below work without the package
    cppnn = None

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 77

# ---- data types ----------------------------------------------------------------------------------

DATA_TYPES = ("float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8",
              "int4", "uint4")
BITS = {"float32": 32, "float16": 16, "int32": 32, "uint32": 32, "int64": 64, "uint64": 64,
        "int8": 8, "uint8": 8, "int4": 4, "uint4": 4}
# The numpy dtype of a tensor's data (int4/uint4: uint8 bytes packed two per byte).
NUMPY = {"float32": np.float32, "float16": np.float16, "int32": np.int32, "uint32": np.uint32,
         "int64": np.int64, "uint64": np.uint64, "int8": np.int8, "uint8": np.uint8,
         "int4": np.uint8, "uint4": np.uint8}
SIGNED = {"int32", "int64", "int8", "int4"}
UINT_OF_BITS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
INT_OF_BITS = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}

UINT32_MAX = 2**32 - 1
INT64_MIN, INT64_MAX, UINT64_MAX = -2**63, 2**63 - 1, 2**64 - 1


def element_count(shape) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def descriptor_str(data_type: str, shape) -> str:
    """cppnn's to_string(MLOperandDescriptor): "float32[2,3]"."""
    return f"{data_type}[{','.join(str(int(d)) for d in shape)}]"


# ---- numbers -------------------------------------------------------------------------------------
#
# A corpus number (C++ JsNumber) is a Python int (an exact 64-bit integer: JSON integers, decimal
# integer strings) or a float (a double: JSON floats, "NaN", "Infinity", "-Infinity").


def _parse_int(text: str):
    """JSON integers: exact within the int64/uint64 range, doubles beyond (as nlohmann parses)."""
    v = int(text)
    return v if INT64_MIN <= v <= UINT64_MAX else float(text)


def _reject_constant(name: str):
    raise ValueError(f"invalid JSON literal {name}")


def load_json(path: str):
    """Parses a corpus file; RunnerError when it cannot be read or parsed."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f, parse_int=_parse_int, parse_constant=_reject_constant)
    except (OSError, ValueError, RecursionError) as e:
        raise RunnerError(f"{path}: {e}") from None


NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_INT_RE = re.compile(r"-?[0-9]+\Z")
_FLOAT_RE = re.compile(
    r"-?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)\Z",
    re.IGNORECASE)


def numeric_string(s: str):
    """A string where a number is expected: "NaN", "Infinity", "-Infinity", a decimal integer
    (exact, as for BigInt("45")) or another decimal number; None for anything else."""
    if s in NON_FINITE:
        return NON_FINITE[s]
    if _INT_RE.match(s):
        v = int(s)
        if INT64_MIN <= v <= UINT64_MAX:
            return v
    if s and _FLOAT_RE.match(s):
        try:
            return float(s)
        except ValueError:
            return None
    return None


def js_number(v):
    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        n = numeric_string(v)
        if n is not None:
            return n
    raise CaseFailure(f"corpus: {json.dumps(v)} is not a number")


def numbers(data) -> list:
    """A tensor's `data`: one number per element, or a single number (WPT fills the tensor)."""
    if not isinstance(data, list):
        return [js_number(data)]
    return [js_number(v) for v in data]


def as_double(v) -> float:
    return float(v)


def format_double(d: float) -> str:
    """std::to_chars(double) shortest round trip: the shorter of %f and %e style, %f on a tie."""
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "Infinity" if d > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, d) < 0 else ""
    if d == 0:
        return sign + "0"
    t = decimal.Decimal(repr(abs(d))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    exp = t.exponent  # value = digits * 10^exp
    n = len(digits)
    sci_exp = exp + n - 1
    if exp >= 0:
        fixed = digits + "0" * exp
    elif n + exp > 0:
        fixed = digits[:n + exp] + "." + digits[n + exp:]
    else:
        fixed = "0." + "0" * (-(n + exp)) + digits
    mant = digits[0] + ("." + digits[1:] if n > 1 else "")
    sci = f"{mant}e{'-' if sci_exp < 0 else '+'}{abs(sci_exp):02d}"
    return sign + (fixed if len(fixed) <= len(sci) else sci)


def number_str(v) -> str:
    """JsNumber::to_string: exact integers in decimal, doubles through format_double."""
    return str(v) if isinstance(v, int) else format_double(v)


# ---- conversions the harness applies (wpt_compare.h) ---------------------------------------------


def js_fround(x) -> np.ndarray:
    """JavaScript's Math.fround over an array of doubles (round to nearest even, overflow to
    +-Infinity)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float32)


def wpt_to_half(x) -> np.ndarray:
    """WPT's toHalf(Float32(x)) over an array of doubles: the float32 rounding, then James Tursa's
    conversion (round half up in magnitude on the 11th mantissa bit, float32 exponents below 103
    flush to signed zero, above 142 give Infinity; NaN gives the quiet NaN 0x7e00)."""
    f = js_fround(x)
    u = f.view(np.uint32).astype(np.int64)
    sign = (u >> 16) & 0x8000
    m = (u >> 12) & 0x07FF
    e = (u >> 23) & 0xFF
    out = sign.copy()
    out = np.where(e > 142, sign | 0x7C00, out)
    sub = (e >= 103) & (e < 113)
    ms = m | 0x0800
    subv = sign | ((ms >> np.clip(114 - e, 0, 63)) + ((ms >> np.clip(113 - e, 0, 63)) & 1))
    out = np.where(sub, subv, out)
    norm = (e >= 113) & (e <= 142)
    normv = (sign | (np.clip(e - 112, 0, 31) << 10) | (m >> 1)) + (m & 1)
    out = np.where(norm, normv, out)
    out = np.where(np.isnan(f), 0x7E00, out)
    return out.astype(np.uint16)


def half_bits_to_double(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(np.float64)


def int_bits(v, bits: int) -> int:
    """The low `bits` bits JavaScript's integer typed arrays store for `v` (exact integers wrap
    modulo 2^64, doubles truncate toward zero then wrap; non-finite doubles give 0)."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return 0
        v = int(v)  # truncates, exactly
    return v & ((1 << bits) - 1)


def pack_nibbles(nibbles: np.ndarray) -> np.ndarray:
    """int4/uint4 elements (their low 4 bits) packed two per byte, the first in the low nibble."""
    nib = np.asarray(nibbles, dtype=np.uint8) & 0x0F
    if nib.size % 2:
        nib = np.append(nib, np.uint8(0))
    return (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)


def unpack_nibbles(packed: np.ndarray, count: int, signed: bool) -> list:
    p = np.asarray(packed, dtype=np.uint8).reshape(-1)
    nib = np.empty(p.size * 2, dtype=np.int64)
    nib[0::2] = p & 0x0F
    nib[1::2] = p >> 4
    nib = nib[:count]
    if signed:
        nib = np.where(nib >= 8, nib - 16, nib)
    return nib.tolist()


def typed_array(data_type: str, values: list) -> np.ndarray:
    """The elements WPT's typed array of `data_type` holds for `values` (1-D; int4/uint4 as one
    nibble value per element, not yet packed)."""
    if data_type == "float32":
        return js_fround([as_double(v) for v in values])
    if data_type == "float16":
        return wpt_to_half([as_double(v) for v in values]).view(np.float16)
    bits = BITS[data_type]
    raw = [int_bits(v, bits) for v in values]
    if bits == 4:
        return np.array(raw, dtype=np.uint8)
    arr = np.array(raw, dtype=np.uint64).astype(UINT_OF_BITS[bits])
    return arr.view(INT_OF_BITS[bits]) if data_type in SIGNED else arr


def encode(data, data_type: str, shape: list, name: str) -> np.ndarray:
    """The tensor data WPT uploads for `data`: an array of the operand's numpy dtype and shape
    (int4/uint4: uint8 packed two per byte, shape [ceil(n/2)])."""
    values = numbers(data)
    count = element_count(shape)
    fill = not isinstance(data, list)
    if not fill and len(values) != count:
        raise CaseFailure(f"corpus: {name} has {len(values)} values for "
                          f"{descriptor_str(data_type, shape)}")
    if fill:
        one = typed_array(data_type, values)
        elements = np.full(count, one[0], dtype=one.dtype)
    else:
        elements = typed_array(data_type, values)
    if BITS[data_type] == 4:
        return pack_nibbles(elements)
    return elements.reshape(shape)


# ---- metrics -------------------------------------------------------------------------------------


def _float32_key(f: np.ndarray) -> np.ndarray:
    magnitude = (f.view(np.uint32) & np.uint32(0x7FFFFFFF)).astype(np.int64)
    return np.where(f < 0, -magnitude, magnitude)


def float32_ulp_distance(a, b) -> np.ndarray:
    """WPT's float32 ULP distance: the bit pattern of |x| negated for negative x, so -0 and +0 are
    the same and distances across zero add up."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    return np.abs(_float32_key(a) - _float32_key(b))


def float16_ulp_distance(a, b) -> np.ndarray:
    """WPT's float16 ULP distance: |a - b| of the raw 16-bit patterns (sign bit included), 0 when
    both are zeros."""
    a = np.asarray(a, dtype=np.uint16).astype(np.int64)
    b = np.asarray(b, dtype=np.uint16).astype(np.int64)
    zeros = ((a & 0x7FFF) == 0) & ((b & 0x7FFF) == 0)
    return np.where(zeros, 0, np.abs(a - b))


@dataclasses.dataclass
class Tolerance:
    metric: str = "ULP"  # "ULP" or "ATOL"
    value: float = 0.0


@dataclasses.dataclass
class OutputCheck:
    checked: int = 0      # elements compared
    mismatches: int = 0   # elements that failed
    max_error: float = 0.0
    first: str = ""       # "[index] got X, expected Y (error E)"


def _special_values(actual: np.ndarray, expected: np.ndarray):
    """The NaN and infinity rules shared by the float checks: (mask of special elements, their
    pass, their error)."""
    nan_e = np.isnan(expected)
    nan_a = np.isnan(actual)
    inf = np.isinf(expected) | np.isinf(actual)
    special = nan_e | nan_a | inf
    with np.errstate(invalid="ignore"):
        same = actual == expected
    passed = np.where(nan_e, nan_a, np.where(nan_a, False, same))
    error = np.where(passed, 0.0, math.inf)
    return special, passed, error


def _check_floats(actual_f: np.ndarray, cmp_expected: np.ndarray, expected: np.ndarray,
                  ulp_distance: Callable[[], np.ndarray], exact_mismatch: Callable[[], np.ndarray],
                  t: Tolerance, exact: bool):
    special, passed, error = _special_values(actual_f, cmp_expected)
    if t.metric == "ULP":
        dist = ulp_distance().astype(np.float64)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            dist = np.abs(actual_f - expected)
    regular = ~special
    error = np.where(regular, dist, error)
    with np.errstate(invalid="ignore"):
        passed = np.where(regular, dist <= t.value, passed)
    if exact:
        passed = passed & ~(regular & exact_mismatch())
    return passed, error


def check_output(data_type: str, actual: np.ndarray, count: int, expected: list, t: Tolerance,
                 exact: bool) -> OutputCheck:
    """The check of one output tensor (wpt_compare.h check_output): `actual` is the tensor's data
    (int4/uint4 packed), `expected` one number per element or one number that the first
    min(1000, count) elements are checked against (as WPT does)."""
    maximum_index_to_validate = 1000
    r = OutputCheck()
    fill = len(expected) == 1 and count != 1
    r.checked = min(count, maximum_index_to_validate) if fill else min(count, len(expected))
    n = r.checked
    if n == 0:
        return r
    exp = [expected[0]] * n if fill else expected[:n]
    flat = np.asarray(actual).reshape(-1)
    if data_type in ("float32", "float16"):
        e = np.array([as_double(v) for v in exp], dtype=np.float64)
        if data_type == "float32":
            a = flat[:n].astype(np.float32)
            ef = js_fround(e)
            a_d = a.astype(np.float64)
            passed, error = _check_floats(
                a_d, ef.astype(np.float64) if t.metric == "ULP" else e, e,
                lambda: float32_ulp_distance(a, ef),
                lambda: a.view(np.uint32) != ef.view(np.uint32), t, exact)
            got_of = lambda i: format_double(float(a_d[i]))
        else:
            a_bits = flat[:n].view(np.uint16) if flat.dtype == np.float16 else \
                flat[:n].astype(np.uint16)
            eh = wpt_to_half(e)
            a_d = half_bits_to_double(a_bits)
            passed, error = _check_floats(
                a_d, half_bits_to_double(eh) if t.metric == "ULP" else e, e,
                lambda: float16_ulp_distance(a_bits, eh), lambda: a_bits != eh, t, exact)
            got_of = lambda i: format_double(float(a_d[i]))
        failing = np.flatnonzero(~passed)
        r.mismatches = int(failing.size)
        r.max_error = float(np.max(error))
        if r.mismatches:
            i = int(failing[0])
            r.first = (f"[{i}] got {got_of(i)}, expected {number_str(exp[i])} "
                       f"(error {format_double(float(error[i]))})")
        return r
    if data_type in ("int4", "uint4"):
        got = unpack_nibbles(flat, n, data_type == "int4")
    else:
        got = flat[:n].tolist()
    for i in range(n):
        ok, err = check_integer(int(got[i]), t, exp[i])
        r.max_error = max(r.max_error, err)
        if ok:
            continue
        if r.mismatches == 0:
            r.first = (f"[{i}] got {got[i]}, expected {number_str(exp[i])} "
                       f"(error {format_double(err)})")
        r.mismatches += 1
    return r


def integer_distance(a, b) -> float:
    """|a - b| as a double, exact where it fits (C++ integer_distance)."""
    if isinstance(a, float) or isinstance(b, float):
        return abs(float(a) - float(b))
    if (a < 0) == (b < 0):
        return float(abs(a - b))
    return float(abs(a)) + float(abs(b))  # opposite signs: exact to 2^53


def check_integer(actual: int, t: Tolerance, expected):
    """An integer result against an expected number: (pass, error)."""
    if isinstance(expected, float) and not math.isfinite(expected):
        return False, math.inf
    err = integer_distance(actual, expected)
    return err <= t.value, err


# ---- cases, known failures, reports (wpt_common.h) -----------------------------------------------


class RunnerError(Exception):
    """A problem with the runner's own input (corpus, expectations or report file)."""


class CaseFailure(Exception):
    """The case fails with this message."""


PASSED, FAILED, SKIPPED, KNOWN = "passed", "failed", "skipped", "known-failure"


@dataclasses.dataclass
class CaseResult:
    id: str = ""
    file: str = ""
    name: str = ""
    variant: Optional[str] = None
    status: str = PASSED
    message: str = ""
    time_ms: float = 0.0
    fields: dict = dataclasses.field(default_factory=dict)  # metric, tolerance, max_error


def case_id(file: str, name: str, variant: Optional[str]) -> str:
    return f"{file} :: {name}" + (f" :: {variant}" if variant is not None else "")


@dataclasses.dataclass
class Totals:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    known: int = 0


def count(cases) -> Totals:
    t = Totals()
    for c in cases:
        if c.status == PASSED:
            t.passed += 1
        elif c.status == FAILED:
            t.failed += 1
        elif c.status == SKIPPED:
            t.skipped += 1
        else:
            t.known += 1
    return t


def elapsed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def resolve_corpus(suite: str):
    """$CPPNN_WPT_DIR/<suite>, else ../shared/wpt/<suite> from the current directory, else from
    the repository root: (directory or None, reason)."""
    tried = []
    env = os.environ.get("CPPNN_WPT_DIR")
    if env:
        tried.append(os.path.join(env, suite))
    tried.append(os.path.join("..", "shared", "wpt", suite))
    tried.append(os.path.join(REPO_ROOT, "..", "shared", "wpt", suite))
    for p in tried:
        if os.path.isdir(p):
            return os.path.normpath(os.path.abspath(p)), ""
    return None, (f"no WPT {suite} corpus: tried " + " ".join(os.path.normpath(p) for p in tried)
                  + " (set CPPNN_WPT_DIR or pass --corpus)")


def corpus_files(directory: str) -> list:
    """The corpus files of a directory (*.json except index.json), sorted by name."""
    files = [os.path.join(directory, f) for f in os.listdir(directory)
             if f.endswith(".json") and f != "index.json"
             and os.path.isfile(os.path.join(directory, f))]
    return sorted(files)


def corpus_args(args) -> list:
    files = []
    for a in args:
        if os.path.isdir(a):
            files.extend(corpus_files(a))
        elif os.path.isfile(a):
            files.append(a)
        else:
            raise RunnerError(f"the corpus {a} does not exist")
    return files


@dataclasses.dataclass
class Expectations:
    file: str = ""                                   # "": no file
    reasons: dict = dataclasses.field(default_factory=dict)  # case id -> reason


def default_expectations_file(label: str) -> str:
    """tests/wpt/<label>-expected-failures.txt from the current directory, else the repository's
    (label: "validation" or "conformance-<backend>", the C++ runner's lists)."""
    rel = os.path.join("tests", "wpt", f"{label}-expected-failures.txt")
    if os.path.exists(rel):
        return rel
    return os.path.join(REPO_ROOT, rel)


def load_expectations(path: str) -> Expectations:
    try:
        with open(path, "r", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RunnerError(f"cannot read the expectations file: {e}") from None
    e = Expectations(file=path)
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        hash_at = s.find(" #")  # the reason starts at the first " #"
        ident = s if hash_at < 0 else s[:hash_at].strip()
        reason = "" if hash_at < 0 else s[hash_at + 2:].strip()
        if not reason:
            raise RunnerError(f"{path}:{n}: an entry needs a reason: `<case id>  # <reason>`")
        if ident in e.reasons:
            raise RunnerError(f"{path}:{n}: duplicate entry {ident}")
        e.reasons[ident] = reason
    return e


def apply_expectations(cases, expectations: Expectations) -> list:
    """Turns listed failures into known failures and listed passes into failures (stale entries);
    returns the listed ids that no case has."""
    seen = {i: False for i in expectations.reasons}
    for c in cases:
        reason = expectations.reasons.get(c.id)
        if reason is None:
            continue
        seen[c.id] = True
        if c.status == FAILED:
            c.status = KNOWN
            c.message += f" [known failure: {reason}]"
        elif c.status == PASSED:
            c.status = FAILED
            c.message = (f"stale entry: listed in {expectations.file} ({reason}) but passes now; "
                         "remove the entry")
    return sorted(i for i, found in seen.items() if not found)


def closing_line(label: str, t: Totals) -> str:
    return f"wpt-{label}: {t.passed} passed, {t.failed} failed, {t.skipped} skipped"


def print_summary(out, label: str, cases, expectations: Expectations, verbose: bool) -> None:
    i = 0
    while i < len(cases):
        j = i
        while j < len(cases) and cases[j].file == cases[i].file:
            j += 1
        group = cases[i:j]
        t = count(group)
        line = f"{cases[i].file}: {t.passed} passed, {t.failed} failed, {t.skipped} skipped"
        if t.known:
            line += f", {t.known} known failures"
        print(line, file=out)
        for c in group:
            if c.status == FAILED or (verbose and c.status != PASSED):
                print(f"  {c.status}: {c.id}\n      {c.message}", file=out)
        i = j
    t = count(cases)
    line = f"known failures: {t.known}"
    if expectations.file:
        line += f" (listed in {expectations.file})"
    print(line, file=out)
    print(closing_line(label, t), file=out)


def _json_number(x):
    """nlohmann writes non-finite doubles as null."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def report_json(header: dict, cases, time_ms: float, skip_reason: str = "") -> dict:
    t = count(cases)
    report = {"suite": header["suite"]}
    if header.get("backend"):
        report["backend"] = header["backend"]
    report.update(corpus=header["corpus"], passed=t.passed, failed=t.failed, skipped=t.skipped,
                  known_failures=t.known, time_ms=time_ms)
    if skip_reason:
        report["skip_reason"] = skip_reason
    entries = []
    for c in cases:
        e = {"id": c.id, "file": c.file, "name": c.name, "variant": c.variant,
             "status": c.status}
        for k, v in c.fields.items():
            e[k] = _json_number(v)
        e["time_ms"] = c.time_ms
        e["message"] = c.message
        entries.append(e)
    report["cases"] = entries
    return report


def write_report(path: str, report: dict) -> None:
    """Writes the report atomically (a temporary file renamed over `path`) in the C++ runner's
    format: members sorted, indent 1, UTF-8."""
    text = json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".wpt-report-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
                f.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as a plain open() would (mkstemp makes it 0600)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as e:
        raise RunnerError(f"cannot write the report {path}: {e}") from None


def check_report_path(report: str, inputs) -> None:
    """The report never replaces an input (a corpus or the expectations file)."""
    target = os.path.realpath(report)
    for i in inputs:
        if i and os.path.exists(i) and os.path.realpath(i) == target:
            raise RunnerError(f"the report {report} would replace the input {i}")


# ---- the package's errors ------------------------------------------------------------------------


class ReplayError(Exception):
    """An error the runner raises in the API's name, as the C++ runner throws cppnn::TypeError
    (a buffer's view type check, a malformed recorded call)."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


def error_name(e: BaseException) -> Optional[str]:
    """The spec error name of an exception from the package (or the runner's ReplayError); None
    for anything else (a bug, not an API error). Python TypeErrors count as TypeError: the
    package's cppnn.TypeError is one, and so are its argument conversion errors."""
    if isinstance(e, ReplayError):
        return e.name
    if cppnn is not None and isinstance(e, cppnn.Error):
        return getattr(e, "name", None) or type(e).__name__
    if isinstance(e, TypeError):
        name = getattr(e, "name", None)
        return name if isinstance(name, str) else "TypeError"
    if cppnn is not None:  # the cppnn exception classes, whatever their base
        for cls_name in ("TypeError", "InvalidStateError", "OperationError", "NotSupportedError",
                         "UnknownError", "DataError", "SecurityError"):
            cls = getattr(cppnn, cls_name, None)
            if isinstance(cls, type) and isinstance(e, cls):
                return getattr(e, "name", None) or cls_name
    return None


def error_text(e: BaseException) -> str:
    return str(e)


def _operand_class():
    for where in (cppnn, getattr(cppnn, "ml", None)):
        cls = getattr(where, "MLOperand", None) if where is not None else None
        if isinstance(cls, type):
            return cls
    raise RunnerError("the cppnn package has no MLOperand class")


def _builder_class():
    for where in (getattr(cppnn, "ml", None), cppnn):
        cls = getattr(where, "MLGraphBuilder", None) if where is not None else None
        if cls is not None:
            return cls
    raise RunnerError("the cppnn package has no MLGraphBuilder class")


def create_context(backend: Optional[str] = None):
    if backend:
        return cppnn.ml.create_context(backend=backend)
    return cppnn.ml.create_context()


def is_lost(context) -> bool:
    lost = getattr(context, "lost", False)
    if callable(lost):
        lost = lost()
    return bool(lost)


def operand_descriptor(x) -> tuple:
    return str(x.data_type), [int(d) for d in x.shape]


def as_list(result) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def is_pooling(op: str) -> bool:
    return op in ("averagePool2d", "l2Pool2d", "maxPool2d")


# The builder methods (include/cppnn/ops.def): the number of positional operand parameters of
# each ("list": concat's sequence), and the operand-valued options in the options dictionary's
# field order (include/cppnn/options.h). Together they give DynCall::inputs(): the op's input
# operands in the order of its opSupportLimits() roles.
_POSITIONAL = {
    "Unary": 1, "Binary": 2, "Ternary": 3, "Axis": 1, "Cast": 1, "Concat": "list", "Shape": 1,
    "TwoLists": 1, "Split": 1, "Recurrent": 3, "GruCell": 4, "LstmCell": 5,
}
_SIGNATURES = {
    "Axis": "argMin argMax cumulativeSum softmax",
    "Ternary": "batchNormalization dequantizeLinear quantizeLinear scatterElements scatterND where",
    "Cast": "cast",
    "Concat": "concat",
    "Binary": "conv2d convTranspose2d add sub mul div max min pow equal notEqual greater "
              "greaterOrEqual lesser lesserOrEqual logicalAnd logicalOr logicalXor gather "
              "gatherElements gatherND gemm matmul prelu",
    "Unary": "clamp logicalNot isNaN isInfinite abs ceil cos erf exp floor identity log neg "
             "reciprocal roundEven sin sign sqrt tan elu gelu hardSigmoid hardSwish "
             "instanceNormalization layerNormalization leakyRelu linear averagePool2d l2Pool2d "
             "maxPool2d reduceL1 reduceL2 reduceLogSum reduceLogSumExp reduceMax reduceMean "
             "reduceMin reduceProduct reduceSum reduceSumSquare relu resample2d reverse sigmoid "
             "softplus softsign tanh transpose triangular",
    "Shape": "expand reshape tile",
    "TwoLists": "pad slice",
    "Split": "split",
    "Recurrent": "gru lstm",
    "GruCell": "gruCell",
    "LstmCell": "lstmCell",
}
POSITIONAL_OPERANDS = {op: _POSITIONAL[sig] for sig, ops in _SIGNATURES.items()
                       for op in ops.split()}
# The kinds of each signature's positional parameters (all required): "operand", "operands" (a
# sequence of operands), "unsigned long", "string", "sequence", "unsigned long or sequence".
_PARAM_KINDS = {
    "Unary": ("operand",), "Binary": ("operand",) * 2, "Ternary": ("operand",) * 3,
    "Axis": ("operand", "unsigned long"), "Cast": ("operand", "string"),
    "Concat": ("operands", "unsigned long"), "Shape": ("operand", "sequence"),
    "TwoLists": ("operand", "sequence", "sequence"),
    "Split": ("operand", "unsigned long or sequence"),
    "Recurrent": ("operand",) * 3 + ("unsigned long",) * 2,
    "GruCell": ("operand",) * 4 + ("unsigned long",),
    "LstmCell": ("operand",) * 5 + ("unsigned long",),
}
PARAM_KINDS = {op: _PARAM_KINDS[sig] for sig, ops in _SIGNATURES.items() for op in ops.split()}
OPTION_OPERANDS = {
    "batchNormalization": ("scale", "bias"),
    "conv2d": ("bias",),
    "convTranspose2d": ("bias",),
    "gemm": ("c",),
    "gru": ("bias", "recurrentBias", "initialHiddenState"),
    "gruCell": ("bias", "recurrentBias"),
    "instanceNormalization": ("scale", "bias"),
    "layerNormalization": ("scale", "bias"),
    "lstm": ("bias", "recurrentBias", "peepholeWeight", "initialHiddenState", "initialCellState"),
    "lstmCell": ("bias", "recurrentBias", "peepholeWeight"),
}


# ---- conformance (wpt_conformance.cpp) -----------------------------------------------------------


def parse_descriptor(j, what: str) -> tuple:
    """(dataType, shape) of a corpus descriptor; CaseFailure when it is not a valid
    MLOperandDescriptor."""
    problem = descriptor_problem(j)
    if problem:
        raise CaseFailure(f"corpus: bad descriptor: {what}: {problem}")
    return j["dataType"], [int(math.trunc(d)) if isinstance(d, float) else int(d)
                           for d in j["shape"]]


def descriptor_problem(j) -> str:
    """Why `j` does not convert to an MLOperandDescriptor (descriptor_from_dyn), "" when it does."""
    if not isinstance(j, dict):
        return "the descriptor must be an object"
    t = j.get("dataType")
    if t is None:
        return "dataType is required"
    if not isinstance(t, str) or t not in DATA_TYPES:
        return "dataType is not an MLOperandDataType"
    shape = j.get("shape")
    if shape is None:
        return "shape is required"
    if not isinstance(shape, list):
        return "shape must be a sequence"
    for i, d in enumerate(shape):
        if isinstance(d, bool) or not isinstance(d, (int, float)):
            return f"shape[{i}] must be a number"
        if isinstance(d, float) and not math.isfinite(d):
            return f"shape[{i}] must be a finite number"
        v = math.trunc(d)
        if v < 0 or v > UINT32_MAX:
            return f"shape[{i}] is outside the unsigned long range"
    return ""


@dataclasses.dataclass
class Output:
    name: str
    data_type: str
    shape: list
    expected: list


class GraphCase:
    """One conformance case's graph, built like WPT's buildAndExecuteGraph."""

    def __init__(self, context, graph: dict):
        self.context = context
        self.graph = graph
        self.inputs = graph["inputs"]
        self.builder = _builder_class()(context)
        self.operands = {}        # operator outputs by name
        self.input_operands = {}  # input() operands by name
        self.data = {}            # encoded input data by name

    def build(self, outputs: list):
        for op in self.graph["operators"]:
            self.record(op)
        named = {}
        for name, exp in self.graph["expectedOutputs"].items():
            found = self.operands.get(name)
            if found is None:
                raise CaseFailure(f"corpus: expected output {name} is no operator's output")
            t, shape = parse_descriptor(exp["descriptor"], name)
            out = Output(name, t, shape, numbers(exp["data"]))
            got_t, got_shape = operand_descriptor(found)
            if (got_t, got_shape) != (t, shape):
                raise CaseFailure(f"output {name} is {descriptor_str(got_t, got_shape)}, expected "
                                  f"{descriptor_str(t, shape)}")
            n = element_count(shape)
            if len(out.expected) != 1 and len(out.expected) != n:
                raise CaseFailure(f"corpus: expected output {name} has {len(out.expected)} values "
                                  f"for {descriptor_str(t, shape)}")
            named[name] = found
            outputs.append(out)
        return self.builder.build(named)

    def data_of(self, name: str, data_type: str, shape: list) -> np.ndarray:
        d = self.data.get(name)
        if d is None:
            d = self.data[name] = encode(self.inputs[name]["data"], data_type, shape, name)
        return d

    def dispatch(self, graph) -> dict:
        """Binds the graph inputs, dispatches once and returns the outputs' data by name."""
        ctx = self.context
        ins, outs = {}, {}
        for name, desc in graph.inputs.items():
            t, shape = desc["dataType"], list(desc["shape"])
            tensor = ctx.create_tensor({"dataType": t, "shape": shape, "readable": False,
                                        "writable": True})
            ctx.write_tensor(tensor, self.data_of(name, t, shape))
            ins[name] = tensor
        for name, desc in graph.outputs.items():
            outs[name] = ctx.create_tensor({"dataType": desc["dataType"],
                                            "shape": list(desc["shape"]), "readable": True,
                                            "writable": False})
        ctx.dispatch(graph, ins, outs)
        return {name: ctx.read_tensor(t) for name, t in outs.items()}

    def operand(self, value):
        """The operand a name stands for: a graph input (a new constant at every use, one input()
        per name) or an earlier operator output; None for any other value."""
        if not isinstance(value, str):
            return None
        inp = self.inputs.get(value)
        if inp is not None:
            t, shape = parse_descriptor(inp["descriptor"], value)
            desc = {"dataType": t, "shape": shape}
            if inp.get("constant", False):
                return self.builder.constant(desc, self.data_of(value, t, shape))
            x = self.input_operands.get(value)
            if x is None:
                x = self.input_operands[value] = self.builder.input(value, desc)
            return x
        return self.operands.get(value)

    def options(self, o, op: str):
        if not isinstance(o, dict):
            return o
        members = {}
        for key, value in o.items():
            if is_pooling(op) and key == "roundingType" and "outputShapeRounding" not in o:
                key = "outputShapeRounding"  # the pre-rename name (README §8)
            x = self.operand(value)
            members[key] = x if x is not None else value
        return members

    def argument(self, op: str, key: str, value):
        if key == "options":
            return self.options(value, op)
        if op == "concat" and key == "inputs" and isinstance(value, list):
            out = []
            for v in value:
                x = self.operand(v)
                out.append(x if x is not None else v)
            return out
        x = self.operand(value)
        return x if x is not None else value

    def record(self, op: dict) -> None:
        name = op["name"]
        if not isinstance(name, str):
            raise CaseFailure("corpus: an operator name is not a string")
        args = []
        for a in op["arguments"]:
            if a is None:
                continue  # a JS array hole: WPT skips it
            if not isinstance(a, dict):
                raise CaseFailure(f"corpus: {name}: an argument is not an object")
            for key, value in a.items():
                args.append(self.argument(name, key, value))
        method = getattr(self.builder, name, None) if name in POSITIONAL_OPERANDS else None
        if method is None:
            raise ReplayError("TypeError", f"\"{name}\" is not an MLGraphBuilder operation")
        results = as_list(method(*args))
        outs = op["outputs"]
        names = outs if isinstance(outs, list) else [outs]
        if len(names) > len(results):
            raise CaseFailure(f"{name} returned {len(results)} operands, the case names "
                              f"{len(names)}")
        for i, n in enumerate(names):
            self.operands[n] = results[i]


def tolerance_of(c: dict) -> Tolerance:
    t = c["tolerance"]
    metric = t["metricType"]
    if metric not in ("ULP", "ATOL"):
        raise CaseFailure(f"corpus: unknown metricType \"{metric}\"")
    return Tolerance(metric, as_double(js_number(t["value"])))


def compare_outputs(outputs: list, results: dict, tol: Tolerance, exact: bool):
    """(max_error, failure message or "")."""
    max_error, failure = 0.0, ""
    for o in outputs:
        k = check_output(o.data_type, results[o.name], element_count(o.shape), o.expected, tol,
                         exact)
        max_error = max(max_error, k.max_error)
        if k.mismatches and not failure:
            failure = (f"{o.name}: {k.mismatches} of {k.checked} elements differ, first "
                       f"{k.first}")
    return max_error, failure


def _api_error(stage: str, e: BaseException) -> CaseFailure:
    return CaseFailure(f"{stage}: {error_name(e)}: {error_text(e)}")


def run_graph_case(context, c: dict, tol: Tolerance):
    g = GraphCase(context, c["graph"])
    outputs = []
    try:
        graph = g.build(outputs)
    except Exception as e:
        if error_name(e) is None:
            raise
        raise _api_error("build", e) from None
    try:
        results = g.dispatch(graph)
    except Exception as e:
        if error_name(e) is None:
            raise
        raise _api_error("dispatch", e) from None
    return compare_outputs(outputs, results, tol, bool(c.get("exactCompare", False)))


def _is_nan_bits(data_type: str, b: int) -> bool:
    if data_type == "float16":
        return (b & 0x7C00) == 0x7C00 and (b & 0x03FF) != 0
    if data_type == "float32":
        return (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF) != 0
    return False


def run_storage_case(context, c: dict):
    """cast-storage.json's bit-exact storage cases: one identity or cast, dispatched twice."""
    def data_type(j):
        if not isinstance(j, str) or j not in DATA_TYPES:
            raise CaseFailure(f"corpus: unknown data type {json.dumps(j)}")
        return j
    in_type, out_type = data_type(c["inputType"]), data_type(c["outputType"])
    shape = [int(d) for d in c["shape"]]
    n = element_count(shape)
    in_bits, expected = c["inputBits"], c["expectedBits"]
    if BITS[in_type] < 8 or BITS[out_type] < 8:
        raise CaseFailure("corpus: bit-exact cases need whole-byte data types")
    if len(in_bits) != n or len(expected) != n:
        raise CaseFailure("corpus: inputBits/expectedBits do not have one value per element")
    ubits = UINT_OF_BITS[BITS[in_type]]
    data = np.array([int(v) for v in in_bits], dtype=np.uint64).astype(ubits) \
        .view(NUMPY[in_type]).reshape(shape)
    desc = {"dataType": in_type, "shape": shape}
    try:
        b = _builder_class()(context)
        x = b.constant(desc, data) if c.get("constant", False) else b.input("input", desc)
        op = c["operator"]
        method = getattr(b, op, None) if op in POSITIONAL_OPERANDS else None
        if method is None:
            raise ReplayError("TypeError", f"\"{op}\" is not an MLGraphBuilder operation")
        y = as_list(method(x, out_type) if op == "cast" else method(x))[0]
        graph = b.build({"output": y})
    except Exception as e:
        if error_name(e) is None:
            raise
        raise _api_error("build", e) from None
    max_error, failure = 0.0, ""
    try:
        ins = {}
        if graph.inputs:
            t = context.create_tensor({**desc, "readable": False, "writable": True})
            context.write_tensor(t, data)
            ins["input"] = t
        out = context.create_tensor({"dataType": out_type, "shape": shape, "readable": True,
                                     "writable": False})
        out_bits = UINT_OF_BITS[BITS[out_type]]
        for run in (1, 2):  # WPT dispatches twice; both must match
            context.dispatch(graph, ins, {"output": out})
            got = np.asarray(context.read_tensor(out)).reshape(-1).view(out_bits).tolist()
            for i in range(n):
                if failure:
                    break
                g, e = int(got[i]), int(expected[i])
                if g == e or (_is_nan_bits(out_type, e) and _is_nan_bits(out_type, g)):
                    continue
                max_error = 1.0
                failure = f"dispatch {run}: [{i}] bits {g}, expected {e}"
    except Exception as e:
        if error_name(e) is None:
            raise
        raise _api_error("dispatch", e) from None
    return max_error, failure


def run_conformance_case(file: str, c: dict, context) -> CaseResult:
    start = time.perf_counter()
    r = CaseResult(file=file, name=c.get("name", "") if isinstance(c, dict) else "")
    r.id = case_id(file, r.name, None)
    r.fields = {"metric": None, "tolerance": None, "max_error": None}
    try:
        storage = "graph" not in c and "expectedBits" in c
        if c.get("dynamicShapes", False):
            r.status = SKIPPED
            r.message = "dynamic-shape descriptors (a WebNN proposal) are not supported"
        elif storage:
            r.fields["metric"] = "bitExact"
            r.fields["tolerance"] = 0
            max_error, failure = run_storage_case(context, c)
            r.fields["max_error"] = max_error
            if failure:
                r.status = FAILED
            r.message = failure
        else:
            tol = tolerance_of(c)
            r.fields["metric"] = tol.metric
            r.fields["tolerance"] = tol.value
            max_error, failure = run_graph_case(context, c, tol)
            r.fields["max_error"] = max_error  # an infinite error is written as null
            if failure:
                r.status = FAILED
            r.message = failure
    except CaseFailure as e:
        r.status, r.message = FAILED, str(e)
    except (KeyError, IndexError, AttributeError, ValueError) as e:
        if error_name(e) is not None:
            r.status, r.message = FAILED, f"{error_name(e)}: {error_text(e)}"
        else:
            r.status, r.message = FAILED, f"corpus: malformed case: {type(e).__name__}: {e}"
    except Exception as e:
        name = error_name(e)
        r.status = FAILED
        r.message = (f"{name}: {error_text(e)}" if name is not None else
                     f"unexpected exception (not a cppnn.Error): {type(e).__name__}: {e}")
    r.time_ms = elapsed_ms(start)
    return r


def _file_failure(name: str, message: str) -> CaseResult:
    return CaseResult(id=name, file=name, status=FAILED, message=message)


def run_conformance_file(path: str, filt: str, context_box: list) -> list:
    """Runs the cases of one conformance file on context_box[0] (replaced when it is lost)."""
    name = os.path.basename(path)
    try:
        cases = load_json(path)
        if not isinstance(cases, list):
            raise RunnerError(f"{path}: expected an array of cases")
    except RunnerError as e:
        return [_file_failure(name, str(e))] if filt in name else []
    results = []
    for c in cases:
        cname = c.get("name", "") if isinstance(c, dict) else ""
        if filt not in case_id(name, cname, None):
            continue
        if is_lost(context_box[0]):
            context_box[0] = create_context(context_box[0].backend)
        if not isinstance(c, dict):
            results.append(CaseResult(id=case_id(name, "", None), file=name, status=FAILED,
                                      message="corpus: malformed case: not an object",
                                      fields={"metric": None, "tolerance": None,
                                              "max_error": None}))
            continue
        results.append(run_conformance_case(name, c, context_box[0]))
    return results


# ---- validation (wpt_validation.cpp) -------------------------------------------------------------


class NotRun(Exception):
    """The step cannot run: it uses an operand WPT would not have created under the real
    limits."""


class StepFailure(Exception):
    """A step failed; the case fails with this message."""


@dataclasses.dataclass
class Expect:
    success: bool
    error: str  # "TypeError", "InvalidStateError", ...
    text: str


def parse_expect(s: str) -> Expect:
    if s == "success":
        return Expect(True, "", s)
    for verb in ("throws ", "rejects "):
        if s.startswith(verb):
            rest = s[len(verb):]
            if rest.startswith("DOMException "):
                rest = rest[len("DOMException "):]
            return Expect(False, rest, s)
    raise RunnerError(f"unknown expectation \"{s}\"")


_label_cache: dict = {}


def label_regex(literal: str):
    """The pattern of a recorded JavaScript regex literal ("/\\[label\\]/" -> "\\[label\\]")."""
    r = _label_cache.get(literal)
    if r is None:
        pattern = literal
        if len(pattern) >= 2 and pattern[0] == "/":
            pattern = pattern[1:pattern.rfind("/")]
        r = _label_cache[literal] = re.compile(pattern)
    return r


def number_arg(v):
    """A number argument (the strings JSON uses for non-finite numbers included), or None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str) and v in NON_FINITE:
        return NON_FINITE[v]
    return None


def buffer_from_json(buffer, data_type: str) -> bytes:
    """The bytes of a recorded buffer argument ({"arrayBuffer": n} or {"typedArray": name,
    "length", "byteLength", "values"?}) for a constant of `data_type`, after the spec's view type
    check (an ArrayBuffer or a Uint8Array fits any type, otherwise the view must match the type:
    Float16Array or Uint16Array for float16); a mismatch raises TypeError."""
    if isinstance(buffer, dict) and "arrayBuffer" in buffer:
        return bytes(int(buffer["arrayBuffer"]))
    if not isinstance(buffer, dict) or "typedArray" not in buffer:
        raise ReplayError("TypeError",
                          "constant: the buffer must be an ArrayBuffer or an ArrayBufferView")
    views = {  # name -> (element size, the operand type it is a view of)
        "Float32Array": (4, "float32"), "Float16Array": (2, "float16"),
        "Uint16Array": (2, "float16"), "Int32Array": (4, "int32"), "Uint32Array": (4, "uint32"),
        "BigInt64Array": (8, "int64"), "BigUint64Array": (8, "uint64"), "Int8Array": (1, "int8"),
        "Uint8Array": (1, "uint8"), "Int16Array": (2, None), "Uint8ClampedArray": (1, None),
        "Float64Array": (8, None)}
    name = buffer["typedArray"]
    if name not in views:
        raise RunnerError(f"unknown typed array type {name}")
    size, matches = views[name]
    if name != "Uint8Array" and matches != data_type:
        raise ReplayError("TypeError", f"constant: a {name} cannot hold {data_type} data")
    byte_length = int(buffer.get("byteLength", 0))
    values = buffer.get("values")
    if not isinstance(values, list) or len(values) * size != byte_length:
        return bytes(byte_length)
    if name == "Float32Array":
        arr = js_fround([as_double(js_number(v)) for v in values])
    elif name == "Float16Array":
        arr = wpt_to_half([as_double(js_number(v)) for v in values])
    else:
        bits = size * 8
        arr = np.array([int_bits(js_number(v), bits) for v in values], dtype=np.uint64) \
            .astype(UINT_OF_BITS[bits])
    return arr.tobytes()


class Slot:
    __slots__ = ("operand", "unsupported")

    def __init__(self, operand=None, unsupported=False):
        self.operand = operand
        self.unsupported = unsupported


class Replay:
    """One test's replay: one context, builders by index, operands by id."""

    def __init__(self, limits: dict):
        self.context = create_context()
        self.limits = limits
        self.builders = {}
        self.built = set()  # indexes of the builders that have built (MLGraphBuilder.has_built)
        self.slots = {}
        self.step = 0
        self.flipped = 0  # successful calls that had to throw TypeError under the real limits
        self.operand_class = _operand_class()

    def run(self, steps: list) -> str:
        """Runs every step; raises StepFailure at the first failing one. Returns a note on what
        the support limits changed ("" when nothing)."""
        not_run = 0
        for i, s in enumerate(steps):
            self.step = i + 1
            try:
                self.run_step(s)
            except NotRun:
                not_run += 1
        if not not_run and not self.flipped:
            return ""
        return (f"outside opSupportLimits(): {not_run} steps not run, {self.flipped} calls "
                "expected to throw TypeError")

    def fail(self, op: str, message: str):
        raise StepFailure(f"step {self.step} ({op}): {message}")

    def run_step(self, step: dict) -> None:
        expect = parse_expect(step["expect"])
        single = "op" in step
        calls = [step] if single else step["calls"]
        for call in calls:
            op = call["op"]
            unsupported = [""]  # non-empty: WPT expects TypeError under the real limits
            try:
                outputs = self.invoke(call, expect.success, unsupported)
            except NotRun:
                self.mark_unsupported(call, True)
                raise
            except StepFailure:
                raise
            except (KeyError, IndexError) as e:
                self.fail(op, f"malformed trace: {type(e).__name__}: {e}")
            except Exception as e:
                name = error_name(e)
                if name is None:
                    self.fail(op, f"unexpected exception (not a cppnn.Error): "
                                  f"{type(e).__name__}: {e}")
                self.check_error(step, op, expect, unsupported[0], e, name)
                if unsupported[0]:
                    self.flipped += 1
                self.mark_unsupported(call, bool(unsupported[0]))
                return
            if unsupported[0]:
                self.fail(op, f"expected TypeError ({unsupported[0]} is outside "
                              "opSupportLimits()), but the call succeeded")
            self.bind(call, op, outputs)
            if expect.success:
                self.check_outputs(step, op)
        if not expect.success:
            self.fail(step["op"] if single else "calls",
                      f"expected {expect.error}, but no call threw")

    def check_error(self, step, op, expect: Expect, unsupported: str, e, name: str) -> None:
        expected = "TypeError" if expect.success else expect.error
        text = error_text(e)
        if expect.success and not unsupported:
            self.fail(op, f"unexpected {name}: {text}")
        if name != expected:
            self.fail(op, f"expected {expected}, got {name}: {text}")
        if not expect.success and "expectLabelMatch" in step:
            literal = step["expectLabelMatch"]
            if not label_regex(literal).search(text):
                self.fail(op, f"the message \"{text}\" does not match {literal}")

    def slot(self, i: int) -> Slot:
        s = self.slots.get(i)
        if s is None:
            s = self.slots[i] = Slot()
        return s

    def mark_unsupported(self, call: dict, unsupported: bool) -> None:
        """The operand-id slots of a call's recorded outputs are marked as not created."""
        if not unsupported or "outputs" not in call:
            return
        for i in call["outputs"]:
            self.slot(int(i)).unsupported = True

    def bind(self, call: dict, op: str, outputs: list) -> None:
        if "outputs" not in call:
            return
        ids = call["outputs"]
        if len(ids) != len(outputs):
            self.fail(op, f"returned {len(outputs)} operands, the trace has {len(ids)}")
        for i, x in zip(ids, outputs):
            self.slots[int(i)] = Slot(x, False)

    def check_outputs(self, step: dict, op: str) -> None:
        expected = step.get("expectedOutputs")
        if expected is None:
            return
        for key, recorded in expected.items():
            s = self.slots.get(int(key))
            if s is None or s.operand is None:
                self.fail(op, f"no operand {key}")
            got_t, got_shape = operand_descriptor(s.operand)
            recorded = dict(recorded)
            # A few traces recorded no usable dataType (an object); check the shape only there.
            if not isinstance(recorded.get("dataType"), str):
                recorded["dataType"] = got_t
            problem = descriptor_problem(recorded)
            if problem:
                self.fail(op, f"bad expected descriptor: {op}: expected output: {problem}")
            t = recorded["dataType"]
            shape = [int(math.trunc(d)) for d in recorded["shape"]]
            if (got_t, got_shape) != (t, shape):
                self.fail(op, f"operand {key} is {descriptor_str(got_t, got_shape)}, expected "
                              f"{descriptor_str(t, shape)}")

    def arg(self, j, op: str):
        """A recorded argument, with {"operand": id} replaced by the operand."""
        if isinstance(j, dict):
            if len(j) == 1 and "operand" in j:
                i = j["operand"]
                if isinstance(i, int) and not isinstance(i, bool):
                    s = self.slots.get(i)
                    if s is not None and s.unsupported:
                        raise NotRun()
                    if s is None or s.operand is None:
                        self.fail(op, f"operand {i} was never created")
                    return s.operand
            return {k: self.arg(v, op) for k, v in j.items()}
        if isinstance(j, list):
            return [self.arg(v, op) for v in j]
        return j

    def builder(self, index: int):
        b = self.builders.get(index)
        if b is None:
            b = self.builders[index] = _builder_class()(self.context)
        return b

    def invoke(self, call: dict, must_succeed: bool, unsupported: list) -> list:
        """Runs one recorded call. For a call that must succeed, sets unsupported[0] (before
        calling) when its operands or outputs are outside the op's support limits."""
        op = call["op"]
        args = call["args"]
        index = int(call.get("builder", 0))
        b = self.builder(index)
        if op == "input":
            return [self.input(b, args, must_succeed)]
        if op == "constant":
            return [self.constant(b, index, args, must_succeed)]
        if op == "build":
            self.build(b, index, args, op)
            return []
        dyn = [self.arg(a, op) for a in args]
        # The 2025-03 corpus spells outputShapeRounding by its old name (webnn-spec.md §6 item 20).
        if is_pooling(op) and len(dyn) > 1 and isinstance(dyn[1], dict) \
                and "outputShapeRounding" not in dyn[1]:
            dyn[1] = {("outputShapeRounding" if k == "roundingType" else k): v
                      for k, v in dyn[1].items()}
        method = getattr(b, op, None) if op in POSITIONAL_OPERANDS else None
        if method is None:
            raise ReplayError("TypeError", f"\"{op}\" is not an MLGraphBuilder operation")
        # As in the C++ runner, the limits decide only for a call whose arguments convert (there
        # decode_builder_call() comes first and throws its TypeError with `unsupported` empty).
        if must_succeed and self.converts(op, dyn):
            unsupported[0] = self.outside_limits(op, dyn, call)
        return as_list(method(*dyn))

    def input(self, b, args: list, must_succeed: bool):
        if len(args) < 2 or not isinstance(args[0], str):
            raise ReplayError("TypeError", "input: needs a name and a descriptor")
        desc = self.arg(args[1], "input")
        if must_succeed and not descriptor_problem(desc) \
                and desc["dataType"] not in self.limits["input"]["dataTypes"]:
            raise NotRun()
        return b.input(args[0], desc)

    def constant(self, b, index: int, args: list, must_succeed: bool):
        if len(args) < 2:
            raise ReplayError("TypeError", "constant: needs two arguments")
        if isinstance(args[0], str):  # constant(dataType, value)
            t = args[0]
            if t not in DATA_TYPES:
                raise ReplayError("TypeError", f"constant: dataType \"{t}\" is not an "
                                               "MLOperandDataType")
            value = number_arg(self.arg(args[1], "constant"))
            if value is None:
                raise ReplayError("TypeError", "constant: value must be a number")
            if must_succeed and t not in self.limits["constant"]["dataTypes"]:
                raise NotRun()
            return b.constant(t, value)
        desc = self.arg(args[0], "constant")
        if descriptor_problem(desc):  # the package's descriptor conversion throws
            return b.constant(desc, b"")
        t = desc["dataType"]
        if must_succeed and t not in self.limits["constant"]["dataTypes"]:
            raise NotRun()
        # The view type check runs after "can build" (an unbuildable builder throws ISE first).
        raw = b""
        if index not in self.built and not is_lost(self.context):
            raw = buffer_from_json(args[1], t)
        return b.constant(desc, raw)  # bytes: the package checks their length

    def build(self, b, index: int, args: list, op: str) -> None:
        if not args or not isinstance(args[0], dict):
            raise ReplayError("TypeError", "build: outputs must be a record")
        named = {}
        for key, value in args[0].items():
            x = self.arg(value, op)
            if not isinstance(x, self.operand_class):
                raise ReplayError("TypeError", f"build: output \"{key}\" is not an MLOperand")
            named[key] = x
        try:
            b.build(named)
        except Exception as e:
            # The builder has built unless the outputs were rejected (TypeError) or it could not
            # build in the first place (then it has built already, or its context is lost).
            if error_name(e) not in ("TypeError", None):
                self.built.add(index)
            raise
        self.built.add(index)

    def converts(self, op: str, dyn: list) -> bool:
        """False when the call's arguments certainly fail WebIDL conversion (a positional
        parameter of the wrong kind or missing, an options argument that is not a dictionary,
        an operand-valued option that is not an MLOperand). A conservative stand-in for the C++
        runner's decode_builder_call(), which the Python API does not expose."""
        kinds = PARAM_KINDS[op]
        for i, kind in enumerate(kinds):
            v = dyn[i] if i < len(dyn) else None
            if kind == "operand":
                ok = isinstance(v, self.operand_class)
            elif kind == "operands":
                ok = isinstance(v, list) and all(isinstance(x, self.operand_class) for x in v)
            elif kind == "unsigned long":
                ok = _unsigned_long(v)
            elif kind == "string":
                ok = isinstance(v, str)
            elif kind == "sequence":
                ok = isinstance(v, list)
            else:
                ok = isinstance(v, list) or _unsigned_long(v)
            if not ok:
                return False
        options = dyn[len(kinds)] if len(dyn) > len(kinds) else None
        if options is None:
            return True
        if not isinstance(options, dict):
            return False
        return all(options.get(k) is None or isinstance(options[k], self.operand_class)
                   for k in OPTION_OPERANDS.get(op, ()))

    def outside_limits(self, op: str, dyn: list, recorded: dict) -> str:
        """Which operand (or expected output) of the call is outside its role's support limits,
        or "" when all are inside."""
        roles = list(self.limits.get(op, {}).items())
        positional = POSITIONAL_OPERANDS[op]
        is_list = positional == "list"
        if is_list:
            inputs = list(dyn[0]) if dyn and isinstance(dyn[0], list) else []
        else:
            inputs = [dyn[i] if i < len(dyn) else None for i in range(positional)]
            options = dyn[positional] if len(dyn) > positional else None
            for key in OPTION_OPERANDS.get(op, ()):
                inputs.append(options.get(key) if isinstance(options, dict) else None)
        input_roles = 1 if is_list else len(inputs)
        for i, x in enumerate(inputs):
            r = 0 if is_list else i
            if not isinstance(x, self.operand_class) or r >= len(roles):
                continue
            name, lim = roles[r]
            t, shape = operand_descriptor(x)
            if t not in lim["dataTypes"]:
                return f"{name} data type {t}"
            rank = len(shape)
            if rank < lim["rankRange"]["min"] or rank > lim["rankRange"]["max"]:
                return f"{name} rank {rank}"
        if len(roles) <= input_roles or "expectedOutputs" not in recorded \
                or "outputs" not in recorded:
            return ""
        ids = recorded["outputs"]
        expected = recorded["expectedOutputs"]
        output_roles = len(roles) - input_roles
        for k, i in enumerate(ids):
            e = expected.get(str(i))
            if not isinstance(e, dict) or not isinstance(e.get("dataType"), str):
                continue
            t = e["dataType"]
            name, lim = roles[input_roles + min(k, output_roles - 1)]
            if t in DATA_TYPES and t not in lim["dataTypes"]:
                return f"{name} data type {t}"
        return ""


def _unsigned_long(v) -> bool:
    """Whether `v` converts to an [EnforceRange] unsigned long."""
    if isinstance(v, bool):
        return False
    if isinstance(v, str):
        v = NON_FINITE.get(v)
    if isinstance(v, float):
        return math.isfinite(v) and 0 <= math.trunc(v) <= UINT32_MAX
    return isinstance(v, int) and 0 <= v <= UINT32_MAX


def unreplayable(test: dict) -> str:
    """Why a test cannot be replayed, or ""."""
    if "harnessError" in test:
        return f"the trace has a harness error: {test['harnessError']}"
    steps = test.get("steps", [])
    if not steps:
        return "no recorded builder calls"
    for i, s in enumerate(steps):
        if "op" not in s and not s.get("calls", []):
            return (f"step {i + 1} expects \"{s.get('expect', '')}\" but has no recorded calls "
                    "(it needs an API the trace does not record)")
    return ""


def run_validation_case(file: str, test: dict, limits: dict) -> CaseResult:
    start = time.perf_counter()
    r = CaseResult(file=file, name=test.get("name", ""))
    if "variant" in test:
        r.variant = test["variant"]
    r.id = case_id(file, r.name, r.variant)
    why = unreplayable(test)
    if why:
        r.status, r.message = SKIPPED, why
    else:
        try:
            r.message = Replay(limits).run(test["steps"])
        except StepFailure as e:
            r.status, r.message = FAILED, str(e)
        except Exception as e:  # a malformed trace, or an error outside any call
            r.status = FAILED
            r.message = f"cannot replay the trace: {type(e).__name__}: {e}"
    r.time_ms = elapsed_ms(start)
    return r


_validation_limits = None


def validation_limits() -> dict:
    """The default context's opSupportLimits() (the C++ runner's static limits)."""
    global _validation_limits
    if _validation_limits is None:
        _validation_limits = create_context().op_support_limits()
    return _validation_limits


def run_validation_file(path: str, filt: str) -> list:
    name = os.path.basename(path)
    try:
        tests = load_json(path)
        if not isinstance(tests, list):
            raise RunnerError(f"{path}: expected an array of tests")
    except RunnerError as e:
        return [_file_failure(name, str(e))] if filt in name else []
    limits = validation_limits()
    results = []
    for test in tests:
        variant = test.get("variant")
        if filt not in case_id(name, test.get("name", ""), variant):
            continue
        results.append(run_validation_case(name, test, limits))
    return results


# ---- the run -------------------------------------------------------------------------------------


@dataclasses.dataclass
class Run:
    """A suite's results: the closing line's label, the cases (after the known failures were
    applied), the expectations, the totals and the report written."""
    suite: str
    label: str
    backend: str
    corpus: str
    cases: list
    expectations: Expectations
    unmatched: list
    totals: Totals
    time_ms: float
    report: dict
    skip_reason: str = ""


def run_suite(suite: str = "validation", backend: Optional[str] = None, corpus=None,
              report: Optional[str] = None, expectations: Optional[str] = None,
              filt: str = "") -> Run:
    """Runs a suite (see the module docstring); writes `report` when given. RunnerError for an
    unusable corpus, expectations or report file."""
    start = time.perf_counter()
    conformance = suite == "conformance"
    header = {"suite": suite, "backend": "", "corpus": ""}
    label = "validation-python"
    expectations_label = "validation"
    context_box = None
    if conformance:
        backend = backend or os.environ.get("CPPNN_BACKEND") or None
        context_box = [create_context(backend)]
        header["backend"] = str(context_box[0].backend)
        label = f"conformance-python-{header['backend']}"
        expectations_label = f"conformance-{header['backend']}"
    if corpus:
        files = corpus_args(corpus)
        header["corpus"] = " ".join(os.path.normpath(os.path.abspath(c)) for c in corpus)
    else:
        directory, reason = resolve_corpus(suite)
        if directory is None:
            rep = report_json(header, [], elapsed_ms(start), reason)
            if report:
                write_report(report, rep)
            return Run(suite, label, header["backend"], "", [], Expectations(), [], Totals(),
                       elapsed_ms(start), rep, reason)
        files = corpus_files(directory)
        header["corpus"] = directory
    expectations_file = expectations or default_expectations_file(expectations_label)
    exp = Expectations()
    if expectations or os.path.exists(expectations_file):
        exp = load_expectations(expectations_file)
    if report:
        check_report_path(report, files + [expectations_file])
    cases = []
    for f in files:
        cases.extend(run_conformance_file(f, filt, context_box) if conformance
                     else run_validation_file(f, filt))
    unmatched = apply_expectations(cases, exp)
    time_ms = elapsed_ms(start)
    rep = report_json(header, cases, time_ms)
    if report:
        write_report(report, rep)
    return Run(suite, label, header["backend"], header["corpus"], cases, exp, unmatched,
               count(cases), time_ms, rep)


def default_report(suite: str, backend: str) -> str:
    name = f"wpt-conformance-python-{backend}.json" if suite == "conformance" \
        else "wpt-validation-python.json"
    return os.path.join(REPO_ROOT, "reports", name)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="wpt_runner.py",
        description="Runs a WPT WebNN corpus (../shared/wpt/README.md) through the cppnn Python "
                    "package, like `cppnn wpt`.")
    p.add_argument("--suite", choices=("validation", "conformance"), default="validation",
                   help="validation replays the validation traces through the builder; "
                        "conformance builds, dispatches and compares every conformance case "
                        "(default: validation)")
    p.add_argument("--backend", help="conformance: the backend (default: $CPPNN_BACKEND, else "
                                     "the package's default)")
    p.add_argument("--corpus", nargs="+", action="extend", metavar="DIR|FILE",
                   help="corpus directories (their *.json but index.json) or files (default: "
                        "$CPPNN_WPT_DIR/<suite>, else ../shared/wpt/<suite> from the current "
                        "directory or the repository root)")
    p.add_argument("--report", help="the JSON report, in the schema of `cppnn wpt --report` "
                                    "(default: reports/wpt-conformance-python-<backend>.json or "
                                    "reports/wpt-validation-python.json of the repository; '' "
                                    "writes none)")
    p.add_argument("--expected-failures", "--expectations", dest="expectations", metavar="FILE",
                   help="known failures, one `<case id>  # <reason>` per line (default: "
                        "tests/wpt/validation-expected-failures.txt or "
                        "tests/wpt/conformance-<backend>-expected-failures.txt)")
    p.add_argument("--filter", default="", help="run only the cases whose id contains TEXT")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print known failures and skipped cases")
    a = p.parse_args(argv)
    if a.backend and a.suite != "conformance":
        p.error("--backend applies to --suite conformance only")
    if cppnn is None:
        print("wpt_runner.py: the cppnn package is not importable", file=sys.stderr)
        return EXIT_FAILED
    try:
        if a.suite == "conformance":
            try:
                backend = a.backend or os.environ.get("CPPNN_BACKEND") or None
                ctx = create_context(backend)
                resolved = str(ctx.backend)
                del ctx
            except Exception as e:
                if error_name(e) is None:
                    raise
                print(f"wpt_runner.py: {error_name(e)}: {error_text(e)}", file=sys.stderr)
                return EXIT_FAILED
        else:
            resolved = ""
        report = default_report(a.suite, resolved) if a.report is None else (a.report or None)
        run = run_suite(a.suite, backend=resolved or None, corpus=a.corpus, report=report,
                        expectations=a.expectations, filt=a.filter)
    except RunnerError as e:
        print(f"Error: wpt_runner.py: {e}", file=sys.stderr)
        return EXIT_FAILED
    if run.skip_reason:
        print(f"wpt-{run.label}: skipped: {run.skip_reason}")
        print(closing_line(run.label, Totals()))
        return EXIT_SKIPPED
    print_summary(sys.stdout, run.label, run.cases, run.expectations, a.verbose)
    if run.unmatched and not a.filter and not a.corpus:
        print(f"note: {len(run.unmatched)} entries of {run.expectations.file} name no case of "
              "this corpus:")
        for i in run.unmatched:
            print(f"  {i}")
    return EXIT_OK if run.totals.failed == 0 else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
