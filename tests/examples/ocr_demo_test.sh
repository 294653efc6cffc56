#!/usr/bin/env bash
# The OCR example end to end: the PaddleOCR v4 models (.deps/models, scripts/fetch-models.sh)
# converted with `cppnn convert-onnx` into WORK, `cppnn-ocr --demo` on the default backend must
# read every rendered line exactly, the rendered PNG read back as an image file gives the same
# lines, and bad command lines fail with `Error: ...` and exit 1.
# usage: ocr_demo_test.sh CPPNN CPPNN_OCR MODELS_DIR WORK_DIR   (exit 77 without the models)
set -u
tool="${1:?usage: ocr_demo_test.sh CPPNN CPPNN_OCR MODELS_DIR WORK_DIR}"
ocr="${2:?}" models="${3:?}" work="${4:?}"
for f in ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt; do
  if [[ ! -f "$models/$f" ]]; then
    echo "ocr_demo: skipped: no $models/$f (scripts/fetch-models.sh)"
    exit 77
  fi
done
mkdir -p "$work"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

"$tool" convert-onnx "$models/ch_PP-OCRv4_det_infer.onnx" -o "$work/det.webnn" \
  --override-dim p2o.DynamicDimension.0=1 --override-dim p2o.DynamicDimension.1=640 \
  --override-dim p2o.DynamicDimension.2=640 >/dev/null 2>"$work/convert.txt" ||
  { echo "FAIL: det conversion: $(cat "$work/convert.txt")"; exit 1; }
"$tool" convert-onnx "$models/ch_PP-OCRv4_rec_infer.onnx" -o "$work/rec.webnn" \
  --override-dim p2o.DynamicDimension.0=1 --override-dim p2o.DynamicDimension.1=640 \
  >/dev/null 2>"$work/convert.txt" ||
  { echo "FAIL: rec conversion: $(cat "$work/convert.txt")"; exit 1; }
args=(--det "$work/det.webnn" --rec "$work/rec.webnn" --keys "$models/ppocr_keys_v1.txt")

"$ocr" --demo --out "$work/demo.png" "${args[@]}" >"$work/demo.txt" 2>"$work/err.txt"
rc=$?
cat "$work/demo.txt" "$work/err.txt"
[[ $rc -eq 0 ]] || fail "cppnn-ocr --demo exited $rc"
grep -qE '^ocr: ([0-9]+)/\1 lines exact$' "$work/demo.txt" || fail "not every demo line exact"
n="$(sed -nE 's/^ocr: [0-9]+\/([0-9]+) lines exact$/\1/p' "$work/demo.txt")"
[[ "${n:-0}" -gt 0 ]] || fail "no demo lines"

# The rendered image as an ordinary input file: the same lines, in the same order.
"$ocr" "${args[@]}" "$work/demo.png" >"$work/file.txt" 2>"$work/err.txt" ||
  fail "cppnn-ocr demo.png failed: $(cat "$work/err.txt")"
diff <(grep '^\[' "$work/demo.txt") <(grep '^\[' "$work/file.txt") >/dev/null ||
  fail "demo.png read back differs: $(cat "$work/file.txt")"

# Errors: exit 1 and `Error: ...` on stderr.
expect_error() {
  local pattern="$1"
  shift
  "$ocr" "$@" >/dev/null 2>"$work/err.txt"
  local rc=$?
  [[ $rc -eq 1 ]] || fail "cppnn-ocr $* exited $rc, expected 1"
  grep -q "^Error: .*$pattern" "$work/err.txt" || fail "cppnn-ocr $*: no \"$pattern\" in: $(cat "$work/err.txt")"
}
expect_error "no IMAGE" "${args[@]}"
expect_error "unknown option" --bogus
expect_error "cannot read image" "${args[@]}" "$work/missing.png"
expect_error "cannot read image" "${args[@]}" "$work/det.webnn"
expect_error "missing.webnn" --det "$work/missing.webnn" --rec "$work/rec.webnn" \
  --keys "$models/ppocr_keys_v1.txt" --demo
expect_error "cannot read keys" --keys "$work/missing.txt" --demo
"$ocr" --help | grep -q "^usage: cppnn-ocr" || fail "--help prints no usage"

[[ $fails -eq 0 ]] || { echo "ocr_demo: $fails failure(s)"; exit 1; }
echo "ocr_demo: passed"
