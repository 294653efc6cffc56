#!/usr/bin/env bash
# Fetches ONNX Runtime's C/C++ API (headers and libonnxruntime.so, version 1.29) from the npm
# registry into .deps/onnxruntime/{include,lib}, idempotently (nothing happens once the library
# is there). Uses `npm pack` + tar, never `npm install` (no package scripts run). See
# ../shared/docs/dependencies.md. Exits 0 without fetching when npm is missing (the ORT backend
# is optional: CMake builds without it).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.deps/onnxruntime"
package="com.github.asus4.onnxruntime@0.4.9"
[ -f "$dest/lib/libonnxruntime.so.1" ] && [ -f "$dest/include/onnxruntime_cxx_api.h" ] && exit 0

if ! command -v npm >/dev/null; then
  echo "fetch-ort: npm not found; building without the ONNX Runtime backend" >&2
  exit 0
fi

work="$(mktemp -d "$root/.deps/ort-fetch.XXXXXX" 2>/dev/null || { mkdir -p "$root/.deps"; mktemp -d "$root/.deps/ort-fetch.XXXXXX"; })"
trap 'rm -rf "$work"' EXIT
echo "fetch-ort: fetching $package from npm"
(cd "$work" && npm pack --silent "$package" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work"
pkg="$work/package/Plugins"
headers="$pkg/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers"
[ -f "$pkg/Linux/x64/libonnxruntime.so" ] || { echo "fetch-ort: library missing in $package" >&2; exit 1; }

staging="$work/out"
mkdir -p "$staging/include" "$staging/lib"
cp "$headers"/*.h "$staging/include/"
# The library must be found under its SONAME (libonnxruntime.so.1) at run time.
cp "$pkg/Linux/x64/libonnxruntime.so" "$staging/lib/libonnxruntime.so.1"
ln -s libonnxruntime.so.1 "$staging/lib/libonnxruntime.so"
rm -rf "$dest"
mv "$staging" "$dest"
echo "fetch-ort: installed ONNX Runtime into $dest"
