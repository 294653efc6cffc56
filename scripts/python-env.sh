#!/usr/bin/env bash
# Makes the project venv .venv (from the python3 on PATH; the system Python is left alone) with
# the pinned packages of python/requirements.txt, then builds and installs the cppnn package into
# it (`pip install --no-build-isolation .`, build folder build-python/, reused between runs).
# Idempotent: the requirements are installed again only when python/requirements.txt changed,
# and the package only when a source file is newer than the last install.
#   PYTHON=python3.12 scripts/python-env.sh   use another interpreter for the venv
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
python="${PYTHON:-python3}"
requirements="$root/python/requirements.txt"
# ccache shares the library's objects with the main build (the Makefile exports these too).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# The compilers a plain `cmake` picks (c++, cc): scikit-build-core would otherwise take Python's
# sysconfig one (g++), whose other name misses ccache's entries from the main build.
export CXX="${CXX:-c++}" CC="${CC:-cc}"

if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  command -v "$python" >/dev/null || { echo "python-env: $python not found" >&2; exit 1; }
  echo "python-env: creating $venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check)

req_stamp="$venv/.cppnn-requirements"
if ! cmp -s "$requirements" "$req_stamp"; then
  echo "python-env: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')"
  "${pip[@]}" install -q -r "$requirements"
  cp "$requirements" "$req_stamp"
fi

# What the package is built from; any of it newer than the stamp means a rebuild.
sources=(pyproject.toml CMakeLists.txt cmake include src python bindings)
[ -d "$root/.deps/onnxruntime/lib" ] && sources+=(.deps/onnxruntime/lib)
pkg_stamp="$venv/.cppnn-installed"
if [ -f "$pkg_stamp" ] && "$venv/bin/python" -c 'import cppnn' >/dev/null 2>&1 &&
   [ -z "$(cd "$root" && find "${sources[@]}" -newer "$pkg_stamp" -print -quit)" ]; then
  echo "python-env: cppnn is up to date in $venv"
  exit 0
fi
echo "python-env: building and installing cppnn into $venv (build folder build-python/)"
touch "$pkg_stamp.new"
(cd "$root" && "${pip[@]}" install -q --no-build-isolation .)
mv "$pkg_stamp.new" "$pkg_stamp"
