#!/usr/bin/env bash
# Writes the SmolLM2-135M step graphs the backends benchmark runs (bench/bench_models.h,
# llm_models()): .deps/models/llm/smollm2-<weights>-c<context>-s<tokens>.webnn (+ .safetensors,
# .llm.json: what `cppnn convert-gguf` writes, run by cppnn's backends) and the same graph as
# .onnx (+ .onnx.data, run by raw ONNX Runtime), for weights
# float32, float16 (matrices) and q4 (the GGUF file's own Q4_1 blocks, kept 4-bit) and the three
# steps measured: a decode step (1 token) against a 128- and a 512-position cache, and a 64-token
# prefill step against a 512-position cache. Made from .deps/llm/SmolLM2-135M-Instruct.Q4_1.gguf
# (scripts/fetch-llm.sh) with `cppnn convert-gguf --weights ...` and `cppnn convert --to onnx`;
# idempotent (a file already there is kept). Usage: make-llm-bench-models.sh PATH/TO/cppnn.
# Exits 0 without writing when the GGUF file is missing (the benchmark then skips these models).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cppnn="${1:?usage: make-llm-bench-models.sh PATH/TO/cppnn}"
gguf="$root/.deps/llm/SmolLM2-135M-Instruct.Q4_1.gguf"
dest="$root/.deps/models/llm"
if [ ! -f "$gguf" ]; then
  echo "make-llm-bench-models: $gguf missing (scripts/fetch-llm.sh); skipping" >&2
  exit 0
fi
mkdir -p "$dest"

for weights in float32 float16 q4; do
  form="$weights"
  [ "$weights" = q4 ] && form=keep
  for step in "128 1" "512 1" "512 64"; do
    read -r context tokens <<<"$step"
    stem="$dest/smollm2-$weights-c$context-s$tokens"
    out="$stem.onnx"
    [ -f "$out" ] && [ -f "$out.data" ] && [ -f "$stem.webnn" ] && continue
    "$cppnn" convert-gguf "$gguf" -o "$stem.webnn" --weights "$form" \
      --context "$context" --chunk "$tokens" 2>/dev/null
    "$cppnn" convert "$stem.webnn" --to onnx -o "$out"
    echo "make-llm-bench-models: wrote $out"
  done
done
