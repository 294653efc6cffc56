#!/usr/bin/env bash
# SmolLM2-135M-Instruct (scripts/fetch-llm.sh) end to end through the CLI: `cppnn generate` on the
# GGUF file continues "The capital of France is" with "Paris" on every backend given, the chat
# form (first backend) answers the question, `cppnn convert-gguf` writes a graph + SafeTensors + llm.json of
# about the GGUF's size that `cppnn generate` runs to the same tokens, and a truncated GGUF is a
# clear error. Exit 77 (skipped) without the model.
#   smollm2_cli_test.sh CPPNN MODEL BACKEND...
tool="$1"
model="$2"
shift 2
[[ -f "$model" ]] || { echo "skipped: no model at $model (scripts/fetch-llm.sh)"; exit 77; }
source "$(dirname "$0")/../cli_lib.sh"

for backend in "$@"; do
  expect 0 "tokens/s" -- "$tool" generate "$model" --prompt "The capital of France is" \
    --max-tokens 8 --backend "$backend"
  has "Paris" out.txt
done
# The chat form (on the first backend): the template's prompt, an answer, the end-of-turn token.
expect 0 "" -- "$tool" generate "$model" --chat --prompt "What is the capital of France?" \
  --max-tokens 16 --backend "$1" --json
has "Paris" out.txt
has '"finish_reason":"stop"' out.txt

# The converted model: same greedy tokens as the GGUF file (on the first backend), and its
# weights file about the GGUF's size (quantized weights stay quantized).
expect 0 "Converted" -- "$tool" convert-gguf "$model" -o smol.webnn --context 512
has "Q4_1 -> uint4" err.txt
[[ -f smol.safetensors && -f smol.llm.json ]] || fail "convert-gguf did not write its sidecars"
gguf_bytes=$(stat -c %s "$model")
weights_bytes=$(stat -c %s smol.safetensors)
(( weights_bytes < gguf_bytes * 13 / 10 )) ||
  fail "the weights take $weights_bytes bytes, the GGUF file $gguf_bytes"
args=(--prompt "The capital of France is" --max-tokens 12 --ignore-eos --json --backend "$1")
"$tool" generate "$model" --context 512 "${args[@]}" > gguf.json 2>/dev/null ||
  fail "generate on the GGUF file failed"
"$tool" generate smol.webnn "${args[@]}" > webnn.json 2>/dev/null ||
  fail "generate on the converted model failed"
tokens() { grep -o '"tokens":\[[0-9,]*\]' "$1"; }
[[ -n "$(tokens gguf.json)" && "$(tokens gguf.json)" == "$(tokens webnn.json)" ]] ||
  fail "the converted model generated $(tokens webnn.json), the GGUF file $(tokens gguf.json)"
expect 0 "" -- "$tool" info smol.webnn
has "dequantizeLinear" out.txt
# The step graphs' profiles: the quantized gemms on the cpu backend's own kernel.
if [[ "$1" == cpu ]]; then
  expect 0 "profile (decode, cpu): 3 dispatches" -- "$tool" generate smol.webnn \
    --prompt "The capital of France is" --max-tokens 4 --ignore-eos --profile --trace trace.json \
    --backend cpu
  has "profile (prefill, cpu): 1 dispatches" err.txt
  has "fast      gemm" err.txt
  [[ -s trace.json ]] || fail "generate --trace wrote no trace"
fi

# A truncated file: a clear error naming it, no crash.
head -c 100000 "$model" > cut.gguf
expect 1 "cut.gguf" -- "$tool" generate cut.gguf --prompt hi --backend "$1"

[[ $fails -eq 0 ]] && echo "smollm2 cli: ok" || exit 1
