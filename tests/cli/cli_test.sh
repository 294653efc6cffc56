#!/usr/bin/env bash
# The cppnn command line end to end: info, run (.npy in and out, random inputs, iterations),
# convert --to json/webnn, dot, ops, bench; help and exit codes of every new subcommand
# (0 success, 1 bad input, 2 usage error).
# usage: cli_test.sh path/to/cppnn
set -u
tool="$(realpath "${1:?usage: cli_test.sh path/to/cppnn}")"
wpt_dir="${CPPNN_WPT_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/wpt}"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"
# has PATTERN FILE: FILE contains PATTERN.
has() { grep -qF -- "$1" "$2" || fail "no \"$1\" in $2: $(head -c 2000 "$2")"; }

cat >g.webnn <<'GRAPH'
webnn_graph "tiny" v1 {
  inputs { x: f32[4]; }
  consts { w: f32[4] @scalar(0.5); }
  nodes { s = mul(x, w); y = relu(s); z = add(y, y); }
  outputs { y; z; }
}
GRAPH

# ---- help and usage, every new subcommand ----
"$tool" --help >out.txt 2>&1 || fail "cppnn --help failed"
for cmd in info run bench dot ops convert wpt; do
  grep -q "^  $cmd " out.txt || fail "cppnn --help does not list $cmd"
done
for cmd in info run bench dot ops; do
  expect 0 "" -- "$tool" "$cmd" --help
  grep -q "^usage: cppnn $cmd" out.txt || fail "$cmd --help prints no usage"
  cp out.txt help1.txt
  expect 0 "" -- "$tool" help "$cmd"
  cmp -s out.txt help1.txt || fail "cppnn help $cmd differs from cppnn $cmd --help"
  expect 2 "unknown option" -- "$tool" "$cmd" --no-such-flag
  [[ $cmd == ops ]] && expect 2 "unexpected argument" -- "$tool" ops g.webnn
done
for cmd in info run bench dot; do expect 2 "missing PATH" -- "$tool" "$cmd"; done
expect 2 "unknown command" -- "$tool" no-such-command
expect 2 "unknown command" -- "$tool" help no-such-command
expect 2 "" -- "$tool"

# ---- info ----
expect 0 "" -- "$tool" info g.webnn
has "x: float32 [4]" out.txt
has "z: float32 [4]" out.txt
has "operations (3):" out.txt
has "constants: 1 (4 parameters, 16 bytes)" out.txt
expect 0 "" -- "$tool" info g.webnn --json
has '"histogram"' out.txt
has '"relu": 1' out.txt
has '"bytes": 16' out.txt
expect 1 "cannot open" -- "$tool" info missing.webnn
printf 'webnn_graph "bad" v1 {\n  inputs { x: f32[4]; }\n  nodes { y = relu(q); }\n  outputs { y; }\n}\n' >bad.webnn
expect 1 "'q'" -- "$tool" info bad.webnn

# ---- run: known input from a hand-made .npy file ----
# x = [-1, 2, -3, 4] as <f4 (version 1.0 header padded to 128 bytes).
hdr="{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
pad=$((128 - 10 - ${#hdr} - 1))
{
  printf '\x93NUMPY\x01\x00\x76\x00'
  printf '%s%*s\n' "$hdr" "$pad" ''
  printf '\x00\x00\x80\xbf\x00\x00\x00\x40\x00\x00\x40\xc0\x00\x00\x80\x40'
} >x.npy
[[ $(stat -c %s x.npy) -eq 144 ]] || fail "the hand-made x.npy is $(stat -c %s x.npy) bytes"
expect 0 "" -- "$tool" run g.webnn --input x=x.npy
# relu(0.5 * x) = [0, 1, 0, 2], z = 2y.
has "y: float32 [4]  min 0  max 2  mean 0.75" out.txt
has "values: 0 1 0 2" out.txt
has "values: 0 2 0 4" out.txt
expect 0 "" -- "$tool" run g.webnn --input x=x.npy --json
has '"mean": 1.5' out.txt
# Outputs as .npy files, read back as the next run's input: relu(0.5 * y) = [0, 0.5, 0, 1].
expect 0 "" -- "$tool" run g.webnn --input x=x.npy --output-dir outs
[[ -s outs/y.npy && -s outs/z.npy ]] || fail "run --output-dir wrote no y.npy/z.npy"
head -c 10 outs/y.npy | grep -q "NUMPY" || fail "outs/y.npy has no NUMPY magic"
cmp -s <(head -c 128 outs/y.npy) <(head -c 128 x.npy) || fail "outs/y.npy header differs from NumPy's"
expect 0 "" -- "$tool" run g.webnn --input x=outs/z.npy
has "values: 0 1 0 2" out.txt
# Random inputs: the same seed gives the same outputs, another seed others.
expect 0 "" -- "$tool" run g.webnn --inputs random --seed 3 --output-dir r1
expect 0 "" -- "$tool" run g.webnn --inputs random --seed 3 --output-dir r2
expect 0 "" -- "$tool" run g.webnn --inputs random --seed 4 --output-dir r3
cmp -s r1/z.npy r2/z.npy || fail "run --inputs random --seed 3 is not deterministic"
cmp -s r1/z.npy r3/z.npy && fail "run --seed 3 and --seed 4 gave the same outputs"
expect 0 "" -- "$tool" run g.webnn --inputs zeros
has "values: 0 0 0 0" out.txt
expect 0 "" -- "$tool" run g.webnn --inputs random --iterations 5
has "latency (" out.txt
has "median" out.txt
has "p90" out.txt
has "(5 runs)" out.txt
expect 0 "" -- "$tool" run g.webnn --inputs random --iterations 3 --json
has '"p90_ms"' out.txt
# Bad inputs: exit 1 with the input named.
expect 1 "input 'x'" -- "$tool" run g.webnn
expect 1 "has no input 'nope'" -- "$tool" run g.webnn --input nope=x.npy
expect 1 "--inputs must be random or zeros" -- "$tool" run g.webnn --inputs ones
expect 1 "no \\x93NUMPY magic" -- "$tool" run g.webnn --input x=g.webnn
expect 1 "cannot open" -- "$tool" run g.webnn --input x=missing.npy
printf 'webnn_graph "two" v1 {\n  inputs { x: f32[2, 2]; }\n  nodes { y = relu(x); }\n  outputs { y; }\n}\n' >g2.webnn
expect 1 "the graph expects float32 [2, 2]" -- "$tool" run g2.webnn --input x=x.npy
expect 1 "--iterations takes" -- "$tool" run g.webnn --inputs zeros --iterations many
expect 1 "" -- "$tool" run g.webnn --inputs zeros --backend no-such-backend

# ---- convert --to json / webnn ----
expect 0 "" -- "$tool" convert g.webnn --to json -o g.json
has '"nodes"' g.json
expect 0 "" -- "$tool" convert g.json --to webnn -o g3.webnn
has 'webnn_graph "tiny"' g3.webnn
"$tool" fmt g.webnn >canon.webnn 2>/dev/null || fail "fmt g.webnn failed"
cmp -s canon.webnn g3.webnn || fail "webnn -> json -> webnn is not the canonical text"
# parse / serialize / validate: text -> GraphJson -> the same canonical text.
expect 0 "" -- "$tool" parse g.webnn
cp out.txt parsed.json
has '"nodes"' parsed.json
expect 0 "" -- "$tool" serialize parsed.json
cmp -s out.txt canon.webnn || fail "parse | serialize is not the canonical text"
expect 0 "OK" -- "$tool" validate g.webnn
printf 'webnn_graph "broken" v1 {\n  inputs { x: f32[4] }\n' >broken.webnn
expect 1 "broken.webnn:" -- "$tool" parse broken.webnn
expect 0 "" -- "$tool" run g.json --input x=x.npy
has "values: 0 2 0 4" out.txt
expect 1 "--to must be onnx, json or webnn" -- "$tool" convert g.webnn --to yaml -o g.yaml
expect 1 "'q'" -- "$tool" convert bad.webnn --to onnx -o bad.onnx
[[ ! -e bad.onnx ]] || fail "a failed conversion wrote bad.onnx"

# ---- an ONNX model through the importer ----
expect 0 "" -- "$tool" convert g.webnn --to onnx -o g.onnx
expect 0 "" -- "$tool" info g.onnx
has "operations (3):" out.txt
expect 0 "" -- "$tool" run g.onnx --input x=x.npy
has "values: 0 2 0 4" out.txt

# ---- dot ----
expect 0 "" -- "$tool" dot g.webnn
has "digraph" out.txt
has "relu" out.txt
has "+1 constant (16 B)" out.txt
has 'label="f32[4]"' out.txt
expect 0 "" -- "$tool" dot g.webnn -o g.dot
has "digraph" g.dot
if command -v dot >/dev/null; then
  expect 0 "" -- "$tool" dot g.webnn --svg g.svg
  has "<svg" g.svg
else
  expect 1 "needs Graphviz" -- "$tool" dot g.webnn --svg g.svg
  [[ ! -e g.svg ]] || fail "dot --svg without Graphviz wrote g.svg"
fi
expect 1 "'q'" -- "$tool" dot bad.webnn

# ---- ops ----
expect 0 "" -- "$tool" ops
has "conv2d" out.txt
has "reference" out.txt
has "ONNX importer" out.txt
has "Conv" out.txt
expect 0 "" -- "$tool" ops --markdown
has "| \`conv2d\` |" out.txt
expect 0 "" -- "$tool" ops --json
has '"onnx"' out.txt
has '"reference"' out.txt
expect 0 "" -- "$tool" ops --backend reference
expect 1 "not compiled in" -- "$tool" ops --backend no-such-backend
expect 2 "exclude each other" -- "$tool" ops --markdown --json

# ---- bench ----
expect 0 "" -- "$tool" bench g.webnn --backend reference --iterations 3 --warmup 1
has "reference" out.txt
has "median" out.txt
expect 0 "" -- "$tool" bench g.webnn --backend reference --iterations 2 --json
has '"build_ms"' out.txt
has '"median_ms"' out.txt
expect 0 "" -- "$tool" bench g.webnn --iterations 2
expect 1 "not compiled in" -- "$tool" bench g.webnn --backend no-such-backend
expect 1 "--iterations takes" -- "$tool" bench g.webnn --iterations 0
expect 1 "'q'" -- "$tool" bench bad.webnn

# ---- wpt --report (with the shared corpus only) ----
expect 0 "" -- "$tool" wpt --help
has "--report PATH" out.txt
if [[ -f "$wpt_dir/validation/createContext.json" ]]; then
  expect 0 "" -- "$tool" wpt --suite validation --corpus "$wpt_dir/validation/createContext.json" \
    --report reports/wpt.json
  has "wpt-validation: " out.txt
  has '"suite": "validation"' reports/wpt.json
  has '"cases"' reports/wpt.json
fi

if [[ $fails -ne 0 ]]; then
  echo "cli: $fails failure(s)" >&2
  exit 1
fi
echo "cli: all checks passed"
