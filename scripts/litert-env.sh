#!/usr/bin/env bash
# Makes the venv .venv-litert (from the python3 on PATH) with the pinned packages of
# tests/tflite/requirements.txt: ai-edge-litert 2.3.0 (the TFLite schema generated for Python,
# schema_py_generated.py, and the independent Python interpreter, ai_edge_litert.interpreter),
# numpy and pytest. The TFLite checks of the suite (tests/tflite/run_check.sh) run in it and are
# skipped without it. Idempotent: the requirements are installed again only when the requirements
# file changed. Without a reachable package index the venv stays incomplete and the checks report
# themselves skipped. The wheel is built for CPython 3.9-3.13 on manylinux_2_27 x86_64.
#   PYTHON=python3.12 scripts/litert-env.sh   use another interpreter for the venv
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-litert"
python="${PYTHON:-python3}"
requirements="$root/tests/tflite/requirements.txt"

if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  command -v "$python" >/dev/null || { echo "litert-env: $python not found" >&2; exit 1; }
  echo "litert-env: creating $venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi

stamp="$venv/.cppnn-requirements"
if cmp -s "$requirements" "$stamp"; then
  exit 0
fi
echo "litert-env: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')"
if "$venv/bin/python" -m pip --disable-pip-version-check install -q -r "$requirements"; then
  cp "$requirements" "$stamp"
else
  echo "litert-env: could not install the requirements: the TFLite checks will be skipped" >&2
fi
