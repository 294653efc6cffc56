"""Unit tests of check_interpreter.py's own rules (tests/tflite): the comparison of the
interpreter's outputs with the backend's under WPT's metrics (the backend's values standing in for
WPT's expected numbers must come back unchanged through WPT's float32 rounding and toHalf), the
bit-exact comparison, the check against WPT's expected values, the expectations file and each
case's outcome, and small models made with the wheel's generated schema checked end to end.

Run: .venv-litert/bin/python -m pytest -q tests/tflite/test_check_interpreter.py
"""

import json
import os
import sys

import flatbuffers
import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_interpreter as ci  # noqa: E402
import interpreter_checks as ic  # noqa: E402
from ai_edge_litert import schema_py_generated as schema  # noqa: E402

f16, f32 = np.float16, np.float32


def a(values, dtype):
    return np.array(values, dtype=dtype)


def compare(model_type, actual, reference, metric="ULP", value=0, exact=False):
    tol = ic.tolerance_of({"metricType": metric, "value": value})
    return ic.compare_output(model_type, np.asarray(actual), np.asarray(reference), tol, exact)


# ---- the comparison with the backend's outputs ---------------------------------------------------


def test_every_float16_value_compares_equal_to_itself():
    # WPT's toHalf of the exact double of each half gives the half back (NaN: any NaN matches).
    bits = np.arange(0x10000, dtype=np.uint32).astype(np.uint16)
    halves = bits.view(f16)
    c = compare("float16", halves, halves, exact=True)
    assert (c.checked, c.mismatches) == (0x10000, 0)
    # One ULP apart everywhere but at the infinities and NaNs: a mismatch at tolerance 0.
    finite = halves[np.isfinite(halves) & (halves != f16(65504)) & (halves != f16(-65504))]
    up = np.nextafter(finite, f16(np.inf))
    assert compare("float16", up, finite).mismatches == finite.size
    # WPT's float16 distance is that of the raw bits: from -0 (0x8000) up to the smallest
    # subnormal (0x0001) it is 32767.
    minus_zero = finite.view(np.uint16) == 0x8000
    c = compare("float16", up, finite, value=1)
    assert c.mismatches == 1 and c.max_error == 32767 and minus_zero.sum() == 1
    assert compare("float16", up[~minus_zero], finite[~minus_zero], value=1).mismatches == 0


def test_float32_values_compare_equal_to_themselves():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32)
    extremes = np.array([0, 0x80000000, 1, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
                         0xFF800000, 0x7FC00000, 0x7F800001, 0x00800000], dtype=np.uint32)
    values = np.concatenate([bits, extremes]).view(f32)
    c = compare("float32", values, values, exact=True)
    assert c.mismatches == 0 and c.checked == values.size


def test_ulp_metric_and_special_values():
    one = f32(1)
    up = np.nextafter(one, f32(2))
    assert compare("float32", [up], [one], value=1).mismatches == 0
    c = compare("float32", [up], [one], value=0)
    assert c.mismatches == 1 and c.max_error == 1.0
    assert c.first.startswith("[0] got 1.0000001")
    # Distances across zero add up; -0 and +0 are 0 apart unless exactCompare.
    tiny = np.nextafter(f32(0), f32(1))
    assert compare("float32", [-tiny], [tiny], value=1).mismatches == 1
    assert compare("float32", [-tiny], [tiny], value=2).mismatches == 0
    assert compare("float32", a([-0.0], f32), a([0.0], f32)).mismatches == 0
    assert compare("float32", a([-0.0], f32), a([0.0], f32), exact=True).mismatches == 1
    assert compare("float16", a([-0.0], f16), a([0.0], f16)).mismatches == 0
    # NaN matches any NaN, not a number; infinities match only themselves.
    assert compare("float32", a([np.nan], f32), a([-np.nan], f32)).mismatches == 0
    assert compare("float32", a([1.0], f32), a([np.nan], f32), value=1e9).mismatches == 1
    assert compare("float32", a([np.nan], f32), a([1.0], f32), value=1e9).mismatches == 1
    assert compare("float32", a([np.inf], f32), a([3.4e38], f32), value=1e9).mismatches == 1
    assert compare("float16", a([np.inf], f16), a([np.inf], f16)).mismatches == 0


def test_atol_metric():
    assert compare("float32", a([0.5], f32), a([0.5009], f32), "ATOL", 1 / 1024).mismatches == 0
    assert compare("float32", a([0.5], f32), a([0.502], f32), "ATOL", 1 / 1024).mismatches == 1
    assert compare("float16", a([0.3], f16), a([0.3007], f16), "ATOL", 1 / 1024).mismatches == 0
    assert compare("float16", a([0.3], f16), a([0.302], f16), "ATOL", 1 / 1024).mismatches == 1
    # The tolerance's value may be a string number of the corpus.
    tol = ic.tolerance_of({"metricType": "ATOL", "value": "0.5"})
    assert tol.metric == "ATOL" and tol.value == 0.5


def test_integers_are_exact():
    big = 2**63 - 1
    assert compare("int64", a([big], np.int64), a([big], np.int64)).mismatches == 0
    assert compare("int64", a([big], np.int64), a([big - 1], np.int64)).mismatches == 1
    assert compare("int64", a([-2**63], np.int64), a([big], np.int64), value=1e30).mismatches == 0
    assert compare("uint64", a([2**64 - 1], np.uint64), a([2**64 - 2], np.uint64)).mismatches == 1
    assert compare("uint32", a([4294967295], np.uint32), a([4294967295], np.uint32)).mismatches \
        == 0
    assert compare("int32", a([5, -3], np.int32), a([5, -2], np.int32), value=1).mismatches == 0
    # int4 outputs travel unpacked as int8.
    assert compare("int8", a([-8, 7], np.int8), a([-8, 7], np.int8)).mismatches == 0
    assert compare("uint8", a([255], np.uint8), a([0], np.uint8), value=254).mismatches == 1


def test_bit_exact():
    nan_a = np.array([0x7E01], np.uint16).view(f16)
    nan_b = np.array([0xFE00], np.uint16).view(f16)
    assert compare("float16", nan_a, nan_b, "bitExact").mismatches == 0
    c = compare("float16", a([0.0], f16), a([-0.0], f16), "bitExact")
    assert c.mismatches == 1 and c.first == "[0] bits 0, expected 32768"
    assert compare("float32", a([1.0], f32), a([1.0], f32), "bitExact").mismatches == 0
    assert compare("int32", a([-1], np.int32), a([-1], np.int32), "bitExact").mismatches == 0
    assert compare("int8", a([-1], np.int8), a([127], np.int8), "bitExact").mismatches == 1


def test_unknown_metric_is_an_input_error():
    with pytest.raises(ic.InputError):
        ic.tolerance_of({"metricType": "RMS", "value": 1})


def test_compare_expected():
    tol = ic.tolerance_of({"metricType": "ULP", "value": 0})
    # float16 expected values go through WPT's toHalf: 1 + 2^-11 rounds up to 1 + 2^-10.
    entry = {"name": "o", "dataType": "float16", "modelType": "float16", "shape": [1],
             "expected": [1 + 2**-11]}
    assert ic.compare_expected(entry, a([1 + 2**-10], f16), tol, False).mismatches == 0
    assert ic.compare_expected(entry, a([1.0], f16), tol, False).mismatches == 1
    # One expected number for every element (the first 1000 checked), string numbers too.
    entry = {"name": "o", "dataType": "float32", "modelType": "float32", "shape": [1500],
             "expected": "NaN"}
    c = ic.compare_expected(entry, np.full(1500, np.nan, f32), tol, False)
    assert (c.checked, c.mismatches) == (1000, 0)
    # int4 outputs: the unpacked int8 elements against the int4 values.
    entry = {"name": "o", "dataType": "int4", "modelType": "int8", "shape": [2],
             "expected": [-8, 7]}
    assert ic.compare_expected(entry, a([-8, 7], np.int8), tol, False).mismatches == 0
    # Bits (the storage cases).
    entry = {"name": "o", "dataType": "float16", "modelType": "float16", "shape": [2],
             "expectedBits": [0x7E00, 0x8000]}
    nan_and_minus_zero = np.array([0x7C01, 0x8000], np.uint16).view(f16)
    assert ic.compare_expected(entry, nan_and_minus_zero, "bitExact", True).mismatches == 0
    assert ic.compare_expected(entry, a([np.nan, 0.0], f16), "bitExact", True).mismatches == 1


# ---- expectations and outcomes -------------------------------------------------------------------


def result(case_id, failing=None, exported=True, resolvers=("xnnpack", "builtin")):
    r = {"id": case_id, "exported": exported, "error": "" if exported else "build: X",
         "resolvers": {}}
    if exported:
        for name in resolvers:
            stages = {s: {"status": ci.PASSED, "message": ""} for s in ci.STAGES}
            r["resolvers"][name] = {"stages": stages, "max_error": 0.0, "expected": ""}
        if failing:
            name, stage = failing
            r["resolvers"][name]["stages"][stage] = {"status": ci.FAILED, "message": "boom"}
    return r


def test_load_expectations(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("# comment\n\nxnnpack:compare a.json :: c1 -- reason one\n"
                    "builtin:load a.json :: c2 -- reason two\n", encoding="utf-8")
    assert ci.load_expectations(str(path)) == {
        "a.json :: c1": ("xnnpack", "compare", "reason one"),
        "a.json :: c2": ("builtin", "load", "reason two")}
    for bad in ("xnnpack:compare a.json :: c1\n",            # no reason
                "gpu:compare a.json :: c1 -- r\n",           # unknown resolver
                "xnnpack:convert a.json :: c1 -- r\n",       # unknown stage
                "compare a.json :: c1 -- r\n",               # no resolver
                "xnnpack:run a :: b -- r\nxnnpack:run a :: b -- s\n"):  # duplicate
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(ic.InputError):
            ci.load_expectations(str(path))


def test_the_repository_expectations_file_parses():
    ci.load_expectations(ci.DEFAULT_EXPECTATIONS)


def outcome(r, listed, resolvers=("xnnpack", "builtin")):
    ci.outcome(r, listed, list(resolvers))
    return r


def test_outcomes():
    assert outcome(result("c"), {})["status"] == ci.PASSED
    r = outcome(result("c", ("builtin", "compare")), {})
    assert (r["status"], r["resolver"], r["stage"], r["message"]) == (
        ci.FAILED, "builtin", "compare", "boom")
    # The first failure in resolver order decides.
    r = result("c", ("builtin", "load"))
    r["resolvers"]["xnnpack"]["stages"]["run"] = {"status": ci.FAILED, "message": "first"}
    assert outcome(r, {})["resolver"] == "xnnpack"
    # Known: listed for that resolver and stage.
    r = outcome(result("c", ("builtin", "compare")), {"c": ("builtin", "compare", "why")})
    assert r["status"] == ci.KNOWN and "[known failure: why]" in r["message"]
    # Listed for another stage: a failure.
    r = outcome(result("c", ("builtin", "run")), {"c": ("builtin", "compare", "why")})
    assert r["status"] == ci.FAILED and "it fails at builtin:run" in r["message"]
    # Stale: listed but passes.
    r = outcome(result("c"), {"c": ("xnnpack", "compare", "why")})
    assert r["status"] == ci.FAILED and r["message"].startswith("stale entry")
    # An entry for a resolver that does not run is ignored.
    r = outcome(result("c", resolvers=("xnnpack",)), {"c": ("builtin", "compare", "why")},
                ("xnnpack",))
    assert r["status"] == ci.PASSED
    # Not exported: skipped, listed or not.
    r = outcome(result("c", exported=False), {"c": ("xnnpack", "compare", "why")})
    assert r["status"] == ci.SKIPPED and "not checked" in r["message"]
    assert outcome(result("c", exported=False), {})["message"] == "not exported: build: X"


def test_crashed_result():
    case = {"id": "c", "model": "c0000.tflite"}
    r = ci.crashed_result(case, ["xnnpack", "builtin"], "builtin", "run", -11)
    assert r["resolvers"]["xnnpack"]["stages"]["compare"]["status"] == ci.PASSED
    stages = r["resolvers"]["builtin"]["stages"]
    assert stages["load"]["status"] == ci.PASSED
    assert stages["run"] == {"status": ci.FAILED,
                             "message": "the interpreter process died (signal 11)"}
    assert stages["compare"]["status"] == ci.SKIPPED
    assert outcome(r, {})["stage"] == "run"


# ---- models end to end ---------------------------------------------------------------------------


TYPES = {"float32": schema.TensorType.FLOAT32, "float16": schema.TensorType.FLOAT16,
         "int32": schema.TensorType.INT32}


def make_model(op, options_type, options, inputs, outputs, signature="serving_default"):
    """A one-operator model: inputs and outputs as (name, type, shape)."""
    def tensor(name, data_type, shape):
        t = schema.TensorT()
        t.shape, t.type, t.buffer, t.name = list(shape), TYPES[data_type], 0, name
        return t

    def tensor_map(name, i):
        m = schema.TensorMapT()
        m.name, m.tensorIndex = name, i
        return m

    m = schema.ModelT()
    m.version = 3
    code = schema.OperatorCodeT()
    code.builtinCode, code.deprecatedBuiltinCode, code.version = op, op, 1
    m.operatorCodes, m.buffers = [code], [schema.BufferT()]
    g = schema.SubGraphT()
    g.tensors = [tensor(*t) for t in inputs + outputs]
    g.inputs = list(range(len(inputs)))
    g.outputs = list(range(len(inputs), len(inputs) + len(outputs)))
    o = schema.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = 0, g.inputs, g.outputs
    o.builtinOptionsType, o.builtinOptions = options_type, options
    g.operators = [o]
    m.subgraphs = [g]
    sig = schema.SignatureDefT()
    sig.signatureKey, sig.subgraphIndex = signature, 0
    sig.inputs = [tensor_map(t[0], i) for i, t in enumerate(inputs)]
    sig.outputs = [tensor_map(t[0], len(inputs) + i) for i, t in enumerate(outputs)]
    m.signatureDefs = [sig]
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def add_model(signature="serving_default"):
    return make_model(schema.BuiltinOperator.ADD, schema.BuiltinOptions.AddOptions,
                      schema.AddOptionsT(),
                      [("a", "float32", [2, 2]), ("b", "float32", [2, 2])],
                      [("y", "float32", [2, 2])], signature)


def cast_model():
    options = schema.CastOptionsT()
    options.inDataType, options.outDataType = TYPES["float16"], TYPES["int32"]
    return make_model(schema.BuiltinOperator.CAST, schema.BuiltinOptions.CastOptions, options,
                      [("x", "float16", [3])], [("y", "int32", [3])])


def write_case(folder, stem, model, inputs, outputs, tolerance=None, exact=False):
    """An index entry with its files: inputs and outputs as (name, dataType, array[, expected])."""
    (folder / stem).mkdir()
    (folder / f"{stem}.tflite").write_bytes(model)

    def entry(kind, k, name, data_type, array):
        file = f"{stem}/{kind}{k}.npy"
        np.save(folder / file, array)
        return {"name": name, "dataType": data_type, "shape": list(array.shape),
                "modelType": str(array.dtype), "file": file}

    ins = [entry("in", k, *x) for k, x in enumerate(inputs)]
    outs = []
    for k, (name, data_type, array, expected) in enumerate(outputs):
        outs.append({**entry("out", k, name, data_type, array), "expected": expected})
    return {"id": f"t.json :: {stem}", "model": f"{stem}.tflite", "inputs": ins, "outputs": outs,
            "tolerance": tolerance or {"metricType": "ULP", "value": 0}, "exactCompare": exact,
            "wpt": {"status": "passed", "message": ""}}


def run_checker(tmp_path, cases, capsys, *extra):
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"corpus": "test", "backend": "litert", "cases": cases}),
                     encoding="utf-8")
    report = tmp_path / "report.json"
    rc = ci.main([str(index), "--report", str(report), "--expectations", "", *extra])
    return rc, capsys.readouterr().out, json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture
def add_inputs():
    x = np.arange(4, dtype=f32).reshape(2, 2)
    y = np.full((2, 2), 0.5, f32)
    return x, y


def test_models_end_to_end(tmp_path, capsys, add_inputs):
    x, y = add_inputs
    halves = a([1.5, -2.75, 65504], f16)
    cases = [
        write_case(tmp_path, "c0000", add_model(), [("a", "float32", x), ("b", "float32", y)],
                   [("y", "float32", x + y, (x + y).reshape(-1).tolist())]),
        write_case(tmp_path, "c0001", cast_model(), [("x", "float16", halves)],
                   [("y", "int32", a([1, -2, 65504], np.int32), [1, -2, 65504])]),
        {"id": "t.json :: c0002", "error": "build: NotSupportedError: no"},
    ]
    rc, out, report = run_checker(tmp_path, cases, capsys)
    assert rc == 0, out
    assert out.strip().splitlines()[-1] == "tflite-interpreter: 2 passed, 0 failed, 1 skipped"
    s = report["summary"]
    assert (s["exported"], s["not_exported"]) == (2, 1)
    assert s["resolvers"]["xnnpack"] == {"load": 2, "run": 2, "compare": 2,
                                         "matches_wpt_expected": 2}
    assert report["cases"][2]["message"] == "not exported: build: NotSupportedError: no"


def test_a_different_backend_output_fails(tmp_path, capsys, add_inputs):
    x, y = add_inputs
    backend = (x + y).copy()
    backend[1, 1] = np.nextafter(backend[1, 1], f32(10))  # one ULP off
    cases = [write_case(tmp_path, "c0000", add_model(), [("a", "float32", x), ("b", "float32", y)],
                        [("y", "float32", backend, (x + y).reshape(-1).tolist())])]
    rc, out, report = run_checker(tmp_path, cases, capsys, "--resolvers", "xnnpack")
    assert rc == 1
    r = report["cases"][0]
    assert (r["status"], r["resolver"], r["stage"]) == (ci.FAILED, "xnnpack", "compare")
    assert "1 of 4 elements differ from the backend's, first [3] got 3.5, expected 3.5000002" \
        in r["message"]
    # Within the tolerance it passes.
    cases[0]["tolerance"] = {"metricType": "ULP", "value": 1}
    rc, out, report = run_checker(tmp_path, cases, capsys, "--resolvers", "xnnpack")
    assert rc == 0, out


def test_load_failures(tmp_path, capsys, add_inputs):
    x, y = add_inputs
    ins = [("a", "float32", x), ("b", "float32", y)]
    outs = [("y", "float32", x + y, (x + y).reshape(-1).tolist())]
    no_signature = write_case(tmp_path, "c0000", add_model("other"), ins, outs)
    renamed = write_case(tmp_path, "c0001", add_model(), ins, outs)
    renamed["outputs"][0]["name"] = "z"
    garbage = write_case(tmp_path, "c0002", b"TFL3 is not enough", ins, outs)
    rc, out, report = run_checker(tmp_path, [no_signature, renamed, garbage], capsys,
                                  "--resolvers", "builtin")
    assert rc == 1
    msgs = [(r["resolver"], r["stage"], r["message"]) for r in report["cases"]]
    assert msgs[0][:2] == ("builtin", "load") and "no SignatureDef 'serving_default'" in msgs[0][2]
    assert msgs[1][:2] == ("builtin", "load")
    assert "the signature's outputs are ['y'], the index's ['z']" in msgs[1][2]
    assert msgs[2][:2] == ("builtin", "load") and msgs[2][2]


def test_type_mismatch_between_index_and_model(tmp_path, capsys):
    halves = a([1.5, -2.75, 3], f16)
    # The index (and its .npy) say int64 where the model's output is int32.
    case = write_case(tmp_path, "c0000", cast_model(), [("x", "float16", halves)],
                      [("y", "int64", a([1, -2, 3], np.int64), [1, -2, 3])])
    rc, out, report = run_checker(tmp_path, [case], capsys, "--resolvers", "xnnpack")
    assert rc == 1
    assert "output y: the model's tensor is int32[3], the index's int64[3]" in \
        report["cases"][0]["message"]


def test_input_errors(tmp_path, capsys, add_inputs):
    x, y = add_inputs
    case = write_case(tmp_path, "c0000", add_model(), [("a", "float32", x), ("b", "float32", y)],
                      [("y", "float32", x + y, (x + y).reshape(-1).tolist())])
    case["inputs"][0]["shape"] = [4]  # the .npy holds [2, 2]
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"cases": [case]}), encoding="utf-8")
    assert ci.main([str(index), "--report", str(tmp_path / "r.json"), "--expectations", ""]) == 2
    assert ci.main([str(tmp_path / "missing.json"), "--expectations", ""]) == 2
    assert ci.main([str(index), "--resolvers", "gpu", "--expectations", ""]) == 2
    capsys.readouterr()


def test_isolated_run_reports_like_a_worker(tmp_path, add_inputs):
    # The path a chunk takes after a worker died: one process per case, stages reported back.
    x, y = add_inputs
    case = write_case(tmp_path, "c0000", add_model(), [("a", "float32", x), ("b", "float32", y)],
                      [("y", "float32", x + y, (x + y).reshape(-1).tolist())])
    context = ci.multiprocessing.get_context("spawn")
    r = ci.run_isolated(context, case, str(tmp_path), ["xnnpack", "builtin"])
    assert r["exported"] and sorted(r["resolvers"]) == ["builtin", "xnnpack"]
    for rr in r["resolvers"].values():
        assert all(s["status"] == ci.PASSED for s in rr["stages"].values())
