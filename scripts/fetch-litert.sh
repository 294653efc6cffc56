#!/usr/bin/env bash
# Fetches LiteRT's runtime (libLiteRt.so, the LiteRT C API, from PyPI's ai-edge-litert 2.3.0
# manylinux wheel) into .deps/litert/lib, idempotently (nothing happens once the library is
# there). `pip download --no-deps` of the wheel, then the library is taken out of the zip; no
# package code runs. See ../shared/docs/dependencies.md. Exits 0 without fetching when pip cannot
# run (the litert backend is optional: CMake builds without it).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.deps/litert"
version="2.3.0"
[ -f "$dest/lib/libLiteRt.so" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ] && exit 0

if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "fetch-litert: python3 -m pip not found; building without the LiteRT backend" >&2
  exit 0
fi
mkdir -p "$root/.deps"
work="$(mktemp -d "$root/.deps/litert-fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "fetch-litert: fetching ai-edge-litert==$version from PyPI"
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_27_x86_64 "ai-edge-litert==$version" -d "$work"
wheel="$(ls "$work"/ai_edge_litert-"$version"-*.whl)"
python3 - "$wheel" "$work/out" <<'PY'
import sys, zipfile, os
wheel, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "lib"))
with zipfile.ZipFile(wheel) as z:
    data = z.read("ai_edge_litert/libLiteRt.so")
with open(os.path.join(out, "lib", "libLiteRt.so"), "wb") as f:
    f.write(data)
PY
echo "$version" > "$work/out/VERSION"
rm -rf "$dest"
mv "$work/out" "$dest"
echo "fetch-litert: installed libLiteRt.so into $dest"
