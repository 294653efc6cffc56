#!/usr/bin/env bash
# cppnn compare-onnx: the element-wise tolerance |cppnn - ort| <= atol + rtol * |ort| (--atol,
# --rtol), user inputs (--input NAME=FILE.npy) and the worst element of each output. The model
# is a small matmul written as .webnn and converted to ONNX (cppnn convert), compared on the
# reference backend, which accumulates dot products in double where ONNX Runtime uses float:
# - x = rows like [1e3, 1e-3, -1e3]: near-zero outputs off by up to 3e-5, a large relative (L2)
#   error but well within atol, so it passes (the old relative L2 check failed it);
# - x = rows like [1e8, 3, -1e8]: 3 against 0, a real mismatch, reported FAILED with exit 1.
# usage: compare_onnx_test.sh path/to/cppnn   (exit 77 without ONNX Runtime)
set -u
tool="$(realpath "${1:?usage: compare_onnx_test.sh path/to/cppnn}")"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"

cat >cancel.webnn <<'GRAPH'
webnn_graph "cancel" v1 {
  inputs { x: f32[4, 3]; }
  consts { w: f32[3, 1] @scalar(1); }
  nodes { y = matmul(x, w); }
  outputs { y; }
}
GRAPH
# npy FILE DTYPE SHAPE VALUES...: a version 1.0 .npy file (struct format f, e or i).
npy() {
  python3 - "$@" <<'PY'
import struct, sys
path, dtype, shape, values = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
dims = [int(d) for d in shape.split(",")]
hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
    dtype, ", ".join(map(str, dims)) + ("," if len(dims) == 1 else ""))
pad = 128 - 10 - len(hdr) - 1
fmt = {"<f4": "f", "<f2": "e", "<i4": "i"}[dtype]
cast = int if fmt == "i" else float
open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) +
                       (hdr + " " * pad + "\n").encode() +
                       struct.pack("<%d%s" % (len(values), fmt), *map(cast, values)))
PY
}
npy near.npy "<f4" 4,3 1e3 1e-3 -1e3 -1e3 2e-3 1e3 300 -1e-3 -300 1e3 -5e-4 -1e3
npy far.npy "<f4" 4,3 1 2 3 1e8 3 -1e8 -1 0.5 0.25 4 4 4
npy wrong-shape.npy "<f4" 3 1 2 3
npy wrong-type.npy "<i4" 4,3 1 2 3 4 5 6 7 8 9 10 11 12
"$tool" convert cancel.webnn --to onnx -o cancel.onnx >/dev/null 2>&1 || { echo "FAIL: convert"; exit 1; }

# ---- help and usage errors (exit 2) ----
expect 0 "" -- "$tool" compare-onnx --help
for flag in "--atol X" "--rtol X" "--input NAME=FILE.npy" "atol 1e-4 rtol 1e-3" "worst element"; do
  has "$flag" out.txt
done
expect 2 "--atol abc: expected a number >= 0" -- "$tool" compare-onnx cancel.onnx --atol abc
expect 2 "--rtol -1: expected a number >= 0" -- "$tool" compare-onnx cancel.onnx --rtol -1
expect 2 "--atol 1e-4x: expected a number >= 0" -- "$tool" compare-onnx cancel.onnx --atol 1e-4x
expect 2 "--max-rel-l2 nan: expected a number" -- "$tool" compare-onnx cancel.onnx --max-rel-l2 nan
expect 2 "--input near.npy: expected NAME=FILE.npy" -- "$tool" compare-onnx cancel.onnx --input near.npy
expect 2 "--atol needs a value" -- "$tool" compare-onnx cancel.onnx --atol
# The tool's one parser (cli_args): unknown flags, repeated single flags, --flag=VALUE, choices.
expect 2 "unknown option --tolerance" -- "$tool" compare-onnx cancel.onnx --tolerance 1
expect 2 "--seed is given twice" -- "$tool" compare-onnx cancel.onnx --seed 1 --seed 2
expect 2 "--seed -3: expected" -- "$tool" compare-onnx cancel.onnx --seed=-3
expect 2 "--input-pattern noise: must be" -- "$tool" compare-onnx cancel.onnx --input-pattern noise
expect 2 "--override-dim n: Invalid override-dim format" -- "$tool" compare-onnx cancel.onnx --dim n
expect 2 "--input-shape x=2,a: Invalid dimension value: 'a'" -- "$tool" compare-onnx cancel.onnx \
  --input-shape x=2,a
expect 2 "missing MODEL" -- "$tool" compare-onnx --atol 1
expect 2 "unexpected argument 'b.onnx'" -- "$tool" compare-onnx cancel.onnx b.onnx

"$tool" compare-onnx cancel.onnx --backend reference >out.txt 2>err.txt
if [[ $? -eq 77 ]]; then
  echo "compare_onnx: skipped: $(cat err.txt)"
  exit 77
fi

# ---- near-zero outputs: a large relative error, a tiny absolute one: passed ----
expect 0 "" -- "$tool" compare-onnx cancel.onnx --backend reference --input x=near.npy
has "compare-onnx: passed" out.txt
has "0 of 4 elements outside atol 0.0001 + rtol 0.001 * |ort|" out.txt
has "worst element [" out.txt
# The old criterion (relative L2 below 1e-4), still there as --max-rel-l2, fails it.
expect 1 "" -- "$tool" compare-onnx cancel.onnx --backend reference --input x=near.npy \
  --max-rel-l2 1e-4
has "is not below --max-rel-l2 0.0001" out.txt
has "compare-onnx: FAILED" out.txt
# With no tolerance at all the ~2e-5 differences are mismatches, and the worst one is shown.
expect 1 "" -- "$tool" compare-onnx cancel.onnx --backend reference --input x=near.npy \
  --atol 0 --rtol 0
has "outside atol 0 + rtol 0 * |ort|  FAILED" out.txt
grep -qE "worst element \[[0-3], 0\] \(flat [0-3]\): cppnn [-0-9.e]+, ort [-0-9.e]+, \|diff\| [0-9.e-]+, allowed 0$" out.txt ||
  fail "no worst element line in: $(cat out.txt)"

# ---- a real mismatch: 3 against 0 in row 1, FAILED with exit 1 and the element named ----
expect 1 "" -- "$tool" compare-onnx cancel.onnx --backend reference --input x=far.npy
has "1 of 4 elements outside atol 0.0001 + rtol 0.001 * |ort|  FAILED" out.txt
has "worst element [1, 0] (flat 1): cppnn 3, ort 0, |diff| 3, allowed 0.0001" out.txt
has "compare-onnx: FAILED" out.txt
# ... which a loose enough tolerance accepts.
expect 0 "" -- "$tool" compare-onnx cancel.onnx --backend reference --input x=far.npy --atol 4

# ---- --input errors: exit 1 naming the input and the file ----
expect 1 "has no input 'nope' (inputs: x)" -- "$tool" compare-onnx cancel.onnx --input nope=near.npy
expect 1 "wrong-shape.npy holds float32[3], the model expects float32[4,3]" -- \
  "$tool" compare-onnx cancel.onnx --input x=wrong-shape.npy
expect 1 "wrong-type.npy holds int32[4,3]" -- "$tool" compare-onnx cancel.onnx --input x=wrong-type.npy
expect 1 "missing.npy" -- "$tool" compare-onnx cancel.onnx --input x=missing.npy
expect 1 "given twice" -- "$tool" compare-onnx cancel.onnx --input x=near.npy --input x=far.npy

# ---- the generated input still works (and the default backend agrees with itself) ----
expect 0 "" -- "$tool" compare-onnx cancel.onnx --backend reference --seed 3
has "compare-onnx: passed" out.txt
expect 0 "" -- "$tool" compare-onnx cancel.onnx --input x=near.npy
has "compare-onnx: passed" out.txt

[[ $fails -eq 0 ]] || { echo "compare_onnx: $fails failure(s)"; exit 1; }
echo "compare_onnx: passed"
