#!/usr/bin/env bash
# Makes the venv .venv-llm (from the python3 on PATH) with the pinned packages of
# tests/llm/requirements.txt: gguf (llama.cpp's GGUF writer and dequantizer, which writes the
# tests' synthetic models and checks cppnn's reader), tokenizers (Hugging Face's, the tokenizer
# oracle), jinja2 (the chat-template oracle), numpy and pytest. The language-model checks of the
# suite run in it and are skipped without it. Idempotent: the requirements are installed again
# only when the requirements file changed. Without a reachable package index the venv stays
# incomplete and the checks report themselves skipped.
#   PYTHON=python3.12 scripts/llm-env.sh   use another interpreter for the venv
#   scripts/llm-env.sh --oracle            also llama.cpp itself (llama-cpp-python 0.3.36, built
#                                          from source: several minutes on 2 cores), for
#                                          `make llm-oracle`
set -euo pipefail
oracle=0
[ "${1:-}" = "--oracle" ] && oracle=1

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-llm"
python="${PYTHON:-python3}"
requirements="$root/tests/llm/requirements.txt"

if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  command -v "$python" >/dev/null || { echo "llm-env: $python not found" >&2; exit 1; }
  echo "llm-env: creating $venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi

stamp="$venv/.cppnn-requirements"
if ! cmp -s "$requirements" "$stamp"; then
  echo "llm-env: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')"
  if "$venv/bin/python" -m pip --disable-pip-version-check install -q -r "$requirements"; then
    cp "$requirements" "$stamp"
  else
    echo "llm-env: could not install the requirements: the language-model checks will be skipped" >&2
  fi
fi

# llama.cpp, built for any x86-64 with AVX2 (not for this machine's every feature: a -march=native
# build with AMX crashed here, and CI machines differ).
if [ "$oracle" = 1 ] && ! "$venv/bin/python" -c 'import llama_cpp' >/dev/null 2>&1; then
  echo "llm-env: building llama-cpp-python 0.3.36 (llama.cpp from source; several minutes)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \
    "$venv/bin/python" -m pip --disable-pip-version-check install -q --no-cache-dir \
    "llama-cpp-python==0.3.36" ||
    echo "llm-env: could not build llama-cpp-python: the llama.cpp checks will be skipped" >&2
fi
