"""Unit tests of check_packages.py's own rules (tests/coreml): WPT's ULP and ATOL comparison as the
checker applies it, the expectations file (known failures and the cases outside the target) and
the outcome of each case, and a package made by coremltools checked end to end.

Run: .venv-coreml/bin/python -m pytest -q tests/coreml/test_check_packages.py
"""

import logging
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
logging.getLogger("coremltools").setLevel(logging.ERROR)

import check_packages as cp  # noqa: E402
import package_checks as pc  # noqa: E402
from mil_numpy import program  # noqa: E402
from test_mil_numpy import a, f16, f32, i32, same  # noqa: E402,F401


# ---- WPT comparison ------------------------------------------------------------------------------


def check(data_type, actual, expected, metric="ULP", value=0, exact=False, count=None):
    n = np.asarray(actual).size if count is None else count
    return pc.wpt.check_output(data_type, np.asarray(actual), n, pc.wpt.numbers(expected),
                               pc.wpt.Tolerance(metric, value), exact)


def test_ulp_metric():
    one = f32(1.0)
    up = np.nextafter(one, f32(2))
    assert check("float32", a([up], f32), [1.0], value=1).mismatches == 0
    assert check("float32", a([up], f32), [1.0], value=0).mismatches == 1
    # Distances across zero add up: the smallest subnormals either side are 2 apart.
    tiny = np.nextafter(f32(0), f32(1))
    assert check("float32", a([-tiny], f32), [float(tiny)], value=1).mismatches == 1
    assert check("float32", a([-tiny], f32), [float(tiny)], value=2).mismatches == 0
    # float16: expected through WPT's toHalf (round half up): 1 + 2^-11 -> 1 + 2^-10.
    assert check("float16", a([1 + 2**-10], f16), [1 + 2**-11]).mismatches == 0
    assert check("float16", a([1.0], f16), [1 + 2**-11]).mismatches == 1
    # -0 and +0 are 0 apart, unless exactCompare.
    assert check("float32", a([-0.0], f32), [0.0]).mismatches == 0
    assert check("float32", a([-0.0], f32), [0.0], exact=True).mismatches == 1
    assert check("float16", a([-0.0], f16), [0.0]).mismatches == 0


def test_nan_infinity_and_fill_rules():
    assert check("float32", a([np.nan], f32), ["NaN"]).mismatches == 0
    assert check("float32", a([1.0], f32), ["NaN"]).mismatches == 1
    assert check("float32", a([np.nan], f32), [1.0], value=1e9).mismatches == 1
    assert check("float16", a([np.inf], f16), [1e6]).mismatches == 0  # toHalf(1e6) is +Inf
    assert check("float32", a([np.inf], f32), [3.4e38], value=1e9).mismatches == 1
    # One expected number: the first min(1000, count) elements are checked against it.
    r = check("float32", np.full(1500, 2.0, f32), [2.0])
    assert (r.checked, r.mismatches) == (1000, 0)
    # ATOL compares with the double, float16 decoded.
    assert check("float16", a([0.3], f16), [0.3], "ATOL", 1 / 1024).mismatches == 0
    assert check("float32", a([0.5], f32), [0.502], "ATOL", 1 / 1024).mismatches == 1
    # Integers: |a - b|.
    assert check("int32", a([5, -3], i32), [5, -3]).mismatches == 0
    assert check("int32", a([255], i32), [-1]).mismatches == 1


def testbits_check():
    assert pc.bits_check("o", "float16", a([np.nan], f16), [0x7E01]) == ""
    assert pc.bits_check("o", "float16", a([-0.0], f16), [0x8000]) == ""
    assert "bits 0, expected 32768" in pc.bits_check("o", "float16", a([0.0], f16), [0x8000])
    assert pc.bits_check("o", "float32", a([1.0], f32), [0x3F800000]) == ""


# ---- expectations and outcomes -------------------------------------------------------------------


def result(case_id, failing=None, skipped=False):
    stages = {s: {"status": cp.PASSED, "message": ""} for s in cp.STAGES}
    if failing:
        after = False
        for s in cp.STAGES:
            if s == failing:
                stages[s] = {"status": cp.FAILED, "message": "boom"}
                after = True
            elif after:
                stages[s] = {"status": cp.SKIPPED, "message": ""}
    if skipped:
        stages["numeric"] = {"status": cp.SKIPPED, "message": "not evaluated: MIL op x"}
    return {"id": case_id, "stages": stages}


def test_expectations_and_outcomes(tmp_path):
    path = tmp_path / "expected.txt"
    path.write_text("# comment\n\nnumeric a.json :: one -- inexact data\n"
                    "structural a.json :: two -- coremltools rejects\n"
                    "convert a.json :: three -- no MIL form\n")
    listed = cp.load_expectations(str(path))
    assert listed["a.json :: one"] == ("numeric", "inexact data")
    cases = [result("a.json :: one", "numeric"),       # known
             result("a.json :: two", "numeric"),       # listed for another stage: failed
             result("a.json :: three"),                # listed but passes: failed (stale)
             result("a.json :: four", "convert"),      # unlisted failure
             result("a.json :: five", skipped=True),   # not evaluated
             result("a.json :: six")]                  # passes
    for r in cases:
        cp.outcome(r, listed)
    assert [r["status"] for r in cases] == [cp.KNOWN, cp.FAILED, cp.FAILED, cp.FAILED,
                                           cp.SKIPPED, cp.PASSED]
    assert "stale entry" in cases[2]["message"]
    s = cp.summarise(cases)
    assert (s["passed"], s["failed"], s["skipped"], s["known_failures"]) == (1, 3, 1, 1)
    assert s["numeric_passed"] == 2 and s["converted"] == 5
    assert any("structural" in p for p in cp.threshold_failures(s))
    for bad in ("numeric a.json :: x\n", "later a.json :: x -- why\n",
                "numeric a -- r\nnumeric a -- again\n"):
        path.write_text(bad)
        with pytest.raises(cp.InputError):
            cp.load_expectations(str(path))


def test_outside_the_target(tmp_path):
    """An `outside` entry: a case that fails to convert is outside the target (skipped, left out
    of the structural percentage); one that converts is a stale entry."""
    path = tmp_path / "expected.txt"
    path.write_text("outside a.json :: i64 -- int64 data\noutside a.json :: now -- int64 data\n")
    listed = cp.load_expectations(str(path))
    cases = [result("a.json :: i64", "convert"), result("a.json :: now")] + [
        result(f"a.json :: {k}") for k in range(98)]
    for r in cases:
        cp.outcome(r, listed)
    assert cases[0]["status"] == cp.OUTSIDE and "outside the target" in cases[0]["message"]
    assert cases[1]["status"] == cp.FAILED and "converts now" in cases[1]["message"]
    s = cp.summarise(cases)
    assert (s["outside_target"], s["inside_target"], s["skipped"]) == (1, 99, 1)
    assert s["structural_percent"] == 100.0 and s["structural_percent_of_all"] == 99.0
    assert cp.threshold_failures(s) == []
    cases[2] = result("a.json :: 0", "structural")
    cp.outcome(cases[2], listed)
    assert any("inside the target" in p for p in cp.threshold_failures(cp.summarise(cases)))


def test_shipped_expectations_file_parses():
    cp.load_expectations(cp.DEFAULT_EXPECTATIONS)


# ---- a package end to end ------------------------------------------------------------------------


def test_coremltools_package_end_to_end(tmp_path):
    """A package coremltools itself writes (weights in its blob file) passes the structural
    check and evaluates to the numpy result; a feature the index describes differently fails."""
    import coremltools as ct
    from coremltools.converters.mil import Builder as mb
    from coremltools.converters.mil.mil import types
    w = np.linspace(-4, 4, 40).astype(f16).reshape(2, 20)

    @mb.program(input_specs=[mb.TensorSpec(shape=(2, 20), dtype=types.fp16)],
                opset_version=ct.target.iOS17)
    def prog(x):
        return mb.relu(x=mb.add(x=x, y=w))

    model = ct.convert(prog, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS17,
                       skip_model_load=True, compute_precision=ct.precision.FLOAT32)
    path = str(tmp_path / "m.mlpackage")
    model.save(path)
    loaded = pc.load_package(path)
    spec, weights_dir, _ = loaded
    out_name = spec.description.output[0].name
    pc.check_structure(loaded, [("x", "float16", [2, 20])], [(out_name, "float16", [2, 20])])
    with pytest.raises(pc.StageFailure, match="expected float32"):
        pc.check_structure(loaded, [("x", "float32", [2, 20])], [(out_name, "float16", [2, 20])])
    x = np.linspace(-1, 1, 40).astype(f16).reshape(2, 20)
    out = program.evaluate(spec, {"x": x}, weights_dir)
    same(out[out_name], np.maximum(x + w, f16(0)))
