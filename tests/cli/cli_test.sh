#!/usr/bin/env bash
# The cppnn command line end to end: info, run (.npy in and out, random inputs, iterations),
# convert --to json/webnn, dot, ops, bench; help and exit codes of every subcommand (0 success,
# 1 bad input, 2 usage error); and the hardening of the tool: files read through InputFile
# (devices, FIFOs, folders and huge files refused fast), outputs written through AtomicFile
# (no planted symlink followed, no output that is an input, convert-onnx's files all or none,
# no temporary left after SIGTERM), one argument parser, unique --output-dir names.
# usage: cli_test.sh path/to/cppnn
set -u
tool="$(realpath "${1:?usage: cli_test.sh path/to/cppnn}")"
here="$(dirname "$(realpath "$0")")"
wpt_dir="${CPPNN_WPT_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/wpt}"
# shellcheck source=../cli_lib.sh
source "$(dirname "$(realpath "$0")")/../cli_lib.sh"
# Run directly, the sanitizer build suppresses leaks as `make test-asan` does.
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/../lsan.supp}"
# An ASan build maps terabytes of shadow memory: no address-space limit there.
asan=0
if ldd "$tool" 2>/dev/null | grep -q libasan || nm "$tool" 2>/dev/null | grep -q __asan_init; then
  asan=1
fi
# bounded CODE PATTERN -- COMMAND...: `expect`, but the command must end within 20 s and stay
# under 1 GiB of resident memory (and 4 GiB of address space without ASan): a hang or an
# unbounded read fails.
bounded() {
  local code="$1" pattern="$2"
  shift 3
  local limit=()
  [[ $asan -eq 1 ]] || limit=(prlimit --as=$((4 << 30)))
  timeout 20 /usr/bin/time -f %M -o rss.txt "${limit[@]}" "$@" >out.txt 2>err.txt
  local rc=$?
  [[ $rc -eq $code ]] || fail "$* exited $rc, expected $code (124: timed out): $(head -c 2000 err.txt)"
  [[ -z "$pattern" ]] || grep -qF -- "$pattern" err.txt || fail "$*: no \"$pattern\" in: $(head -c 2000 err.txt)"
  local kb
  kb=$(tail -n 1 rss.txt 2>/dev/null)
  [[ $kb =~ ^[0-9]+$ && $kb -lt $((1 << 20)) ]] || fail "$*: resident memory ${kb:-?} KiB (limit 1 GiB)"
}
# no_temporaries DIR: no AtomicFile temporary (.NAME.tmp-XXXXXX) is left in DIR.
no_temporaries() {
  local left
  left=$(find "$1" -maxdepth 1 -name '.*.tmp-*' | head -5)
  [[ -z "$left" ]] || fail "temporaries left behind: $left"
}

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
for cmd in info run bench dot; do expect 2 "missing GRAPH" -- "$tool" "$cmd"; done
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
expect 1 "missing.webnn" -- "$tool" info missing.webnn
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
has "(5 runs, " out.txt
has "p99" out.txt
has "inferences/s" out.txt
expect 0 "" -- "$tool" run g.webnn --inputs random --iterations 3 --json
has '"p90_ms"' out.txt
has '"p99_ms"' out.txt
has '"throughput_per_s"' out.txt
# --threads N: the context's thread count.
expect 0 "" -- "$tool" run g.webnn --inputs zeros --threads 2
has "values: 0 0 0 0" out.txt
expect 2 "--threads 0: expected an integer in [1, 1024]" -- "$tool" run g.webnn --inputs zeros --threads 0
# Bad inputs: exit 1 with the input named.
expect 1 "input 'x'" -- "$tool" run g.webnn
expect 1 "has no input 'nope'" -- "$tool" run g.webnn --input nope=x.npy
expect 2 "--inputs ones: must be random or zeros" -- "$tool" run g.webnn --inputs ones
expect 1 "no \\x93NUMPY magic" -- "$tool" run g.webnn --input x=g.webnn
expect 1 "--input x=missing.npy: failed to read \`missing.npy\`" -- "$tool" run g.webnn --input x=missing.npy
printf 'webnn_graph "two" v1 {\n  inputs { x: f32[2, 2]; }\n  nodes { y = relu(x); }\n  outputs { y; }\n}\n' >g2.webnn
expect 1 "the graph expects float32 [2, 2]" -- "$tool" run g2.webnn --input x=x.npy
expect 2 "--iterations many: expected an integer" -- "$tool" run g.webnn --inputs zeros --iterations many
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
expect 2 "--to yaml: must be onnx, coreml, tflite, json or webnn" -- "$tool" convert g.webnn --to yaml -o g.yaml
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
has '"p99_ms"' out.txt
has '"throughput_per_s"' out.txt
has '"name": "tiny"' out.txt
expect 0 "" -- "$tool" bench g.webnn --backend reference --iterations 3 --threads 2
has "p99" out.txt
has "inferences/s" out.txt
has "tiny: 3 runs after 1 warm-up" out.txt
expect 0 "" -- "$tool" bench g.webnn --iterations 2
expect 1 "not compiled in" -- "$tool" bench g.webnn --backend no-such-backend
expect 2 "--iterations 0: expected an integer >= 1" -- "$tool" bench g.webnn --iterations 0
expect 1 "'q'" -- "$tool" bench bad.webnn
# --profile: every operation of the timed rounds, with its kernel; --trace: a Chrome trace.
expect 0 "" -- "$tool" bench g.webnn --backend cpu --iterations 4 --profile --trace trace.json
has "profile (cpu): 4 dispatches" out.txt
has "fast      relu" out.txt
has "per op:" out.txt
python3 - <<'PY' || fail "trace.json is not a Chrome trace of 4 dispatches"
import json
t = json.load(open("trace.json"))
events = t["traceEvents"]
assert t["otherData"]["dispatches"] == 4, t["otherData"]
assert len(events) % 4 == 0 and events, len(events)
assert all(e["ph"] == "X" and e["dur"] >= 0 and e["cat"] in ("fast", "reference") for e in events)
PY
no_temporaries .
expect 0 "" -- "$tool" bench g.webnn --backend reference --iterations 2 --profile --json
has '"profile"' out.txt
has '"kernel": "reference"' out.txt
expect 1 "one backend" -- "$tool" bench g.webnn --backend cpu,reference --trace t2.json
[[ ! -e t2.json ]] || fail "--trace with two backends wrote a file"
if "$tool" ops --json | grep -q '"ort"'; then
  expect 0 "" -- "$tool" bench g.webnn --backend ort --iterations 1 --profile
  has "not available" out.txt
fi

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

# ==== Hardening ====

# ---- the graph's own name (info, dot, bench) ----
expect 0 "" -- "$tool" info g.webnn
has "graph: tiny (g.webnn)" out.txt
expect 0 "" -- "$tool" info g.webnn --json
has '"name": "tiny"' out.txt
expect 0 "" -- "$tool" dot g.webnn
has 'digraph "tiny"' out.txt

# ---- one parser, one exit-code rule: usage errors exit 2 and name the flag ----
for cmd in info run bench dot ops validate parse serialize fmt convert pack-weights \
  unpack-weights create-manifest extract-weights inline-weights convert-onnx onnx-tests wpt; do
  expect 2 "unknown option --no-such-flag" -- "$tool" "$cmd" --no-such-flag
  grep -q "^Error: " err.txt || fail "$cmd: the usage error does not start with 'Error: '"
  expect 0 "" -- "$tool" "$cmd" --help
  grep -q "^usage: cppnn $cmd" out.txt || fail "$cmd --help prints no usage"
done
for cmd in validate parse serialize fmt convert; do expect 2 "missing PATH" -- "$tool" "$cmd"; done
for cmd in pack-weights unpack-weights create-manifest extract-weights inline-weights; do
  expect 2 "is required" -- "$tool" "$cmd"
done
expect 2 "--weights needs a value" -- "$tool" info g.webnn --weights
expect 2 "--json takes no value" -- "$tool" info g.webnn --json=yes
expect 2 "--backend is given twice" -- "$tool" run g.webnn --backend reference --backend reference
expect 2 "--output is given twice" -- "$tool" pack-weights --manifest m --input-dir d --output a \
  --output b
expect 2 "unexpected argument 'extra.webnn'" -- "$tool" info g.webnn extra.webnn
expect 2 "--suite nope: must be validation or conformance" -- "$tool" wpt --suite nope
expect 2 "--timeout soon: expected a number" -- "$tool" onnx-tests --timeout soon
expect 2 "--seed -1: expected an integer" -- "$tool" run g.webnn --inputs zeros --seed -1
expect 2 "--weights-format zip: must be safetensors or manifest" -- "$tool" convert-onnx g.onnx \
  --weights-format zip
expect 2 "--override-dim batch: Invalid override-dim format" -- "$tool" info g.onnx \
  --override-dim batch
# --input forms: NAME=FILE.npy|.safetensors or FILE.safetensors; a bad form is a usage error
# naming the flag, a file that cannot be read is bad input naming the flag and the file.
mkdir -p adir
expect 1 "Error: --input x=adir: failed to read \`adir\`: it is a folder" -- \
  "$tool" run g.webnn --input x=adir
grep -q "internal" err.txt && fail "--input x=adir: an internal error: $(cat err.txt)"
expect 2 "Error: --input x.npy: expected NAME=FILE.npy" -- "$tool" run g.webnn --input x.npy
expect 2 "Error: --input =x.npy: the input NAME before '=' is empty" -- \
  "$tool" run g.webnn --input =x.npy
expect 2 "Error: --input x=x.npy: input 'x' is given twice" -- \
  "$tool" run g.webnn --input x=x.npy --input x=x.npy
expect 1 "Error: --input missing.safetensors: failed to read" -- \
  "$tool" run g.webnn --input missing.safetensors

# ---- every file is read through InputFile: devices, FIFOs, folders and huge files ----
mkfifo fifo.webnn fifo.npy fifo.json
mkdir -p folder.webnn
bounded 1 "/dev/zero" -- "$tool" info /dev/zero
has "device" err.txt
for cmd in info dot validate parse fmt; do
  bounded 1 "fifo.webnn" -- "$tool" "$cmd" fifo.webnn
  has "FIFO" err.txt
  bounded 1 "folder.webnn" -- "$tool" "$cmd" folder.webnn
  has "folder" err.txt
done
bounded 1 "fifo.json" -- "$tool" serialize fifo.json
bounded 1 "fifo.webnn" -- "$tool" convert fifo.webnn --to json -o fifo-out.json
bounded 1 "fifo.webnn" -- "$tool" extract-weights --input fifo.webnn --output-dir xd \
  --weights xw.weights --manifest xm.json --output-graph xg.json
bounded 1 "--input x=fifo.npy: failed to read \`fifo.npy\`: it is a FIFO" -- \
  "$tool" run g.webnn --input x=fifo.npy
# A huge (sparse) file is refused from its first bytes, not read whole.
truncate -s 3G huge.webnn
bounded 1 "huge.webnn: Unknown format" -- "$tool" info huge.webnn
bounded 1 "huge.webnn: Unknown format" -- "$tool" fmt huge.webnn
truncate -s 3G huge.npy
bounded 1 "no \\x93NUMPY magic" -- "$tool" run g.webnn --input x=huge.npy
rm -f huge.webnn huge.npy
# parse reads text only, serialize GraphJson only: said from the first bytes.
expect 1 "g.json: expected .webnn text" -- "$tool" parse g.json
expect 1 "g.webnn: expected GraphJson" -- "$tool" serialize g.webnn
# A graph's weights sidecar that is a FIFO.
cat >gw.webnn <<'GRAPH'
webnn_graph "weighted" v1 {
  inputs { x: f32[4]; }
  consts { w: f32[4] @weights("w"); }
  nodes { y = mul(x, w); }
  outputs { y; }
}
GRAPH
cp gw.webnn fw.webnn
mkfifo fw.safetensors
bounded 1 "fw.safetensors" -- "$tool" info fw.webnn
has "FIFO" err.txt

# ---- --weights and --weights-manifest are relative to the current directory ----
# w.safetensors: w = float32 [4] of 1.0 (a 56-byte header).
st_header='{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}} '
{
  printf '\x38\x00\x00\x00\x00\x00\x00\x00%s' "$st_header"
  printf '\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f'
} >w.safetensors
[[ $(stat -c %s w.safetensors) -eq 80 ]] || fail "the hand-made w.safetensors is not 80 bytes"
mkdir -p sub
cp gw.webnn sub/gw.webnn
expect 0 "" -- "$tool" info sub/gw.webnn --weights w.safetensors
has "graph: weighted" out.txt
expect 0 "" -- "$tool" run sub/gw.webnn --weights w.safetensors --input x=x.npy
has "values: -1 2 -3 4" out.txt
expect 1 "sub/w.safetensors" -- "$tool" info gw.webnn --weights sub/w.safetensors
(cd sub && "$tool" info gw.webnn --weights ../w.safetensors >/dev/null 2>&1) ||
  fail "info gw.webnn --weights ../w.safetensors from sub/ failed"

# ---- run --output-dir: names that sanitize alike get distinct files ----
cat >names.webnn <<'GRAPH'
webnn_graph "names" v1 {
  inputs { x: f32[4]; }
  nodes { a/b = relu(x); a_b = neg(x); }
  outputs { a/b; a_b; }
}
GRAPH
expect 0 "" -- "$tool" run names.webnn --input x=x.npy --output-dir nd
has "a_b: float32 [4] -> nd/a_b.npy" out.txt
has "a/b: float32 [4] -> nd/a_b_2.npy" out.txt
has "a_b_2.npy" err.txt
[[ -s nd/a_b.npy && -s nd/a_b_2.npy ]] || fail "run --output-dir wrote $(ls nd)"
expect 0 "" -- "$tool" run g.webnn --input x=nd/a_b.npy
has "values: 0.5 0 1.5 0" out.txt
expect 0 "" -- "$tool" run g.webnn --input x=nd/a_b_2.npy
has "values: 0 1 0 2" out.txt

# ---- no output is an input ----
expect 1 "refusing to write" -- "$tool" run g.webnn --input x=outs/y.npy --output-dir outs
cp g.webnn g-copy.webnn
expect 1 "refusing to write" -- "$tool" convert g.webnn --to webnn -o g.webnn
expect 1 "refusing to write" -- "$tool" dot g.webnn -o g.webnn
cmp -s g.webnn g-copy.webnn || fail "a refused output changed g.webnn"
cp g.onnx g-copy.onnx
expect 1 "refusing to write \`g.onnx\`" -- "$tool" convert-onnx g.onnx -o g.onnx
expect 1 "refusing to write \`g.onnx\`" -- "$tool" convert-onnx g.onnx -o co.webnn --weights g.onnx
expect 1 "refusing to write" -- "$tool" convert-onnx g.onnx -o co.webnn --weights co.webnn
cmp -s g.onnx g-copy.onnx || fail "convert-onnx overwrote its input g.onnx"
[[ ! -e co.webnn ]] || fail "a refused convert-onnx wrote co.webnn"
printf 'test_x: unsupported: a reason\n' >exp.txt
cp exp.txt exp-copy.txt
expect 1 "refusing to write" -- "$tool" onnx-tests --data no-such-data --backend reference \
  --expectations exp.txt --report exp.txt
cmp -s exp.txt exp-copy.txt || fail "onnx-tests --report overwrote its expectations file"
no_temporaries .

# ---- inline-weights: a manifest length that does not fit the declaration ----
printf 'WGWT\x01\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x80\x3f' >w4.weights
cat >m4.json <<'JSON'
{"format": "wg-weights-manifest", "version": 1, "endianness": "little",
 "tensors": {"w": {"dataType": "float32", "shape": [2], "byteOffset": 8, "byteLength": 8}}}
JSON
expect 1 "Const 'w'" -- "$tool" inline-weights --input gw.webnn --weights w4.weights \
  --manifest m4.json --output gi.json
has "byteLength 8" err.txt
has "needs 16 bytes" err.txt
[[ ! -e gi.json ]] || fail "inline-weights wrote gi.json for a length mismatch"
expect 1 "refusing to write" -- "$tool" inline-weights --input gw.webnn --weights w4.weights \
  --manifest m4.json --output m4.json

# ---- planted symlinks at the old fixed temporary names are never followed ----
printf 'precious\n' >victim.txt
cp victim.txt victim-copy.txt
mkdir -p fakebin
# A stand-in for Graphviz: `dot -Tsvg -o OUT IN` copies IN to OUT.
printf '#!/bin/sh\ncp "$4" "$3"\n' >fakebin/dot
chmod +x fakebin/dot
ln -s victim.txt .g.svg.dot
ln -s victim.txt g.svg
PATH="$PWD/fakebin:$PATH" expect 0 "" -- "$tool" dot g.webnn --svg g.svg
cmp -s victim.txt victim-copy.txt || fail "dot --svg wrote through a planted symlink"
[[ -f g.svg && ! -L g.svg ]] || fail "dot --svg did not replace the g.svg symlink by a file"
has "digraph" g.svg
rm -f .g.svg.dot
no_temporaries .
mkdir -p rep
ln -s ../victim.txt rep/r.json.tmp
expect 77 "" -- "$tool" onnx-tests --data no-such-data --backend reference --report rep/r.json
cmp -s victim.txt victim-copy.txt || fail "the report writer wrote through a planted symlink"
[[ -f rep/r.json && ! -L rep/r.json ]] || fail "onnx-tests --report wrote no regular rep/r.json"
has '"skip_reason"' rep/r.json

# ---- convert-onnx writes the graph and its weights together: all or none ----
expect 0 "" -- "$tool" convert-onnx g.onnx -o co.webnn
[[ -s co.webnn && -s co.safetensors ]] || fail "convert-onnx wrote $(ls co.*)"
expect 0 "" -- "$tool" run co.webnn --input x=x.npy
has "values: 0 2 0 4" out.txt
no_temporaries .
if command -v cc >/dev/null; then
  # An LD_PRELOAD shim that fails rename() onto one file name ($CPPNN_FAIL_RENAME_TO).
  cat >fail_rename.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
int rename(const char* from, const char* to) {
  static int (*real)(const char*, const char*);
  if (!real) real = (int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename");
  const char* fail = getenv("CPPNN_FAIL_RENAME_TO");
  const char* base = strrchr(to, '/');
  base = base ? base + 1 : to;
  if (fail && strcmp(base, fail) == 0) {
    errno = EIO;
    return -1;
  }
  return real(from, to);
}
C
  if cc -shared -fPIC -o fail_rename.so fail_rename.c -ldl 2>cc.txt; then
    printf 'OLD GRAPH\n' >old.webnn
    printf 'OLD WEIGHTS\n' >old.safetensors
    cp old.webnn old-copy.webnn
    cp old.safetensors old-copy.safetensors
    CPPNN_FAIL_RENAME_TO=old.webnn LD_PRELOAD="$PWD/fail_rename.so" \
      ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
      expect 1 "old.webnn" -- "$tool" convert-onnx g.onnx -o old.webnn
    cmp -s old.webnn old-copy.webnn || fail "a failed convert-onnx changed old.webnn"
    cmp -s old.safetensors old-copy.safetensors ||
      fail "a failed convert-onnx lost the previous old.safetensors: $(ls old* 2>&1)"
    no_temporaries .
  else
    echo "note: no LD_PRELOAD shim ($(head -c 300 cc.txt)); the all-or-none check is skipped" >&2
  fi
fi

# ---- SIGTERM during a long write leaves no temporary behind ----
mkdir -p big
truncate -s 1G big/a.bin
cat >big/m.json <<'JSON'
{"format": "wg-weights-manifest", "version": 1, "endianness": "little",
 "tensors": {"a": {"dataType": "uint8", "shape": [1073741824], "byteOffset": 8,
                   "byteLength": 1073741824}}}
JSON
"$tool" pack-weights --manifest big/m.json --input-dir big --output big/w.weights \
  >/dev/null 2>sig.txt &
pid=$!
for _ in $(seq 1 500); do
  compgen -G "big/.w.weights.tmp-*" >/dev/null && break
  sleep 0.01
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [[ $rc -eq 0 ]]; then
  echo "note: pack-weights finished before SIGTERM; the signal check proved nothing" >&2
else
  [[ $rc -eq 143 ]] || fail "pack-weights after SIGTERM exited $rc, expected 143: $(cat sig.txt)"
  [[ ! -e big/w.weights ]] || fail "pack-weights killed by SIGTERM left big/w.weights"
  no_temporaries big
fi
rm -rf big

# ---- unused --override-dim / --input-shape names are warned about (the importer's warnings) ----
expect 0 "" -- "$tool" run g.onnx --override-dim nosuchdim=5 --input x=x.npy
grep -q "warning:.*nosuchdim" err.txt || fail "run --override-dim nosuchdim=5: no warning: $(cat err.txt)"
expect 0 "" -- "$tool" convert-onnx g.onnx -o cw.webnn --input-shape nosuchinput=4
grep -q "warning:.*nosuchinput" err.txt ||
  fail "convert-onnx --input-shape nosuchinput=4: no warning: $(cat err.txt)"

if [[ $fails -ne 0 ]]; then
  echo "cli: $fails failure(s)" >&2
  exit 1
fi
echo "cli: all checks passed"
