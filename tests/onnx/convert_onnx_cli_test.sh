#!/usr/bin/env bash
# `cppnn convert-onnx MODEL.onnx [-o OUT]` end to end on models of ONNX's backend test data
# (libonnx-testdata): the written graph validates and loads back with its weights (SafeTensors
# sidecar, headerless blob + manifest, inline), the override-dim errors of
# webnn-graph-format.md §8/§10 (row 41), a missing and a garbage model (exit 1, nothing written).
# usage: convert_onnx_cli_test.sh path/to/cppnn   (exit 77 when the test data is not installed)
set -u
tool="$(realpath "${1:?usage: convert_onnx_cli_test.sh path/to/cppnn}")"
data="${CPPNN_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}"
conv="$data/pytorch-operator/test_operator_conv/model.onnx"      # a Conv with an initializer
strided="$data/node/test_conv_with_strides_padding/model.onnx"   # weights as a graph input
if [[ ! -f "$conv" || ! -f "$strided" ]]; then
  echo "convert_onnx_cli: skipped: no ONNX backend test data at $data"
  exit 77
fi
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"
# Nothing but the listed files in the folder.
only() {
  local want have
  want="$(printf '%s\n' "$@" err.txt out.txt | sort | tr '\n' ' ')"
  have="$(ls -A | sort | tr '\n' ' ')"
  [[ "$have" == "$want" ]] || fail "files: $have; expected: $want"
}

expect 0 "" -- "$tool" convert-onnx --help
grep -q "^usage: cppnn convert-onnx" out.txt || fail "convert-onnx --help prints no usage"
expect 2 "no ONNX model given" -- "$tool" convert-onnx
expect 2 "unknown option --bogus" -- "$tool" convert-onnx "$conv" --bogus

# Default: <stem>.webnn in the current directory plus <stem>.safetensors.
expect 0 "✓ Converted ONNX model to: model.webnn" -- "$tool" convert-onnx "$strided"
grep -qF "✓ Extracted weights to: model.safetensors" err.txt || fail "no weights line: $(cat err.txt)"
grep -q '^webnn_graph "test_conv_with_strides_padding"' model.webnn || fail "model.webnn header"
grep -q 'conv2d(x, W' model.webnn || fail "model.webnn has no conv2d: $(cat model.webnn)"
grep -q '^webnn_graph ".*" v2 {' model.webnn || fail "convert-onnx writes version 2 graphs (§8)"
expect 0 "OK" -- "$tool" validate --strict model.webnn
rm -f model.webnn model.safetensors

# Every constant external (-o, --max-inline-bytes 0): SafeTensors, loads back with its weights.
expect 0 "" -- "$tool" convert-onnx "$conv" -o conv.webnn --max-inline-bytes 0
grep -q '@weights("' conv.webnn || fail "conv.webnn has no @weights constant: $(cat conv.webnn)"
[[ -s conv.safetensors ]] || fail "no conv.safetensors"
expect 0 "OK" -- "$tool" validate --strict conv.webnn
expect 0 "" -- "$tool" convert conv.webnn --to onnx -o back.onnx --external-threshold 0
[[ -s back.onnx ]] || fail "conv.webnn + conv.safetensors did not load back"
[[ $(stat -c %s back.onnx) -gt $(stat -c %s conv.safetensors) ]] ||
  fail "back.onnx does not hold the weights"

# The headerless blob + manifest (GraphJson output), offsets from 0 and layout null.
expect 0 "✓ Generated manifest: g.manifest.json" -- "$tool" convert-onnx --input "$conv" \
  --output g.json --weights-format manifest --max-inline-bytes 0
[[ -s g.weights ]] || fail "no g.weights"
grep -q '"byteOffset": 0' g.manifest.json || fail "the manifest does not start at 0"
grep -q '"layout": null' g.manifest.json || fail "the manifest layout is not null"
[[ "$(head -c 4 g.weights)" != "WGWT" ]] || fail "g.weights has a WGWT header"
expect 0 "OK" -- "$tool" validate g.json --weights-manifest g.manifest.json
expect 0 "" -- "$tool" convert g.json --to onnx -o back2.onnx --external-threshold 0
# --weights W --manifest M name the files.
expect 0 "✓ Extracted weights to: w.bin" -- "$tool" convert-onnx "$conv" -o m.webnn \
  --weights w.bin --manifest w.manifest.json --max-inline-bytes 0
[[ -s w.bin && -s w.manifest.json ]] || fail "--weights/--manifest not written"

# --inline-weights: no sidecar at all.
expect 0 "" -- "$tool" convert-onnx "$conv" -o inl.webnn --inline-weights
[[ ! -e inl.safetensors && ! -e inl.weights ]] || fail "--inline-weights wrote a sidecar"
grep -q '@weights' inl.webnn && fail "--inline-weights left a @weights reference"
expect 0 "OK" -- "$tool" validate --strict inl.webnn
rm -f ./*.webnn ./*.json ./*.safetensors ./*.weights ./*.onnx w.bin

# Dimension overrides: the format document's errors (row 41), before anything is written.
expect 2 "Invalid override-dim format: 'a=b=c'. Expected NAME=VALUE" -- \
  "$tool" convert-onnx "$conv" -o x.webnn --override-dim a=b=c
expect 2 "Invalid dimension value: 'x'" -- "$tool" convert-onnx "$conv" -o x.webnn --dim batch=x
echo '{"batch": "two"}' >dims.json
expect 1 "override value for 'batch' must be an integer, got \"two\"" -- \
  "$tool" convert-onnx "$conv" -o x.webnn --override-dims-file dims.json
echo '[1]' >dims.json
expect 1 "override-dims-file must be a JSON object" -- \
  "$tool" convert-onnx "$conv" -o x.webnn --override-dims-file dims.json
rm -f dims.json
only

# A missing model and a garbage model: a clear error, exit 1, nothing left behind.
expect 1 "missing.onnx" -- "$tool" convert-onnx missing.onnx -o x.webnn
only
printf 'this is not an ONNX model\x01\xff\xfe' >garbage.onnx
expect 1 "Error: " -- "$tool" convert-onnx garbage.onnx -o x.webnn
only garbage.onnx
expect 1 "Error: " -- "$tool" convert-onnx garbage.onnx
only garbage.onnx

if [[ $fails -ne 0 ]]; then
  echo "convert_onnx_cli: $fails failure(s)" >&2
  exit 1
fi
echo "convert_onnx_cli: all checks passed"
