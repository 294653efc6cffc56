#!/usr/bin/env bash
# `cppnn convert FILE --to onnx|coreml|tflite -o OUT` end to end: a .webnn graph with a
# SafeTensors sidecar converts to OUT + OUT.data, to a package folder or to a TFLite file, --help,
# exit codes (0 ok, 1 bad input), and nothing written on error.
# usage: convert_cli_test.sh path/to/cppnn
set -u
tool="$(realpath "${1:?usage: convert_cli_test.sh path/to/cppnn}")"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"

expect 0 "" -- "$tool" convert --help
grep -q "^usage: cppnn convert" out.txt || fail "convert --help prints no usage"
expect 2 "--to must be onnx" -- "$tool" convert g.webnn -o m.onnx
expect 2 "-o OUT is required" -- "$tool" convert g.webnn --to onnx

# A graph that does not validate: exit 1 naming the reference, nothing written.
cat >g.webnn <<'GRAPH'
webnn_graph "tiny" v1 {
  inputs { x: f32[300]; }
  nodes { y = relu(z); }
  outputs { y; }
}
GRAPH
expect 1 "'z'" -- "$tool" convert g.webnn --to onnx -o m.onnx
[[ ! -e m.onnx && ! -e m.onnx.data ]] || fail "a failed conversion left files behind"

# A scalar fill stays one number: ConstantOfShape in the model, nothing in m.onnx.data.
cat >fill.webnn <<'GRAPH'
webnn_graph "tiny" v1 {
  inputs { x: f32[300]; }
  consts { w: f32[300] @scalar(1.5); }
  nodes { s = add(x, w); y = relu(s); }
  outputs { y; }
}
GRAPH
expect 0 "" -- "$tool" convert fill.webnn --to onnx -o fill.onnx
[[ -s fill.onnx && ! -e fill.onnx.data ]] || fail "a fill was written as data"
[[ $(stat -c %s fill.onnx) -lt 1200 ]] || fail "the fill was expanded into fill.onnx"
grep -q ConstantOfShape fill.onnx || fail "no ConstantOfShape for the fill"

bytes=$(for ((i = 0; i < 1200; i++)); do printf '%d,' $((i % 256)); done)
cat >g.webnn <<GRAPH
webnn_graph "tiny" v1 {
  inputs { x: f32[300]; }
  consts { w: f32[300] @bytes([${bytes%,}]); }
  nodes { s = add(x, w); y = relu(s); }
  outputs { y; }
}
GRAPH
expect 0 "" -- "$tool" convert g.webnn --to onnx -o m.onnx
[[ -s m.onnx && -s m.onnx.data ]] || fail "convert wrote no m.onnx + m.onnx.data"
[[ $(stat -c %s m.onnx.data) -ge 1200 ]] || fail "the 1200-byte constant is not in m.onnx.data"
expect 0 "" -- "$tool" convert g.webnn --to onnx -o m1.onnx --external-threshold 0
[[ -s m1.onnx && ! -e m1.onnx.data ]] || fail "--external-threshold 0 still wrote external data"
expect 1 'failed to read `missing.webnn`' -- "$tool" convert missing.webnn --to onnx -o m2.onnx
expect 2 "--external-threshold takes a byte count" -- "$tool" convert g.webnn --to onnx -o m3.onnx \
  --external-threshold lots
[[ ! -e m3.onnx ]] || fail "a rejected command wrote m3.onnx"

# --to coreml: a package folder (Manifest.json, model.mlmodel, weights/weight.bin), replaced in
# place; a fill stays one MIL `fill`; what MIL cannot express (int64) writes nothing.
cat >c.webnn <<GRAPH
webnn_graph "tiny" v1 {
  inputs { x: f32[300]; }
  consts { w: f32[300] @bytes([${bytes%,}]); f: f32[300] @scalar(1.5); }
  nodes { s = add(x, w); y = add(s, f); }
  outputs { y; }
}
GRAPH
expect 0 "" -- "$tool" convert c.webnn --to coreml -o c.mlpackage
for f in Manifest.json Data/com.apple.CoreML/model.mlmodel Data/com.apple.CoreML/weights/weight.bin; do
  [[ -s c.mlpackage/$f ]] || fail "convert --to coreml wrote no $f"
done
weights=c.mlpackage/Data/com.apple.CoreML/weights/weight.bin
[[ $(stat -c %s $weights) -ge 1200 && $(stat -c %s $weights) -lt 1400 ]] ||
  fail "the 1200-byte constant is not (alone) in weight.bin"
grep -q fill c.mlpackage/Data/com.apple.CoreML/model.mlmodel || fail "no MIL fill for the fill"
cp c.mlpackage/Manifest.json manifest.before
expect 0 "" -- "$tool" convert c.webnn --to coreml -o c.mlpackage
cmp -s manifest.before c.mlpackage/Manifest.json || fail "the same graph gave another manifest"
[[ $(ls -A | grep -c '^\.c\.mlpackage') -eq 0 ]] || fail "temporaries left beside c.mlpackage"
cat >i64.webnn <<'GRAPH'
webnn_graph "tiny" v1 {
  inputs { x: i64[4]; }
  nodes { y = add(x, x); }
  outputs { y; }
}
GRAPH
expect 1 "int64" -- "$tool" convert i64.webnn --to coreml -o i64.mlpackage
[[ ! -e i64.mlpackage ]] || fail "a failed CoreML conversion left i64.mlpackage"
echo x >plain.mlpackage
expect 1 "not an .mlpackage folder" -- "$tool" convert c.webnn --to coreml -o plain.mlpackage
mkdir -p inside.mlpackage && cp c.webnn inside.mlpackage/Manifest.json && cp c.webnn inside.mlpackage/
expect 1 "is inside it" -- "$tool" convert inside.mlpackage/c.webnn --to coreml -o inside.mlpackage

# --to tflite: one flatbuffer file ("TFL3" at offset 4), the same bytes for the same graph, the
# fill as a FILL operator (the file stays small), nothing left behind; a folder as OUT is refused.
expect 0 "" -- "$tool" convert c.webnn --to tflite -o c.tflite
[[ "$(dd if=c.tflite bs=1 skip=4 count=4 2>/dev/null)" == "TFL3" ]] ||
  fail "convert --to tflite wrote no TFLite flatbuffer"
size=$(stat -c %s c.tflite)
[[ $size -ge 1200 && $size -lt 4000 ]] || fail "c.tflite is $size bytes (the fill expanded?)"
cp c.tflite c.tflite.before
expect 0 "" -- "$tool" convert c.webnn --to tflite -o c.tflite
cmp -s c.tflite.before c.tflite || fail "the same graph gave another .tflite"
[[ $(ls -A | grep -c '^\.c\.tflite') -eq 0 ]] || fail "temporaries left beside c.tflite"
mkdir -p folder.tflite
expect 1 "folder.tflite" -- "$tool" convert c.webnn --to tflite -o folder.tflite
expect 1 "" -- "$tool" convert missing.webnn --to tflite -o missing.tflite
[[ ! -e missing.tflite ]] || fail "a failed conversion left missing.tflite"

if [[ $fails -ne 0 ]]; then
  echo "convert_cli: $fails failure(s)" >&2
  exit 1
fi
echo "convert_cli: all checks passed"
