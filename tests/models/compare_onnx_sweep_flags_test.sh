#!/usr/bin/env bash
# cppnn compare-onnx's flags for the real-model sweep (docs/model-sweep.md): --input-value pins
# an input at conversion and gives ONNX Runtime the same value in the input's declared type and
# shape (a float scalar, an int32 vector from an integer list), and --json writes the per-output
# record that scripts/model-sweep.py reads (also the error, when the run fails).
# usage: compare_onnx_sweep_flags_test.sh path/to/cppnn   (exit 77 without ONNX Runtime)
set -u
tool="$(realpath "${1:?usage: compare_onnx_sweep_flags_test.sh path/to/cppnn}")"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"

cat >pin.webnn <<'GRAPH'
webnn_graph "pin" v1 {
  inputs { x: f32[2, 3]; k: f32[]; n: i32[3]; }
  nodes { c = cast(n, dataType="float32"); a = add(x, k); y = mul(a, c); }
  outputs { y; }
}
GRAPH
"$tool" convert pin.webnn --to onnx -o pin.onnx >/dev/null 2>&1 || { echo "FAIL: convert"; exit 1; }

expect 0 "" -- "$tool" compare-onnx --help
has "--input-value NAME=V0,V1,..." out.txt
has "--json FILE" out.txt
expect 2 "Invalid input-value format" -- "$tool" compare-onnx pin.onnx --input-value k

"$tool" compare-onnx pin.onnx --backend reference --input-value k=0.5 --input-value n=1,2,3 \
  >out.txt 2>err.txt
rc=$?
if [[ $rc -eq 77 ]]; then
  echo "compare_onnx_sweep_flags: skipped: $(cat err.txt)"
  exit 77
fi
# Both pinned: k a float32 scalar, n int32[3] (the integers cast); only x is generated.
[[ $rc -eq 0 ]] || fail "pinned k and n: exit $rc: $(cat out.txt err.txt)"
has "compare-onnx: passed" out.txt
expect 0 "" -- "$tool" compare-onnx pin.onnx --backend reference --input-value k=0.5 \
  --input-value n=1,2,3 --json report.json
python3 - report.json <<'PY' || fail "report.json: $(cat report.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["passed"] is True and r["backend"] == "reference", r
(o,) = r["outputs"]
assert o["name"] == "y" and o["dataType"] == "float32" and o["shape"] == [2, 3], o
assert o["relL2"] == 0 and o["maxAbs"] == 0 and o["outside"] == 0 and o["passed"], o
for key in ("importMs", "buildMs", "dispatchMs", "ortMs"):
    assert r[key] >= 0, key
PY
# A value that does not fit the declared shape: exit 1, and the JSON records the error.
expect 1 "not broadcastable" -- "$tool" compare-onnx pin.onnx --backend reference \
  --input-value k=0.5 --input-value n=1,2,3,4 --json bad.json
has '"passed": false' bad.json
has '"error": ' bad.json

[[ $fails -eq 0 ]] || { echo "compare_onnx_sweep_flags: $fails failure(s)"; exit 1; }
echo "compare_onnx_sweep_flags: passed"
