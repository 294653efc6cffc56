#!/usr/bin/env bash
# cppnn compare: the per-node comparison finds an injected error and names that node. The model
# is a chain of ONNX nodes (a .webnn graph written as ONNX by cppnn convert, node names add#0,
# matmul#1, add#2, relu#3, sigmoid#4, mul#5; add#0 reads constants only, so the importer folds
# it): unperturbed it passes against ONNX Runtime; with --perturb NODE=EPS (EPS added to that
# node's output in the converted copy only, ORT runs the original) the first divergence is
# exactly NODE, for a node in the middle and for a later one, and an EPS within the tolerance
# still passes. --against compares two cppnn backends (reference against cpu) per operation.
# usage: compare_test.sh path/to/cppnn   (exit 77 without ONNX Runtime, after the --against part)
set -u
tool="$(realpath "${1:?usage: compare_test.sh path/to/cppnn}")"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"
# has PATTERN FILE: FILE contains PATTERN.
has() { grep -qF -- "$1" "$2" || fail "no \"$1\" in $2: $(head -c 3000 "$2")"; }
# last PATTERN: the last line of out.txt is PATTERN.
last() { [[ "$(tail -n 1 out.txt)" == "$1" ]] || fail "last line \"$(tail -n 1 out.txt)\", expected \"$1\""; }

cat >chain.webnn <<'GRAPH'
webnn_graph "chain" v1 {
  inputs { x: f32[2, 3]; }
  consts { w: f32[3, 3] @scalar(0.5); b: f32[3] @scalar(1); }
  nodes {
    w2 = add(w, w);
    h = matmul(x, w2);
    a = add(h, b);
    r = relu(a);
    s = sigmoid(r);
    y = mul(s, a);
  }
  outputs { y; }
}
GRAPH
"$tool" convert chain.webnn --to onnx -o chain.onnx >/dev/null 2>&1 || { echo "FAIL: convert"; exit 1; }

# ---- help and usage errors (exit 2) ----
expect 0 "" -- "$tool" compare --help
for flag in "--atol X" "--rtol X" "--input NAME=FILE.npy" "--against" "--perturb NODE=EPS" \
  "--report FILE.json" "--all"; do
  has "$flag" out.txt
done
"$tool" --help >help.txt 2>&1
has "  compare " help.txt
expect 2 "missing MODEL" -- "$tool" compare
expect 2 "--atol abc: expected a number >= 0" -- "$tool" compare chain.onnx --atol abc
expect 2 "--perturb add#2: expected NODE=EPS" -- "$tool" compare chain.onnx --perturb add#2
expect 2 "--perturb add#2=x: EPS is not a finite number" -- "$tool" compare chain.onnx \
  --perturb add#2=x
expect 2 "needs --against BACKEND" -- "$tool" compare chain.webnn
expect 2 "--against needs --backend" -- "$tool" compare chain.webnn --against cpu
expect 2 "not --against" -- "$tool" compare chain.onnx --backend cpu --against reference \
  --perturb add#2=1
expect 2 "unknown option --bogus" -- "$tool" compare chain.onnx --bogus

# ---- --against: two cppnn backends on the same graph, every operation compared ----
expect 0 "" -- "$tool" compare chain.webnn --backend reference --against cpu --all
has "chain.webnn on reference against cpu" out.txt
for op in "add '#0' -> 'w2'" "matmul '#1' -> 'h'" "relu '#3' -> 'r'" "mul '#5' -> 'y'"; do
  has "$op" out.txt
done
has "summary: 6 values compared" out.txt
last "compare: passed (every compared value within atol + rtol * |cpu|)"
# An ONNX model works too (imported on both).
expect 0 "" -- "$tool" compare chain.onnx --backend cpu --against reference --report against.json
grep -q '"first_divergence": null' against.json || fail "against.json: $(cat against.json)"

"$tool" compare chain.onnx --backend reference >out.txt 2>err.txt
rc=$?
if [[ $rc -eq 77 ]]; then
  echo "compare: skipped against ONNX Runtime: $(cat err.txt)"
  [[ $fails -eq 0 ]] || { echo "compare: $fails failure(s)"; exit 1; }
  exit 77
fi

# ---- unperturbed: every node within tolerance ----
[[ $rc -eq 0 ]] || fail "compare chain.onnx exited $rc: $(cat out.txt err.txt)"
for backend in reference cpu; do
  expect 0 "" -- "$tool" compare chain.onnx --backend "$backend" --all --report ok.json
  has "chain.onnx on $backend against onnxruntime" out.txt
  has "[0] Add 'add#0' -> '" out.txt
  has "(folded at conversion), ok" out.txt
  has "[2] Add 'add#2' -> '" out.txt
  has "[5] Mul 'mul#5' -> 'y' float32 [2, 3]: max abs" out.txt
  has "summary: 6 values compared (5 at run time, 1 folded at conversion), 0 outside" out.txt
  last "compare: passed (every compared value within atol + rtol * |ort|)"
  grep -q '"passed": true' ok.json || fail "ok.json: $(head -c 2000 ok.json)"
done

# ---- an injected error in the middle: add#2 named, the nodes before it within tolerance ----
expect 1 "" -- "$tool" compare chain.onnx --backend reference --perturb add#2=0.5 --report bad.json
has "first divergence: node 'add#2' (Add), output '" out.txt
has "1 compared input within tolerance" out.txt
has "max abs 0.5" out.txt
last "compare: FAILED: first diverging node 'add#2' (Add)"
grep -qF '"node": "add#2"' bad.json || fail "bad.json names no add#2: $(head -c 2000 bad.json)"
grep -qF '"passed": false' bad.json || fail "bad.json passed"
# Every diverging row is listed, the earlier ones are not.
has "[2] Add 'add#2'" out.txt
grep -qF "[1] MatMul" out.txt && fail "matmul#1 listed as diverging: $(cat out.txt)"
# ... on the cpu backend too, and in a later node.
expect 1 "" -- "$tool" compare chain.onnx --backend cpu --perturb add#2=-0.25
last "compare: FAILED: first diverging node 'add#2' (Add)"
expect 1 "" -- "$tool" compare chain.onnx --backend reference --perturb sigmoid#4=0.01
has "first divergence: node 'sigmoid#4' (Sigmoid)" out.txt
last "compare: FAILED: first diverging node 'sigmoid#4' (Sigmoid)"
# An error below the tolerance is no divergence; a looser tolerance accepts a larger one.
expect 0 "" -- "$tool" compare chain.onnx --backend reference --perturb add#2=1e-6
expect 0 "" -- "$tool" compare chain.onnx --backend reference --perturb add#2=0.5 --atol 10
# A node that does not exist, or one whose output is not float.
expect 1 "the model has no node 'nope' (nodes: add#0, matmul#1" -- "$tool" compare chain.onnx \
  --perturb nope=1

# ---- inputs from .npy files ----
python3 - <<'PY'
import struct
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
hdr += " " * (128 - 10 - len(hdr) - 1) + "\n"
open("x.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + hdr.encode() +
                          struct.pack("<6f", 1, -2, 3, -4, 5, -6))
PY
expect 0 "" -- "$tool" compare chain.onnx --backend reference --input x=x.npy
expect 1 "has no input 'nope' (inputs: x)" -- "$tool" compare chain.onnx --input nope=x.npy

[[ $fails -eq 0 ]] || { echo "compare: $fails failure(s)"; exit 1; }
echo "compare: passed"
