#!/usr/bin/env python3
"""Checks the CoreML packages of a WPT export (`cppnn wpt --suite conformance --backend reference
--export-coreml DIR`, whose DIR/index.json tools/cppnn/wpt_coreml.cpp writes), or one package.

  check_packages.py INDEX.json [--report FILE] [--expectations FILE] [-j N] [--verbose]
  check_packages.py --package PATH.mlpackage [--quiet]

Per case of the index, three stages (a stage runs only when the one before passed):
  convert     the export wrote a package (else the index holds the conversion error);
  structural  coremltools 9 reads the package (MLModel(path, skip_model_load=True)) and its
              milproto loader rebuilds the program, re-running MIL validation and type inference
              of every op (any exception fails, with its message); the package is specification
              version 8 with one function `main` in opset CoreML7; the description's features and
              the function's inputs and (inferred) outputs have the index's packageType and
              packageShape;
  numeric     the case's .npy inputs (cast to packageType, reshaped to packageShape) are fed to
              the numpy MIL evaluator (mil_numpy), and every output is compared with WPT's
              expected values under the case's tolerance by the rules of the C++ WPT runner
              (tests/python/wpt_runner.py's port of tools/cppnn/wpt_compare.cpp: ULP and ATOL
              metrics, NaN and infinity rules, exactCompare; expectedBits bit for bit, any NaN for
              a NaN). A program using an op the evaluator lacks is "not evaluated: MIL op X": the
              case is skipped, not failed (and does not count as a numeric pass).

Known failures are listed in tests/coreml/expected-failures.txt (see its header), and so are the
cases outside the target (stage `outside`: a data type CoreML cannot carry, such as int64; they
must fail to convert and count as skipped, as WPT skips a case whose types the context's
opSupportLimits() lacks). The run fails (exit 1) on a failure not listed there, on a listed
failure that no longer fails at its stage, or when fewer than 99% of the cases inside the target
pass the structural stage or fewer than 95% of the converted cases pass the numeric stage. The JSON report (default reports/coreml-structural.json) has the
totals and every case's stages. The last line reads `coreml-structural: N passed, N failed,
N skipped`. Exit status: 0 success, 1 failure, 2 usage or input error.

coremltools' import is slow (seconds): each of the -j worker processes (default 1, in process)
imports it once. Its warnings about the missing macOS-only libraries are silenced. The stages of
one package are in package_checks.py, the evaluator in mil_numpy/.
"""

import argparse
import json
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from package_checks import (InputError, NotEvaluated, StageFailure, features_of,  # noqa: E402
                            check_numbers, check_structure, coremltools, load_package, wpt)

STAGES = ("convert", "structural", "numeric")
OUTSIDE_STAGE = "outside"  # an expectations entry: the case lies outside the target's types
PASSED, FAILED, SKIPPED, KNOWN = "passed", "failed", "skipped", "known-failure"
OUTSIDE = "outside-target"
STRUCTURAL_MIN, NUMERIC_MIN = 0.99, 0.95  # of the cases inside the target / of converted cases

DEFAULT_EXPECTATIONS = os.path.join(HERE, "expected-failures.txt")
DEFAULT_REPORT = os.path.join("reports", "coreml-structural.json")


# ---- one case ------------------------------------------------------------------------------------


def _error(e: Exception) -> str:
    return f"{type(e).__name__}: {e}"


def _features(entries):
    return [(e["feature"], e["packageType"], e["packageShape"]) for e in entries]


def check_case(case: dict, base_dir: str) -> dict:
    """The three stages of one index case: {"id", "package", "stages": {stage: {"status",
    "message"}}, "max_error", "time_ms"}."""
    start = time.perf_counter()
    r = {"id": case["id"], "package": case.get("package"), "max_error": None,
         "stages": {s: {"status": SKIPPED, "message": ""} for s in STAGES}}
    stages = r["stages"]
    if "error" in case or not case.get("package"):
        stages["convert"] = {"status": FAILED, "message": case.get("error", "no package")}
    else:
        stages["convert"]["status"] = PASSED
        path = os.path.join(base_dir, case["package"])
        try:
            loaded = load_package(path)
            check_structure(loaded, _features(case.get("inputs", [])), _features(case["outputs"]))
            spec, weights_dir, _ = loaded
            stages["structural"]["status"] = PASSED
        except StageFailure as e:
            stages["structural"] = {"status": FAILED, "message": str(e)}
        except (InputError, KeyError, TypeError, ValueError, OSError) as e:  # a malformed entry
            stages["structural"] = {"status": FAILED, "message": f"checker: {_error(e)}"}
        if stages["structural"]["status"] == PASSED:
            try:
                r["max_error"] = check_numbers(case, base_dir, spec, weights_dir)
                stages["numeric"]["status"] = PASSED
            except NotEvaluated as e:
                stages["numeric"]["message"] = str(e)
            except StageFailure as e:
                stages["numeric"] = {"status": FAILED, "message": str(e)}
            except (InputError, KeyError, TypeError, ValueError, OSError) as e:
                stages["numeric"] = {"status": FAILED, "message": f"checker: {_error(e)}"}
    if r["max_error"] is not None and not np.isfinite(r["max_error"]):
        r["max_error"] = None
    r["time_ms"] = round((time.perf_counter() - start) * 1000.0, 3)
    return r


_BASE_DIR = ""


def _init_worker(base_dir: str) -> None:
    global _BASE_DIR
    _BASE_DIR = base_dir
    coremltools()


def _check_indexed(item):
    index, case = item
    return index, check_case(case, _BASE_DIR)


def run_cases(cases: list, base_dir: str, jobs: int) -> list:
    """check_case over every case, in `jobs` worker processes (each imports coremltools once)."""
    items = list(enumerate(cases))
    # A worker costs a coremltools import (seconds, ~100 MB): one per 16 cases at most.
    workers = min(jobs, (len(items) + 15) // 16)
    if workers <= 1:
        _init_worker(base_dir)
        results = [_check_indexed(item) for item in items]
    else:
        # Spawned, not forked: a forked worker can inherit a lock another thread of the parent
        # held (numpy's thread pool), and hang.
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers, _init_worker, (base_dir,)) as pool:
            results = list(pool.imap_unordered(_check_indexed, items, chunksize=4))
    results.sort(key=lambda x: x[0])
    return [r for _, r in results]


# ---- expectations and outcome --------------------------------------------------------------------


def load_expectations(path: str) -> dict:
    """{case id: (stage, reason)} from an expectations file: `<stage> <case id> -- <reason>` per
    line, blank lines and `#` comments ignored."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"cannot read the expectations file: {e}") from None
    listed = {}
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        stage, _, rest = s.partition(" ")
        ident, sep, reason = rest.partition(" -- ")
        ident, reason = ident.strip(), reason.strip()
        if stage not in (*STAGES, OUTSIDE_STAGE) or not sep or not ident or not reason:
            raise InputError(f"{path}:{n}: expected `<convert|structural|numeric|outside> "
                             "<case id> -- <reason>`")
        if ident in listed:
            raise InputError(f"{path}:{n}: duplicate entry for {ident}")
        listed[ident] = (stage, reason)
    return listed


def outcome(r: dict, listed) -> None:
    """Sets r["status"], r["stage"] and r["message"]: the first failing stage (known when listed
    for that stage), a listed failure that does not happen (failed: stale entry), skipped, or
    passed."""
    failing = next((s for s in STAGES if r["stages"][s]["status"] == FAILED), None)
    skipped = r["stages"]["numeric"]["status"] == SKIPPED and failing is None
    entry = listed.get(r["id"])
    r["stage"], r["message"] = failing, r["stages"][failing]["message"] if failing else ""
    if entry and entry[0] == OUTSIDE_STAGE:
        if failing == "convert":
            r["status"] = OUTSIDE
            r["message"] += f" [outside the target: {entry[1]}]"
        else:
            r["status"], r["stage"] = FAILED, "convert"
            r["message"] = (f"listed as outside the target ({entry[1]}) but it converts now; "
                            "remove the entry")
    elif failing:
        r["status"] = FAILED
        if entry and entry[0] == failing:
            r["status"] = KNOWN
            r["message"] += f" [known failure: {entry[1]}]"
        elif entry:
            r["message"] += (f" [listed as a {entry[0]} failure ({entry[1]}): it fails at "
                             f"{failing}]")
    elif skipped:
        r["status"], r["stage"] = SKIPPED, "numeric"
        r["message"] = r["stages"]["numeric"]["message"]
    elif entry:
        r["status"], r["stage"] = FAILED, entry[0]
        r["message"] = (f"stale entry: listed as a {entry[0]} failure ({entry[1]}) but passes "
                        "now; remove the entry")
    else:
        r["status"] = PASSED


def summarise(results: list) -> dict:
    n = len(results)
    converted = sum(r["stages"]["convert"]["status"] == PASSED for r in results)
    structural = sum(r["stages"]["structural"]["status"] == PASSED for r in results)
    numeric = sum(r["stages"]["numeric"]["status"] == PASSED for r in results)
    pct = lambda a, b: round(100.0 * a / b, 2) if b else 0.0  # noqa: E731
    counts = {s: sum(r["status"] == s for r in results)
              for s in (PASSED, FAILED, SKIPPED, KNOWN, OUTSIDE)}
    inside = n - counts[OUTSIDE]
    return {"cases": n, "outside_target": counts[OUTSIDE], "inside_target": inside,
            "converted": converted, "structural_passed": structural,
            "numeric_passed": numeric,
            "numeric_not_evaluated": sum(r["status"] == SKIPPED for r in results),
            "converted_percent": pct(converted, inside),
            "structural_percent": pct(structural, inside),
            "structural_percent_of_all": pct(structural, n),
            "numeric_percent_of_converted": pct(numeric, converted),
            "passed": counts[PASSED], "failed": counts[FAILED],
            "skipped": counts[SKIPPED] + counts[OUTSIDE], "known_failures": counts[KNOWN]}


def threshold_failures(s: dict) -> list:
    out = []
    if s["inside_target"] and s["structural_passed"] < STRUCTURAL_MIN * s["inside_target"]:
        out.append(f"structural pass {s['structural_percent']}% of the cases inside the target "
                   f"is below {STRUCTURAL_MIN:.0%}")
    if s["converted"] and s["numeric_passed"] < NUMERIC_MIN * s["converted"]:
        out.append(f"numeric pass {s['numeric_percent_of_converted']}% of converted cases is "
                   f"below {NUMERIC_MIN:.0%}")
    return out


# ---- output --------------------------------------------------------------------------------------


def write_report(path: str, report: dict) -> None:
    """Writes the report atomically (a temporary file renamed over `path`)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def print_results(results: list, s: dict, problems: list, verbose: bool,
                  expectations: str) -> None:
    for r in results:
        if r["status"] == FAILED or (verbose and r["status"] != PASSED):
            print(f"  {r['status']} ({r['stage']}): {r['id']}\n      {r['message']}")
    print(f"cases {s['cases']}, {s['outside_target']} outside the target's data types, "
          f"{s['inside_target']} inside: converted {s['converted']} ({s['converted_percent']}%), "
          f"structural pass {s['structural_passed']} ({s['structural_percent']}%; "
          f"{s['structural_percent_of_all']}% of all), numeric pass {s['numeric_passed']} "
          f"({s['numeric_percent_of_converted']}% of converted), not evaluated "
          f"{s['numeric_not_evaluated']}")
    print(f"known failures: {s['known_failures']} (listed in {expectations})")
    for p in problems:
        print(f"FAILED: {p}")
    print(f"coreml-structural: {s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped")


def run_index(args) -> int:
    start = time.perf_counter()
    try:
        with open(args.index, "r", encoding="utf-8") as f:
            index = json.load(f, parse_int=wpt._parse_int)
        cases = index["cases"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"cannot read the index {args.index}: {e}") from None
    listed = load_expectations(args.expectations) if args.expectations else {}
    results = run_cases(cases, os.path.dirname(os.path.abspath(args.index)), args.jobs)
    for r in results:
        outcome(r, listed)
    s = summarise(results)
    problems = threshold_failures(s)
    seen = {r["id"] for r in results}
    unmatched = sorted(i for i in listed if i not in seen)
    report = {"suite": "coreml-structural", "index": os.path.abspath(args.index),
              "corpus": index.get("corpus"), "expectations": args.expectations or None,
              "summary": s, "threshold_failures": problems,
              "unmatched_expectations": unmatched,
              "time_ms": round((time.perf_counter() - start) * 1000.0, 1), "cases": results}
    write_report(args.report, report)
    print_results(results, s, problems, args.verbose, args.expectations or "no file")
    return 1 if s["failed"] or problems else 0


def run_package(args) -> int:
    """The structural check of one package against its own description."""
    try:
        loaded = load_package(args.package)
        spec = loaded[0]
        check_structure(loaded, features_of(spec.description.input),
                        features_of(spec.description.output))
    except StageFailure as e:
        print(f"coreml-package: {args.package}: FAILED: {e}")
        return 1
    if not args.quiet:
        ops = len(spec.mlProgram.functions["main"].block_specializations["CoreML7"].operations)
        print(f"coreml-package: {args.package}: passed ({ops} MIL ops)")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("index", nargs="?", help="index.json of a --export-coreml folder")
    p.add_argument("--package", help="check one .mlpackage structurally (no index)")
    p.add_argument("--report", default=DEFAULT_REPORT, help="JSON report (%(default)s)")
    p.add_argument("--expectations", default=DEFAULT_EXPECTATIONS,
                   help="known failures (%(default)s); '' for none")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="worker processes (default 1: the whole corpus takes seconds)")
    p.add_argument("--quiet", action="store_true", help="--package: print only a failure")
    p.add_argument("--verbose", action="store_true", help="also list known failures and skips")
    args = p.parse_args(argv)
    if bool(args.index) == bool(args.package):
        p.error("give INDEX.json or --package PATH")
    try:
        return run_package(args) if args.package else run_index(args)
    except InputError as e:
        print(f"check_packages: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
