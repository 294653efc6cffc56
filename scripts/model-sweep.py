#!/usr/bin/env python3
"""The real-model sweep (docs/model-sweep.md): every model of tests/models/sweep.tsv converted
with `cppnn convert-onnx` (timed; `cppnn info --json` on the result gives its operator
histogram), then run on each compiled-in backend and compared with ONNX Runtime on the original
file by `cppnn compare-onnx --json`. A (model, backend) case passes when every output's relative
L2 error ||cppnn - ort|| / ||ort|| is within the model's tolerance (1e-4 unless the list says
otherwise for an output) and no NaN / infinity differs. Known failures are listed in
tests/models/sweep-expectations.txt; a listed case that passes fails the run as stale.

Prints one line per case and closes with `model-sweep: N passed, N failed, N skipped`; writes a
JSON report (default reports/model-sweep.json). Exit 0 when nothing failed, 1 otherwise, 77 when
every case was skipped (no model fetched, or no ONNX Runtime). Python standard library only.
"""
import argparse
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NPY_DTYPES = {"float32": ("<f4", "f"), "float16": ("<f2", "e"), "int32": ("<i4", "i"),
              "uint32": ("<u4", "I"), "int64": ("<i8", "q"), "uint64": ("<u8", "Q"),
              "int8": ("|i1", "b"), "uint8": ("|u1", "B")}

# Flags of a model's list entry that only compare-onnx takes (the generated input's kind).
COMPARE_ONLY = {"--input-pattern", "--normalize", "--seed"}


def read_list(path):
    """The rows of sweep.tsv as dicts (comment lines skipped)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            c = line.rstrip("\n").split("\t")
            if len(c) != 12:
                sys.exit(f"model-sweep: {path}:{number}: expected 12 tab-separated columns")
            rows.append(dict(id=c[0], domain=c[1], registry=c[2], package=c[3], member=c[4],
                             sha256=c[5], bytes=int(c[6]), licence=c[7], quick=c[8] == "yes",
                             tolerance=c[9], flags=shlex.split(c[10]), note=c[11]))
    return rows


def read_expectations(path):
    """`[backends] id: category: reason` lines -> {(id, backend or None): reason}."""
    expected = {}
    if not os.path.exists(path):
        return expected
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            backends = [None]
            if line.startswith("["):
                close = line.index("]")
                backends = [b.strip() for b in line[1:close].split(",")]
                line = line[close + 1:].strip()
            model, _, reason = line.partition(":")
            for b in backends:
                expected[(model.strip(), b)] = reason.strip()
    return expected


def tolerances(spec):
    """`X` or `NAME=X,...,*=X` -> (default, {output: X})."""
    default, per_output = 1e-4, {}
    for item in spec.split(","):
        name, eq, value = item.rpartition("=")
        if not eq or name == "*":
            default = float(value)
        else:
            per_output[name] = float(value)
    return default, per_output


def write_npy(path, data_type, shape, value):
    """A .npy file of `shape` filled with `value` (the compare's --input for --fill)."""
    descr, fmt = NPY_DTYPES[data_type]
    count = 1
    for d in shape:
        count *= d
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")"
    if len(shape) > 1:
        shape_text = shape_text.replace(",)", ")")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    number = float(value) if fmt in "fe" else int(value)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<" + fmt, number) * count)


def run(cmd, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s", time.monotonic() - start


def last_error(stderr, stdout=""):
    lines = [l for l in (stderr + "\n" + stdout).splitlines() if l.strip()]
    errors = [l for l in lines if "Error" in l or "error" in l]
    return (errors or lines or ["no output"])[-1].strip()


def compiled_backends(cppnn):
    """The backends of `cppnn ops`' header line (the compiled-in ones)."""
    rc, out, err, _ = run([cppnn, "ops"], 60)
    if rc != 0 or not out:
        sys.exit(f"model-sweep: `{cppnn} ops` failed: {last_error(err)}")
    return out.splitlines()[0].split()[1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cppnn", default=os.path.join(ROOT, "build", "bin", "cppnn"))
    ap.add_argument("--list", default=os.path.join(ROOT, "tests", "models", "sweep.tsv"))
    ap.add_argument("--expectations",
                    default=os.path.join(ROOT, "tests", "models", "sweep-expectations.txt"))
    ap.add_argument("--models", default=os.path.join(ROOT, ".deps", "models", "sweep"))
    ap.add_argument("--report", default=os.path.join(ROOT, "reports", "model-sweep.json"))
    ap.add_argument("--backends", help="comma-separated (default: every compiled-in backend)")
    ap.add_argument("--only", help="comma-separated model ids")
    ap.add_argument("--quick", action="store_true", help="only the models marked quick")
    ap.add_argument("--fetch", action="store_true",
                    help="run scripts/fetch-sweep-models.sh for the selected models first")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per cppnn command")
    a = ap.parse_args()

    rows = read_list(a.list)
    if a.quick:
        rows = [r for r in rows if r["quick"]]
    if a.only:
        wanted = set(a.only.split(","))
        unknown = wanted - {r["id"] for r in rows}
        if unknown:
            sys.exit(f"model-sweep: no model {', '.join(sorted(unknown))} in {a.list}")
        rows = [r for r in rows if r["id"] in wanted]
    if a.fetch:
        subprocess.run([os.path.join(ROOT, "scripts", "fetch-sweep-models.sh"), "--only",
                        ",".join(r["id"] for r in rows)], check=False)
    compiled = compiled_backends(a.cppnn)
    backends = a.backends.split(",") if a.backends else compiled
    backends = [b for b in backends if b in compiled]
    expected = read_expectations(a.expectations)

    counts = {"passed": 0, "failed": 0, "skipped": 0, "expected": 0}
    report = {"backends": backends, "tolerance": "max rel L2 per output", "models": []}
    work = tempfile.mkdtemp(prefix="model-sweep.")

    def record(model, backend, status, reason, line):
        key = (model["id"], backend)
        known = expected.get(key, expected.get((model["id"], None)))
        if known is not None and status == "passed":
            status, reason = "failed", f"stale expectation (passes now): {known}"
        elif known is not None and status == "failed":
            status, reason = "skipped", f"expected failure: {known} [{reason}]"
            counts["expected"] += 1
        counts[status] += 1
        print(f"  {backend:<10} {status.upper():<7} {line}{'  ' + reason if reason else ''}",
              flush=True)
        return status, reason

    for model in rows:
        path = os.path.join(a.models, model["id"] + ".onnx")
        entry = {k: model[k] for k in ("id", "domain", "registry", "package", "member",
                                       "sha256", "bytes", "licence", "tolerance", "note")}
        entry["flags"] = " ".join(model["flags"])
        entry["backends"] = {}
        report["models"].append(entry)
        print(f"{model['id']} ({model['domain']}, {model['package']})", flush=True)
        if not os.path.exists(path):
            for b in backends:
                counts["skipped"] += 1
                entry["backends"][b] = {"status": "skipped", "reason": f"{path} not fetched"}
                print(f"  {b:<10} SKIPPED not fetched (scripts/fetch-sweep-models.sh)")
            continue
        # --fill NAME=V is the runner's; compare-onnx's own input flags are not convert-onnx's.
        fills, flags, compare_flags = [], [], []
        args = list(model["flags"])
        while args:
            flag = args.pop(0)
            if flag == "--fill":
                fills.append(args.pop(0).split("=", 1))
            elif flag in COMPARE_ONLY:
                compare_flags += [flag, args.pop(0)]
            else:
                flags.append(flag)
        # The conversion: timed, then the graph's operator histogram and input types.
        graph = os.path.join(work, model["id"] + ".webnn")
        rc, out, err, seconds = run([a.cppnn, "convert-onnx", path, "-o", graph] + flags,
                                    a.timeout)
        entry["convertSeconds"] = round(seconds, 3)
        conversion_error = None if rc == 0 else last_error(err, out)
        info = {}
        if conversion_error is None:
            rc, out, err, _ = run([a.cppnn, "info", graph, "--json"], a.timeout)
            if rc == 0:
                info = json.loads(out)
                entry["operations"] = info["operations"]
                entry["constantBytes"] = info["constants"]["bytes"]
            else:
                conversion_error = "cppnn info: " + last_error(err, out)
        entry["conversionError"] = conversion_error
        ops = entry.get("operations", {}).get("count", "-")
        print(f"  convert-onnx {seconds:.2f} s, {ops} operations"
              + (f": FAILED {conversion_error}" if conversion_error else ""), flush=True)
        inputs = []
        for name, value in fills:
            desc = next((i for i in info.get("inputs", []) if i["name"] == name), None)
            if desc is None:
                conversion_error = conversion_error or f"--fill {name}: no such graph input"
                continue
            npy = os.path.join(work, f"{model['id']}.{name}.npy")
            write_npy(npy, desc["dataType"], desc["shape"], value)
            inputs += ["--input", f"{name}={npy}"]
        default, per_output = tolerances(model["tolerance"])
        for b in backends:
            result = {}
            if conversion_error:
                status, reason, line = "failed", conversion_error, "conversion failed:"
            else:
                js = os.path.join(work, f"{model['id']}.{b}.json")
                cmd = [a.cppnn, "compare-onnx", path, "--backend", b, "--json", js]
                cmd += flags + compare_flags + inputs
                rc, out, err, seconds = run(cmd, a.timeout)
                if rc == 77:
                    counts["skipped"] += 1
                    entry["backends"][b] = {"status": "skipped", "reason": last_error(err, out)}
                    print(f"  {b:<10} SKIPPED {last_error(err, out)}")
                    continue
                try:
                    with open(js, encoding="utf-8") as f:
                        result = json.load(f)
                except (OSError, ValueError):
                    result = {"error": last_error(err, out)}
                result["seconds"] = round(seconds, 3)
                if "error" in result:
                    status, reason, line = "failed", result["error"], "error:"
                else:
                    bad = []
                    for o in result["outputs"]:
                        tol = per_output.get(o["name"], default)
                        o["maxRelL2"] = tol
                        rel = o["relL2"]
                        o["withinTolerance"] = (rel is not None and rel <= tol
                                                and not o["nonfiniteMismatch"])
                        if not o["withinTolerance"]:
                            bad.append(f"'{o['name']}' rel L2 {rel} > {tol}"
                                       if not o["nonfiniteMismatch"] else
                                       f"'{o['name']}' NaN/infinity mismatch")
                    worst_abs = max((o["maxAbs"] or 0 for o in result["outputs"]), default=0)
                    worst_rel = max((o["relL2"] or 0 for o in result["outputs"]), default=0)
                    result["maxAbs"], result["maxRelL2"] = worst_abs, worst_rel
                    status = "failed" if bad else "passed"
                    reason = "; ".join(bad)
                    line = (f"max abs {worst_abs:.3g}, max rel L2 {worst_rel:.3g}, "
                            f"dispatch {result.get('dispatchMs', 0):.1f} ms "
                            f"(ORT {result.get('ortMs', 0):.1f} ms)")
            status, reason = record(model, b, status, reason, line)
            result.update({"status": status, "reason": reason})
            entry["backends"][b] = result

    report["summary"] = dict(counts)
    os.makedirs(os.path.dirname(os.path.abspath(a.report)), exist_ok=True)
    with open(a.report + ".partial", "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    os.replace(a.report + ".partial", a.report)
    subprocess.run(["rm", "-rf", work], check=False)
    if counts["expected"]:
        print(f"model-sweep: {counts['expected']} of the skipped are listed expected failures "
              f"({os.path.relpath(a.expectations, ROOT)})")
    print(f"report: {a.report}")
    print(f"model-sweep: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    if counts["failed"]:
        return 1
    return 77 if counts["passed"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
