#!/usr/bin/env bash
# Makes the venv .venv-coreml (from the python3 on PATH) with the pinned packages of
# tests/coreml/requirements.txt: coremltools 9.0 (its milproto loader re-runs MIL type inference
# on the packages cppnn writes), numpy and pytest for the numpy MIL evaluator. The CoreML checks
# of the suite (tests/coreml/run_check.sh) run in it and are skipped without it. Idempotent: the
# requirements are installed again only when the requirements file changed. Without a reachable
# package index the venv stays incomplete and the checks report themselves skipped.
#   PYTHON=python3.12 scripts/coreml-env.sh   use another interpreter for the venv
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-coreml"
python="${PYTHON:-python3}"
requirements="$root/tests/coreml/requirements.txt"

if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  command -v "$python" >/dev/null || { echo "coreml-env: $python not found" >&2; exit 1; }
  echo "coreml-env: creating $venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi

stamp="$venv/.cppnn-requirements"
if cmp -s "$requirements" "$stamp"; then
  exit 0
fi
echo "coreml-env: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')"
if "$venv/bin/python" -m pip --disable-pip-version-check install -q -r "$requirements"; then
  cp "$requirements" "$stamp"
else
  echo "coreml-env: could not install the requirements: the CoreML checks will be skipped" >&2
fi
