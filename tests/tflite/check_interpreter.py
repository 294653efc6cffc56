#!/usr/bin/env python3
"""Runs the TFLite models of a WPT export (`cppnn wpt --suite conformance --backend litert
--export-tflite DIR`, whose DIR/index.json tools/cppnn/wpt_tflite.cpp writes) in the independent
Python interpreter of the same wheel (ai_edge_litert.interpreter.Interpreter, ai-edge-litert
2.3.0) and compares its outputs with the ones the backend (the LiteRT C API) produced.

  check_interpreter.py INDEX.json [--resolvers xnnpack,builtin] [--report FILE]
                       [--expectations FILE] [-j N] [--verbose]

Per exported case and op resolver (xnnpack: the interpreter's default, XNNPACK delegated;
builtin: BUILTIN_WITHOUT_DEFAULT_DELEGATES, TFLite's own kernels; reference: BUILTIN_REF), three
stages, each only when the one before passed (interpreter_checks.py):
  load     the model loads, its tensors allocate, and its SignatureDef "serving_default" has the
           index's inputs and outputs (names, element types, shapes);
  run      the signature runs on the case's .npy inputs;
  compare  every output equals the backend's under the case's WPT tolerance and metric (the C++
           WPT runner's rules, tools/cppnn/wpt_compare.cpp as tests/python/wpt_runner.py ports
           them; bit for bit for the storage cases).
A case the export has no model for (it did not build or run on the backend: the WPT run's
concern) is skipped. Each resolver's outputs are also compared with WPT's expected values, for
the report only.

Known failures are listed in tests/tflite/expected-failures.txt (see its header). The run fails
(exit 1) on a failure not listed there, on a listed failure that no longer fails at its stage, or
when no case passed. The JSON report (default reports/tflite-interpreter.json) has the totals and
every case's stages. The last line reads `tflite-interpreter: N passed, N failed, N skipped`.
Exit status: 0 success, 1 failure, 2 usage or input error.

The cases run in -j worker processes (default 1), spawned, in chunks; a chunk whose worker dies
(a native crash in the interpreter) is run again one case per process, so that the crashing case
fails at the stage it had reached and the others are checked.
"""

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures.process import BrokenProcessPool

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from interpreter_checks import (RESOLVER_NAMES, InputError, check_case,  # noqa: E402
                                wpt)

STAGES = ("load", "run", "compare")
PASSED, FAILED, SKIPPED, KNOWN = "passed", "failed", "skipped", "known-failure"
DEFAULT_RESOLVERS = "xnnpack,builtin"
DEFAULT_EXPECTATIONS = os.path.join(HERE, "expected-failures.txt")
DEFAULT_REPORT = os.path.join("reports", "tflite-interpreter.json")
CHUNK = 8  # cases per task of a worker process


# ---- running the cases ---------------------------------------------------------------------------


def _check_chunk(chunk, base_dir, resolvers):
    """check_case over (index, case) items, in a worker; InputError comes back as a value."""
    out = []
    for index, case in chunk:
        try:
            out.append((index, check_case(case, base_dir, resolvers)))
        except InputError as e:
            out.append((index, e))
    return out


def _isolated_main(conn, case, base_dir, resolvers):
    """A single case in its own process: reports each stage it starts, then the result."""
    def progress(resolver, stage):
        conn.send(("stage", resolver, stage))
    try:
        conn.send(("result", check_case(case, base_dir, resolvers, progress)))
    except InputError as e:
        conn.send(("result", e))
    conn.close()


def crashed_result(case, resolvers, resolver, stage, exitcode):
    """The result of a case whose process died in `stage` of `resolver`."""
    r = {"id": case["id"], "model": case.get("model"), "exported": True, "error": "",
         "wpt": case.get("wpt"), "resolvers": {}}
    for name in resolvers:
        stages = {s: {"status": SKIPPED, "message": ""} for s in STAGES}
        r["resolvers"][name] = {"stages": stages, "max_error": None, "expected": None}
        if name == resolver:
            how = f"signal {-exitcode}" if exitcode and exitcode < 0 else f"exit code {exitcode}"
            for s in STAGES[:STAGES.index(stage)]:
                stages[s]["status"] = PASSED
            stages[stage] = {"status": FAILED,
                             "message": f"the interpreter process died ({how})"}
            break
        for s in STAGES:
            stages[s]["status"] = PASSED
    return r


def run_isolated(context, case, base_dir, resolvers):
    """One case in a process of its own; a crash gives crashed_result at the last stage begun."""
    parent, child = context.Pipe(duplex=False)
    p = context.Process(target=_isolated_main, args=(child, case, base_dir, resolvers))
    p.start()
    child.close()
    last, result = (resolvers[0], "load"), None
    while True:
        try:
            message = parent.recv()
        except EOFError:
            break
        if message[0] == "stage":
            last = message[1:]
        else:
            result = message[1]
    p.join()
    if result is None:
        return crashed_result(case, resolvers, last[0], last[1], p.exitcode)
    return result


def run_cases(cases, base_dir, resolvers, jobs):
    """check_case of every case, in `jobs` spawned worker processes (results in index order)."""
    # Spawned, not forked: a forked worker can inherit a lock another thread of the parent held.
    context = multiprocessing.get_context("spawn")
    items = list(enumerate(cases))
    chunks = [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]
    results, broken = {}, []
    with concurrent.futures.ProcessPoolExecutor(max(1, jobs), mp_context=context) as pool:
        futures = {pool.submit(_check_chunk, c, base_dir, resolvers): c for c in chunks}
        for f in concurrent.futures.as_completed(futures):
            try:
                results.update(f.result())
            except BrokenProcessPool:
                broken.append(futures[f])
    for chunk in broken:  # a worker died: find the case, one process per case
        for index, case in chunk:
            results[index] = run_isolated(context, case, base_dir, resolvers)
    ordered = []
    for index in range(len(cases)):
        if isinstance(results[index], InputError):
            raise results[index]
        ordered.append(results[index])
    return ordered


# ---- expectations and outcome --------------------------------------------------------------------


def load_expectations(path: str) -> dict:
    """{case id: (resolver, stage, reason)} from an expectations file: `<resolver>:<stage>
    <case id> -- <reason>` per line, blank lines and `#` comments ignored."""
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
        where, _, rest = s.partition(" ")
        resolver, _, stage = where.partition(":")
        ident, sep, reason = rest.partition(" -- ")
        ident, reason = ident.strip(), reason.strip()
        if resolver not in RESOLVER_NAMES or stage not in STAGES or not sep or not ident or \
                not reason:
            raise InputError(f"{path}:{n}: expected `<{'|'.join(RESOLVER_NAMES)}>:"
                             f"<{'|'.join(STAGES)}> <case id> -- <reason>`")
        if ident in listed:
            raise InputError(f"{path}:{n}: duplicate entry for {ident}")
        listed[ident] = (resolver, stage, reason)
    return listed


def first_failure(r: dict):
    """(resolver, stage, message) of the first failing stage in resolver order, or None."""
    for resolver, rr in r["resolvers"].items():
        for stage in STAGES:
            if rr["stages"][stage]["status"] == FAILED:
                return resolver, stage, rr["stages"][stage]["message"]
    return None


def outcome(r: dict, listed: dict, resolvers) -> None:
    """Sets r["status"], r["resolver"], r["stage"] and r["message"]: skipped (no model), the
    first failure (known when listed for that resolver and stage), a listed failure that does not
    happen (failed: stale entry), or passed. Entries for a resolver not run are ignored."""
    entry = listed.get(r["id"])
    if entry and entry[0] not in resolvers:
        entry = None
    r["resolver"] = r["stage"] = None
    if not r["exported"]:
        r["status"], r["message"] = SKIPPED, f"not exported: {r['error']}"
        if entry:
            r["message"] += f" [listed as {entry[0]}:{entry[1]} ({entry[2]}), not checked]"
        return
    failure = first_failure(r)
    if failure:
        r["resolver"], r["stage"], r["message"] = failure
        r["status"] = FAILED
        if entry and entry[:2] == failure[:2]:
            r["status"] = KNOWN
            r["message"] += f" [known failure: {entry[2]}]"
        elif entry:
            r["message"] += (f" [listed as a {entry[0]}:{entry[1]} failure ({entry[2]}): it "
                             f"fails at {failure[0]}:{failure[1]}]")
    elif entry:
        r["status"], r["resolver"], r["stage"] = FAILED, entry[0], entry[1]
        r["message"] = (f"stale entry: listed as a {entry[0]}:{entry[1]} failure ({entry[2]}) "
                        "but passes now; remove the entry")
    else:
        r["status"], r["message"] = PASSED, ""


def summarise(results: list, resolvers) -> dict:
    exported = [r for r in results if r["exported"]]
    counts = {s: sum(r["status"] == s for r in results) for s in (PASSED, FAILED, SKIPPED, KNOWN)}
    per_resolver = {}
    for name in resolvers:
        rs = [r["resolvers"][name] for r in exported if name in r["resolvers"]]
        per_resolver[name] = {
            s: sum(x["stages"][s]["status"] == PASSED for x in rs) for s in STAGES}
        per_resolver[name]["matches_wpt_expected"] = sum(x["expected"] == "" for x in rs)
    return {"cases": len(results), "exported": len(exported),
            "not_exported": len(results) - len(exported), "resolvers": per_resolver,
            "passed": counts[PASSED], "failed": counts[FAILED], "skipped": counts[SKIPPED],
            "known_failures": counts[KNOWN]}


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


def print_results(results: list, s: dict, expectations: str, verbose: bool) -> None:
    for r in results:
        if r["status"] == FAILED or (verbose and r["status"] != PASSED):
            where = f"{r['resolver']}:{r['stage']}" if r["stage"] else "export"
            print(f"  {r['status']} ({where}): {r['id']}\n      {r['message']}")
    print(f"cases {s['cases']}: exported {s['exported']}, not exported {s['not_exported']} "
          "(did not build or run on the backend)")
    for name, k in s["resolvers"].items():
        print(f"  {name}: loaded {k['load']}, ran {k['run']}, same outputs as the backend "
              f"{k['compare']}; WPT's expected values met {k['matches_wpt_expected']}")
    print(f"known failures: {s['known_failures']} (listed in {expectations})")
    print(f"tflite-interpreter: {s['passed']} passed, {s['failed']} failed, {s['skipped']} "
          "skipped")


def run_index(args) -> int:
    start = time.perf_counter()
    resolvers = [x for x in args.resolvers.split(",") if x]
    unknown = [x for x in resolvers if x not in RESOLVER_NAMES]
    if not resolvers or unknown:
        raise InputError(f"--resolvers: unknown {unknown or 'empty list'} (of "
                         f"{', '.join(RESOLVER_NAMES)})")
    try:
        with open(args.index, "r", encoding="utf-8") as f:
            index = json.load(f, parse_int=wpt._parse_int)
        cases = index["cases"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"cannot read the index {args.index}: {e}") from None
    listed = load_expectations(args.expectations) if args.expectations else {}
    results = run_cases(cases, os.path.dirname(os.path.abspath(args.index)), resolvers,
                        args.jobs)
    for r in results:
        outcome(r, listed, resolvers)
    s = summarise(results, resolvers)
    seen = {r["id"] for r in results}
    report = {"suite": "tflite-interpreter", "index": os.path.abspath(args.index),
              "corpus": index.get("corpus"), "backend": index.get("backend"),
              "resolvers": resolvers, "expectations": args.expectations or None, "summary": s,
              "unmatched_expectations": sorted(i for i in listed if i not in seen),
              "time_ms": round((time.perf_counter() - start) * 1000.0, 1), "cases": results}
    write_report(args.report, report)
    print_results(results, s, args.expectations or "no file", args.verbose)
    return 1 if s["failed"] or not s["passed"] else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("index", help="index.json of a --export-tflite folder")
    p.add_argument("--resolvers", default=DEFAULT_RESOLVERS,
                   help=f"op resolvers to run, comma-separated, of {', '.join(RESOLVER_NAMES)} "
                   "(default %(default)s)")
    p.add_argument("--report", default=DEFAULT_REPORT, help="JSON report (%(default)s)")
    p.add_argument("--expectations", default=DEFAULT_EXPECTATIONS,
                   help="known failures (%(default)s); '' for none")
    p.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--verbose", action="store_true", help="also list known failures and skips")
    args = p.parse_args(argv)
    try:
        return run_index(args)
    except InputError as e:
        print(f"check_interpreter: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
