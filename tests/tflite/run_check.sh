#!/usr/bin/env bash
# The TFLite export checks of the suite (tests/CMakeLists.txt), in the venv .venv-litert that
# scripts/litert-env.sh makes (ai-edge-litert 2.3.0; `make test` runs it first):
#   run_check.sh schema                our schema subset's field ids, types, defaults, enum and
#                                      union values against the wheel's generated Python schema
#   run_check.sh unit                  the checkers' own tests (pytest, tests/tflite/test_*.py)
#   run_check.sh interpreter TOOL WORK REPORT
#       every WPT conformance case that builds and runs on the litert backend exported with its
#       inputs and the C API's outputs (TOOL wpt --backend litert --export-tflite WORK/wpt), then
#       every model run in the wheel's Python interpreter and compared with the C API's outputs
#       under the case's WPT tolerance (tests/tflite/check_interpreter.py, report REPORT).
# Exit 77 (skipped) when the venv, the corpus or (interpreter) the litert backend is missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
py="$root/.venv-litert/bin/python"
if ! "$py" -c 'import ai_edge_litert.interpreter' >/dev/null 2>&1; then
  echo "tflite-$1: skipped: no ai_edge_litert in $root/.venv-litert (run scripts/litert-env.sh)"
  exit 77
fi
cd "$root"

case "$1" in
  schema)
    exec "$py" tests/tflite/check_schema_slots.py ;;
  unit)
    exec "$py" -m pytest -q -p no:cacheprovider tests/tflite ;;
  interpreter)
    tool="$2" work="$3" report="$4"
    if ! "$tool" ops --backend litert >/dev/null 2>&1; then
      echo "tflite-interpreter: skipped: $tool has no litert backend (scripts/fetch-litert.sh)"
      exit 77
    fi
    rm -rf "$work"
    mkdir -p "$work"
    # The conformance results themselves are wpt_conformance_litert's concern: only the export
    # matters here (its index records every case, exported or not).
    rc=0
    "$tool" wpt --suite conformance --backend litert --export-tflite "$work/wpt" \
      >"$work/wpt.log" 2>&1 || rc=$?
    if [ "$rc" = 77 ]; then tail -1 "$work/wpt.log"; exit 77; fi
    if [ ! -f "$work/wpt/index.json" ]; then
      echo "tflite-interpreter: $tool wpt exited with status $rc and wrote no index; its log" \
        "($work/wpt.log) ends with:"
      grep -v -e '^INFO: ' -e '^WARNING: ' "$work/wpt.log" | tail -40
      exit 1
    fi
    status=0
    "$py" tests/tflite/check_interpreter.py "$work/wpt/index.json" --report "$report" ||
      status=$?
    [ "$status" = 0 ] && rm -rf "$work"
    exit "$status" ;;
  *)
    echo "usage: run_check.sh schema|unit|interpreter TOOL WORK REPORT" >&2
    exit 2 ;;
esac
