#!/usr/bin/env bash
# cppnn against the reference tool (webnn-graph, Rust, serde_json) on the same GraphJson and .webnn
# files, in one run: a transformer-like graph of 100k nodes (generated here, the shape of
# bench/parse_bench.cpp's) and a graph holding a 16 MiB inline byte array. Whole processes are
# timed (start, read, parse, check, print), so small files would measure process start-up only:
# parse_bench.cpp measures the readers in-process. Each tool runs
# `validate` and `serialize` (GraphJson -> text) or `parse` (text -> GraphJson) REPEAT times; the
# best wall time gives MB/s of input, and the peak RSS is kept. Both tools' outputs must be
# byte-identical (a check, not only a timing). Writes reports/bench-reference-tool.json.
#
# The reference tool is `webnn-graph` on PATH or $WEBNN_GRAPH (it needs rustc 1.97; with an older
# one: cargo install webnn-graph --version 0.4.0 --ignore-rust-version --root DIR).
# usage: reference_tool_bench.sh path/to/cppnn [REPEAT]   (exit 77 without the reference tool)
set -u
cppnn="$(realpath "${1:?usage: reference_tool_bench.sh path/to/cppnn [REPEAT]}")"
repeat="${2:-7}"
reference="${WEBNN_GRAPH:-$(command -v webnn-graph || true)}"
if [[ -z "$reference" ]]; then
  echo "reference_tool_bench: webnn-graph not found (PATH or WEBNN_GRAPH); skipped" >&2
  exit 77
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]

def transformer(n):
    consts, nodes, prev = [], [], "input_ids"
    for i in range(n):
        layer = f"layers_{i // 8}_"
        out = f"{layer}op_{i}_output_0"
        k = i % 8
        if k == 0:
            w = f"{layer}attn_q_proj_weight"
            consts.append(f'    {w}: f32[64, 64] @weights("{w}");')
            nodes.append(f"    {out} = matmul({prev}, {w});")
        elif k == 1:
            b = f"{layer}attn_bias_{i}"
            consts.append(f"    {b}: f32[64] @scalar(0.125);")
            nodes.append(f"    {out} = add({prev}, {b});")
        elif k == 2:
            nodes.append(f"    {out} = layerNormalization({prev}, axes=[1], epsilon=1e-5);")
        elif k == 3:
            nodes.append(f"    {out} = gelu({prev});")
        elif k == 4:
            nodes.append(f"    {out} = reshape({prev}, newShape=[8, 8, 8]);")
        elif k == 5:
            nodes.append(f'    {out} = softmax({prev}, axis=2, label="attn probs");')
        elif k == 6:
            nodes.append(f"    [{out}, {out}_b] = split({prev}, axis=2, splits=2);")
        else:
            nodes.append(f"    {out} = concat([{prev}, {prev}_b], axis=2);")
        prev = out
    return ('webnn_graph "bench" v2 {\n  inputs {\n    input_ids: f32[dyn("batch", 8), 64];\n  }\n'
            "  consts {\n" + "\n".join(consts) + "\n  }\n  nodes {\n" + "\n".join(nodes) +
            f"\n  }}\n  outputs {{ {prev}; }}\n}}\n")

def inline_bytes(size):
    rng = random.Random(12345)
    data = ", ".join(str(rng.randrange(256)) for _ in range(size))
    return ('webnn_graph "inline" v1 {\n  inputs {\n    x: u8[4];\n  }\n  consts {\n'
            f"    k: u8[{size}] @bytes([{data}]);\n  }}\n  nodes {{\n    y = add(x, k);\n  }}\n"
            "  outputs { y; }\n}\n")

for name, text in (("nodes_100k", transformer(100000)), ("inline_16MiB", inline_bytes(16 << 20))):
    open(f"{work}/{name}.webnn", "w").write(text)
PY
for g in nodes_100k inline_16MiB; do
  # The GraphJson input, written by the reference tool itself.
  "$reference" parse "$work/$g.webnn" >"$work/$g.json" || { echo "reference parse failed: $g" >&2; exit 1; }
done

# measure TOOL COMMAND FILE: "best_wall_s peak_kb" over $repeat runs; the output goes to $work/out.
measure() {
  local best="" peak=0 t kb
  for ((r = 0; r < repeat; r++)); do
    local start=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$work/time" "$1" "$2" "$3" >"$work/out" 2>/dev/null ||
      { echo "$1 $2 $3 failed" >&2; exit 1; }
    t=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }')
    read -r kb <"$work/time"
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best="$t"; fi
    ((kb > peak)) && peak=$kb
  done
  echo "$best $peak"
}

rows=()
printf '%-14s %-10s %12s %12s %8s %12s %12s\n' file command "cppnn MB/s" "ref MB/s" speedup \
  "cppnn MiB" "ref MiB"
for g in nodes_100k inline_16MiB; do
  for cmd in validate:json serialize:json parse:webnn; do
    c="${cmd%%:*}" ext="${cmd##*:}"
    file="$work/$g.$ext"
    bytes=$(stat -c %s "$file")
    read -r ct ck < <(measure "$cppnn" "$c" "$file")
    cp "$work/out" "$work/out.cppnn"
    read -r rt rk < <(measure "$reference" "$c" "$file")
    if [[ $c != validate ]] && ! cmp -s "$work/out" "$work/out.cppnn"; then
      echo "reference_tool_bench: $c $g: the outputs differ" >&2
      exit 1
    fi
    row=$(awk -v b="$bytes" -v ct="$ct" -v rt="$rt" -v ck="$ck" -v rk="$rk" -v g="$g" -v c="$c" \
      'function mbs(t) { return t > 0 ? b / t / 1e6 : 0 }
       BEGIN { printf "%s %s %.1f %.1f %.2f %.1f %.1f", g, c, mbs(ct), mbs(rt),
               (ct > 0 ? rt / ct : 0), ck / 1024, rk / 1024 }')
    read -r _ _ cm rm ratio cmi rmi <<<"$row"
    printf '%-14s %-10s %12s %12s %8s %12s %12s\n' "$g" "$c" "$cm" "$rm" "$ratio" "$cmi" "$rmi"
    rows+=("{\"file\":\"$g.$ext\",\"bytes\":$bytes,\"command\":\"$c\",\"cppnn_mb_s\":$cm,\"reference_mb_s\":$rm,\"speedup\":$ratio,\"cppnn_peak_mib\":$cmi,\"reference_peak_mib\":$rmi}")
  done
done
mkdir -p "$root/reports"
{
  printf '{"reference":"%s","repeat":%d,"results":[' "$("$reference" --version 2>/dev/null || echo webnn-graph)" "$repeat"
  (IFS=,; printf '%s' "${rows[*]}")
  printf ']}\n'
} >"$root/reports/bench-reference-tool.json.tmp" && mv "$root/reports/bench-reference-tool.json.tmp" "$root/reports/bench-reference-tool.json"
echo "reference_tool_bench: ${#rows[@]} passed, 0 failed, 0 skipped (reports/bench-reference-tool.json)"
