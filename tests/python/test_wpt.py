"""The WPT WebNN corpus through the Python package (tests/python/wpt_runner.py).

* The comparison rules of the runner (WPT's toHalf, the ULP and ATOL metrics, NaN, infinity, exact
  integers), the same cases as tests/unit/wpt_compare_test.cpp; they need numpy only.
* The conformance corpus on the reference backend: at least 99% pass, and the failures are exactly
  the C++ runner's known failures (tests/wpt/conformance-reference-expected-failures.txt).
* The validation traces: no unexpected failure, and the same result per trace as the C++ runner
  (reports/wpt-validation.json, written by ctest; else `build/bin/cppnn wpt --suite validation`
  when it exists; else that comparison is skipped).

Both suites write their reports: reports/wpt-conformance-python-reference.json and
reports/wpt-validation-python.json.
"""

import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wpt_runner as w  # noqa: E402

ROOT = w.REPO_ROOT
BACKEND = "reference"
NAN, INF = math.nan, math.inf


def half(x):
    return int(w.wpt_to_half([x])[0])


def check(data_type, actual, expected, metric="ULP", value=0, exact=False):
    """One element's check: (pass, error)."""
    r = w.check_output(data_type, np.asarray(actual), 1, [expected], w.Tolerance(metric, value),
                       exact)
    return r.mismatches == 0, r.max_error


def f32(x):
    return np.array([x], dtype=np.float32)


def f16_bits(b):
    return np.array([b], dtype=np.uint16).view(np.float16)


def next_up(x):
    return np.nextafter(np.float32(x), np.float32(math.inf))


# ---- comparison rules ---------------------------------------------------------------------------


def test_to_half_exact_values():
    assert half(1.0) == 0x3C00
    assert half(-2.0) == 0xC000
    assert half(65504.0) == 0x7BFF
    assert half(2.0**-14) == 0x0400
    assert half(2.0**-24) == 0x0001
    assert half(-0.0) == 0x8000
    assert half(0.0) == 0x0000


def test_to_half_rounds_half_up_in_magnitude():
    assert half(1.0 + 2.0**-11) == 0x3C01
    assert half(-(1.0 + 2.0**-11)) == 0xBC01
    assert half(1.0 + 2.0**-12) == 0x3C00
    assert half(65520.0) == 0x7C00
    assert half(1.0 + 2.0**-11 - 2.0**-40) == 0x3C01


def test_to_half_subnormals_overflow_and_nan():
    assert half(1.5 * 2.0**-25) == 0x0000
    assert half(-1.5 * 2.0**-25) == 0x8000
    assert half(1.5 * 2.0**-24) == 0x0002
    assert half(1e10) == 0x7C00
    assert half(-INF) == 0xFC00
    assert half(NAN) == 0x7E00


def test_js_typed_array_conversions():
    def bits(t, v):
        a = w.typed_array(t, [v])
        if w.BITS[t] == 4:
            return int(a[0])
        return int(a.view(w.UINT_OF_BITS[a.dtype.itemsize * 8])[0])
    assert bits("float32", 1e39) == 0x7F800000
    assert bits("float32", -1e39) == 0xFF800000
    assert bits("float32", 1.0) == 0x3F800000
    assert bits("int8", 200.0) == 0xC8
    assert bits("int8", -1.9) == 0xFF
    assert bits("int32", -1) == 0xFFFFFFFF
    assert bits("uint32", 4294967297.0) == 1
    assert bits("int32", NAN) == 0
    assert bits("int64", -2**63) == 0x8000000000000000
    assert bits("uint64", 2**64 - 1) == 2**64 - 1
    assert bits("int4", -1) == 0xF
    assert bits("uint4", 15) == 0xF


def test_ulp_distances():
    assert w.float32_ulp_distance(1.0, next_up(1.0)) == 1
    assert w.float32_ulp_distance(-0.0, 0.0) == 0
    tiny = np.float32(1e-45)
    assert w.float32_ulp_distance(tiny, -tiny) == 2
    assert w.float32_ulp_distance(-1.0, np.nextafter(np.float32(-1), np.float32(-2))) == 1
    assert w.float16_ulp_distance(0x8000, 0x0000) == 0
    assert w.float16_ulp_distance(0x3C00, 0x3C01) == 1
    assert w.float16_ulp_distance(0x8001, 0x0001) == 0x8000


def test_float32_ulp():
    nxt = f32(next_up(1.0))
    assert check("float32", nxt, 1.0, value=1)[0]
    assert check("float32", nxt, 1.0, value=0) == (False, 1.0)
    assert check("float32", f32(0.1), 0.1)[0]


def test_nan_and_infinity():
    nan32, inf32 = np.float32(math.nan), np.float32(math.inf)
    assert check("float32", f32(-nan32), NAN, value=100, exact=True)[0]
    assert not check("float32", f32(1.0), NAN, value=100)[0]
    assert not check("float32", f32(nan32), 1.0, "ATOL", 1)[0]
    assert math.isinf(check("float32", f32(nan32), 1.0, value=100)[1])
    assert check("float32", f32(inf32), INF, value=100)[0]
    assert check("float32", f32(-inf32), -INF, "ATOL", 1)[0]
    assert not check("float32", f32(np.finfo(np.float32).max), INF, value=100)[0]
    assert not check("float32", f32(inf32), -INF, value=100)[0]
    assert check("float16", f16_bits(0x7E01), NAN, value=100)[0]
    assert not check("float16", f16_bits(0x7BFF), INF, value=100)[0]
    assert check("float16", f16_bits(0xFC00), -INF, value=100)[0]


def test_float16_ulp():
    assert check("float16", f16_bits(0x3C01), 1.0, value=1)[0]
    assert not check("float16", f16_bits(0x3C02), 1.0, value=1)[0]
    assert check("float16", f16_bits(0x3C01), 1.0 + 2.0**-11)[0]
    assert not check("float16", f16_bits(0x8001), 2.0**-24, value=100)[0]
    assert check("float16", f16_bits(0x8000), 0.0)[0]


def test_atol():
    assert check("float32", f32(1.0), 1.0 + 1 / 2048, "ATOL", 1 / 1024)[0]
    assert not check("float32", f32(1.0), 1.0 + 1 / 512, "ATOL", 1 / 1024)[0]
    ok, err = check("float16", f16_bits(0x3C00), 1.001, "ATOL", 1 / 512)
    assert ok and abs(err - 0.001) < 1e-12
    assert not check("float16", f16_bits(0x3C00), 1.01, "ATOL", 1 / 512)[0]


def test_exact_compare_checks_the_sign_of_zero():
    assert check("float32", f32(-0.0), 0.0)[0]
    assert not check("float32", f32(-0.0), 0.0, exact=True)[0]
    assert check("float32", f32(-0.0), -0.0, exact=True)[0]
    assert not check("float16", f16_bits(0x8000), 0.0, exact=True)[0]
    assert not check("float32", f32(next_up(1.0)), 1.0, value=5, exact=True)[0]


def test_integers_are_exact():
    zero, one = w.Tolerance("ULP", 0), w.Tolerance("ULP", 1)
    assert w.check_integer(-2**63, zero, -2**63)[0]
    assert not w.check_integer(-2**63 + 1, zero, -2**63)[0]
    assert w.check_integer(2**64 - 1, zero, 2**64 - 2)[1] == 1
    assert w.check_integer(-1, zero, 1)[1] == 2
    assert w.check_integer(3, zero, 3.0)[0]
    assert w.check_integer(3, one, 4)[0]
    assert not w.check_integer(0, zero, NAN)[0]
    r = w.check_output("uint64", np.array([2**64 - 1], dtype=np.uint64), 1, [2**64 - 1],
                       zero, False)
    assert r.mismatches == 0


def test_output_check_reports_the_first_mismatch():
    ok = w.check_output("float32", np.array([1, 2, 3], np.float32), 3, [1, 2, 3],
                        w.Tolerance("ULP", 0), False)
    assert (ok.checked, ok.mismatches) == (3, 0)
    bad = w.check_output("float32", np.array([1, 5, 4], np.float32), 3, [1, 2, 3],
                         w.Tolerance("ATOL", 0.5), False)
    assert bad.mismatches == 2 and bad.max_error == 3
    assert bad.first == "[1] got 5, expected 2 (error 3)"


def test_scalar_expected_data_checks_the_first_1000_elements():
    v = np.full(2000, 7, np.float32)
    v[1500] = 0
    r = w.check_output("float32", v, v.size, [7], w.Tolerance("ULP", 0), False)
    assert (r.checked, r.mismatches) == (1000, 0)


def test_packed_int4():
    packed = np.array([0xF7, 0x08], dtype=np.uint8)
    assert w.unpack_nibbles(packed, 3, True) == [7, -1, -8]
    assert w.unpack_nibbles(packed, 2, False) == [7, 15]
    r = w.check_output("int4", packed, 3, [7, -1, -8], w.Tolerance("ULP", 0), False)
    assert r.mismatches == 0
    assert w.pack_nibbles(np.array([7, 15, 8], np.uint8)).tolist() == [0xF7, 0x08]
    assert w.encode([7, -1, -8], "int4", [3], "x").tolist() == [0xF7, 0x08]
    assert w.encode(-1, "int4", [3], "x").tolist() == [0xFF, 0x0F]


def test_format_double_is_cpp_to_chars():
    cases = {1.0: "1", 100.0: "100", 0.5: "0.5", 1e5: "1e+05", 123456.0: "123456",
             1e-5: "1e-05", 0.0001: "1e-04", 0.001: "0.001", -0.0: "-0",
             90.6768569946289: "90.6768569946289",
             1e16: "1e+16", 8222.29296875: "8222.29296875", 55254687.0: "55254687",
             1.5e300: "1.5e+300", NAN: "NaN", -INF: "-Infinity"}
    for x, s in cases.items():
        assert w.format_double(x) == s, x


def test_corpus_numbers():
    assert w.numeric_string("NaN") is not None and math.isnan(w.numeric_string("NaN"))
    assert w.numeric_string("-9223372036854775808") == -2**63
    assert w.numeric_string("18446744073709551615") == 2**64 - 1
    assert w.numeric_string("1.5") == 1.5
    assert w.numeric_string("+1") is None and w.numeric_string("x") is None
    assert w._parse_int("184467440737095511615") == 184467440737095511615.0


# ---- the suites ---------------------------------------------------------------------------------

def corpus_or_skip(suite):
    if w.cppnn is None:
        pytest.skip("the cppnn package is not importable")
    directory, reason = w.resolve_corpus(suite)
    if directory is None:
        pytest.skip(reason)
    return directory


@pytest.fixture(scope="module")
def conformance():
    corpus_or_skip("conformance")
    if BACKEND not in w.cppnn.available_backends():
        pytest.skip(f"the {BACKEND} backend is not compiled in")
    return w.run_suite("conformance", backend=BACKEND,
                       report=w.default_report("conformance", BACKEND))


@pytest.fixture(scope="module")
def validation():
    corpus_or_skip("validation")
    return w.run_suite("validation", report=w.default_report("validation", ""))


def failures(run):
    return {c.id: c.message for c in run.cases if c.status in (w.FAILED, w.KNOWN)}


def test_conformance_pass_rate(conformance):
    t = conformance.totals
    total = len(conformance.cases)
    assert total > 0
    print(w.closing_line(conformance.label, t), f"({conformance.time_ms / 1000:.1f} s)")
    assert t.passed >= 0.99 * total, failures(conformance)


def test_conformance_failures_are_the_cpp_runners_known_failures(conformance):
    listed = set(w.load_expectations(
        w.default_expectations_file(f"conformance-{BACKEND}")).reasons)
    unexpected = {c.id: c.message for c in conformance.cases if c.status == w.FAILED}
    assert not unexpected
    assert {c.id for c in conformance.cases if c.status == w.KNOWN} == listed


def test_conformance_report_schema(conformance):
    cpp = os.path.join(ROOT, "reports", f"wpt-conformance-{BACKEND}.json")
    ours = conformance.report
    assert set(ours) == {"suite", "backend", "corpus", "passed", "failed", "skipped",
                         "known_failures", "time_ms", "cases"}
    assert set(ours["cases"][0]) == {"id", "file", "name", "variant", "status", "metric",
                                     "tolerance", "max_error", "time_ms", "message"}
    if os.path.exists(cpp):
        with open(cpp, encoding="utf-8") as f:
            ref = json.load(f)
        assert set(ref) == set(ours)
        assert set(ref["cases"][0]) == set(ours["cases"][0])
        if ref["corpus"] == ours["corpus"]:
            assert {c["id"]: c["status"] for c in ref["cases"]} == \
                {c["id"]: c["status"] for c in ours["cases"]}


def cpp_validation_report(corpus):
    """The C++ runner's validation report for `corpus`, or None."""
    path = os.path.join(ROOT, "reports", "wpt-validation.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        if report.get("corpus") == corpus:
            return report
    tool = os.path.join(ROOT, "build", "bin", "cppnn")
    if not os.access(tool, os.X_OK):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "wpt-validation.json")
        subprocess.run([tool, "wpt", "--suite", "validation", "--corpus", corpus, "--report", out],
                       cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       timeout=600)
        if not os.path.exists(out):
            return None
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def test_validation_has_no_unexpected_failures(validation):
    print(w.closing_line(validation.label, validation.totals),
          f"({validation.time_ms / 1000:.1f} s)")
    assert not {c.id: c.message for c in validation.cases if c.status == w.FAILED}


def test_validation_matches_the_cpp_runner(validation):
    report = cpp_validation_report(validation.corpus)
    if report is None:
        pytest.skip("no C++ validation report (run ctest in build/) and no build/bin/cppnn")
    ref = {c["id"]: (c["status"], c["message"]) for c in report["cases"]}
    ours = {c.id: (c.status, c.message) for c in validation.cases}
    assert set(ours) == set(ref)
    status_diff = {i: (ours[i][0], ref[i][0]) for i in ours if ours[i][0] != ref[i][0]}
    assert not status_diff
    # The notes of passing traces come from the replay itself (steps not run, calls flipped to
    # TypeError by opSupportLimits()), so they must agree too.
    notes = {i: (ours[i][1], ref[i][1]) for i in ours
             if ours[i][0] == w.PASSED and ours[i][1] != ref[i][1]}
    assert not notes
