#!/usr/bin/env bash
# The CoreML export checks of the suite (tests/CMakeLists.txt), in the venv .venv-coreml that
# scripts/coreml-env.sh makes (coremltools 9.0; `make test` runs it first):
#   run_check.sh proto                 our proto subset against coremltools' descriptors
#   run_check.sh evaluator             the numpy MIL evaluator's own tests (pytest)
#   run_check.sh structural TOOL REPORT
#       every WPT conformance case converted (TOOL wpt --export-coreml), loaded by coremltools'
#       milproto loader (every op rebuilt, type inference re-run), its types compared with the
#       WebNN graph's and its outputs evaluated in numpy against WPT's expected values
#       (tests/coreml/check_packages.py, report REPORT), after the PaddleOCR v4 detector and
#       recognizer (.deps/models, scripts/fetch-models.sh) converted and loaded the same way.
# Exit 77 (skipped) when the venv, the corpus or (for the models only) the models are missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
py="$root/.venv-coreml/bin/python"
if ! "$py" -c 'import coremltools' >/dev/null 2>&1; then
  echo "coreml-$1: skipped: no coremltools in $root/.venv-coreml (run scripts/coreml-env.sh)"
  exit 77
fi
cd "$root"

case "$1" in
  proto)
    exec "$py" tests/coreml/check_proto_subset.py ;;
  evaluator)
    exec "$py" -m pytest -q -p no:cacheprovider tests/coreml/test_mil_numpy.py \
      tests/coreml/test_check_packages.py ;;
  structural)
    tool="$2" report="$3"
    work="$(mktemp -d "${TMPDIR:-/tmp}/cppnn-coreml.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    # The conformance results themselves are wpt_conformance_reference's concern: only the export
    # matters here (its index records every case, converted or not).
    rc=0
    "$tool" wpt --suite conformance --backend reference --export-coreml "$work/wpt" \
      >"$work/wpt.log" 2>&1 || rc=$?
    if [ "$rc" = 77 ]; then tail -1 "$work/wpt.log"; exit 77; fi
    [ -f "$work/wpt/index.json" ] || { cat "$work/wpt.log"; exit 1; }
    # The PaddleOCR v4 models first, so that the corpus check's line closes the output.
    status=0
    models="$root/.deps/models"
    if [ -f "$models/ch_PP-OCRv4_det_infer.onnx" ] && [ -f "$models/ch_PP-OCRv4_rec_infer.onnx" ]; then
      "$tool" convert-onnx "$models/ch_PP-OCRv4_det_infer.onnx" -o "$work/det.webnn" \
        --override-dim p2o.DynamicDimension.0=1 --override-dim p2o.DynamicDimension.1=640 \
        --override-dim p2o.DynamicDimension.2=640 >/dev/null 2>"$work/det.log" ||
        { cat "$work/det.log"; status=1; }
      "$tool" convert-onnx "$models/ch_PP-OCRv4_rec_infer.onnx" -o "$work/rec.webnn" \
        --override-dim p2o.DynamicDimension.0=1 --override-dim p2o.DynamicDimension.1=320 \
        >/dev/null 2>"$work/rec.log" || { cat "$work/rec.log"; status=1; }
      for m in det rec; do
        [ -f "$work/$m.webnn" ] || continue
        "$tool" convert "$work/$m.webnn" --to coreml -o "$work/$m.mlpackage" || { status=1; continue; }
        "$py" tests/coreml/check_packages.py --package "$work/$m.mlpackage" || status=1
      done
    else
      echo "coreml-structural: PaddleOCR models not fetched: the model packages were not checked"
    fi
    "$py" tests/coreml/check_packages.py "$work/wpt/index.json" --report "$report" || status=1
    exit "$status" ;;
  *)
    echo "usage: run_check.sh proto|evaluator|structural TOOL REPORT" >&2
    exit 2 ;;
esac
