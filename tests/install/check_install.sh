#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds and runs a consumer project twice:
# through find_package(cppnn) and through pkg-config.
set -euo pipefail
build_dir=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
cmake -S "$here/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer"
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
  # shellcheck disable=SC2046
  c++ "$here/consumer/main.cpp" -o "$tmp/consumer_pc" $(pkg-config --cflags --libs cppnn)
  # The pkg-config flags carry an rpath: the program starts without LD_LIBRARY_PATH.
  env -u LD_LIBRARY_PATH "$tmp/consumer_pc"
fi
# The README's quick tour compiles and runs as written.
if command -v pkg-config >/dev/null; then
  awk '/^## A quick tour/ {tour = 1} tour && /^```cpp/ {code = 1; next} code && /^```/ {exit}
       code' "$here/../../README.md" >"$tmp/tour.cpp"
  grep -q "int main" "$tmp/tour.cpp"
  # shellcheck disable=SC2046
  c++ "$tmp/tour.cpp" -o "$tmp/tour" $(pkg-config --cflags --libs cppnn)
  env -u LD_LIBRARY_PATH "$tmp/tour"
fi
echo "install: find_package(cppnn) and pkg-config consumers and the README tour built and ran"
