#!/usr/bin/env bash
# The weight subcommands of the cppnn tool end to end (webnn-graph-format.md §8): extract ->
# inline is lossless, unpack -> create-manifest -> pack rebuilds the same file, --help on each,
# exit codes (0 ok, 1 bad input) and the documented messages of §10 rows 38-40.
# usage: weights_cli_test.sh path/to/cppnn
set -u
tool="$(realpath "${1:?usage: weights_cli_test.sh path/to/cppnn}")"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"

for c in pack-weights unpack-weights create-manifest extract-weights inline-weights; do
  expect 0 "" -- "$tool" "$c" --help
  grep -q "^usage: cppnn $c" out.txt || fail "$c --help prints no usage"
  expect 2 "is required" -- "$tool" "$c"
  expect 2 "unknown option --nope" -- "$tool" "$c" --nope x
done

cat >g.webnn <<'GRAPH'
webnn_graph "tiny" v2 @quantized {
  inputs { x: f32[2]; }
  consts { s: f32[2] @bytes([0, 0, 128, 63, 0, 0, 0, 64]); q: u4[3] @bytes([33, 3]); k: f32[1] @scalar(2); }
  nodes { y = mul(x, s); }
  outputs { y; }
}
GRAPH
expect 0 "Wrote graph with weight references to: g2.json" -- "$tool" extract-weights \
  --input g.webnn --output-dir out --weights g.weights --manifest g.manifest.json --output-graph g2.json
[[ -f out/tensors/s.bin && -f out/tensors/q.bin ]] || fail "extract-weights wrote no .bin files"
grep -q '"ref": "s"' g2.json || fail "extract-weights left s inline"
expect 0 "Wrote graph with inline weights to: g3.json" -- "$tool" inline-weights \
  --input g2.json --weights g.weights --manifest g.manifest.json --output g3.json
grep -q '"inlineBytes"' g3.json || fail "inline-weights wrote no inline bytes"
cmp -s out/tensors/s.bin <(printf '\x00\x00\x80\x3f\x00\x00\x00\x40') || fail "s.bin content"

expect 0 "" -- "$tool" unpack-weights --weights g.weights --manifest g.manifest.json --output-dir un
for n in q s; do
  cmp -s "un/$n.bin" "out/tensors/$n.bin" || fail "unpacked $n.bin differs"
done
printf '{"dataType":"uint4","shape":[3],"byteOffset":0,"byteLength":0}' >un/q.meta.json
printf '{"dataType":"float32","shape":[2],"byteOffset":0,"byteLength":0}' >un/s.meta.json
expect 0 "" -- "$tool" create-manifest --input-dir un --output m2.json
expect 0 "" -- "$tool" pack-weights --manifest m2.json --input-dir un --output g4.weights
cmp -s g.weights g4.weights || fail "pack-weights did not rebuild the same WGWT file"

# Row 38: a headerless blob.
printf '\x00\x00\x80\x3f\x00\x00\x00\x40' >h.weights
expect 1 "Invalid magic bytes" -- "$tool" unpack-weights --weights h.weights --manifest m2.json \
  --output-dir un2
expect 1 "Invalid magic bytes" -- "$tool" inline-weights --input g2.json --weights h.weights \
  --manifest m2.json --output g5.json
[[ ! -e g5.json ]] || fail "inline-weights left an output behind"
# Row 39: first offset 0.
sed 's/"byteOffset": 8/"byteOffset": 0/' m2.json >m0.json
expect 1 "unexpected byte_offset: expected 8, got 0" -- "$tool" pack-weights --manifest m0.json \
  --input-dir un --output g6.weights
[[ ! -e g6.weights ]] || fail "pack-weights left a partial file"
# Row 40: a .bin without its .meta.json.
rm un/q.meta.json
expect 1 "Failed to read metadata file" -- "$tool" create-manifest --input-dir un --output m3.json
# Unreadable input.
expect 1 "Error: failed to read" -- "$tool" pack-weights --manifest nope.json --input-dir un \
  --output x.weights

if [[ $fails -gt 0 ]]; then
  echo "weights_cli_test: $fails failures" >&2
  exit 1
fi
echo "weights_cli_test: all checks passed"
