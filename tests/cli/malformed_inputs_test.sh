#!/usr/bin/env bash
# Every cppnn subcommand against a folder of malformed inputs (tests/cli/make_malformed_inputs.py):
# truncated and garbage graphs, ONNX models, SafeTensors sidecars, .npy and weights files, FIFOs,
# folders, 3 GiB sparse files, a symlink out of the folder, NUL and invalid UTF-8 in names, huge
# declared shapes. Each case asserts the exit status (1 bad input; 0 for the valid controls), a
# message naming the file, nothing new left in the folder and no temporary in the output folder,
# at most 1 GiB of resident memory (3 GiB under ASan; and 8 GiB of address space without ASan)
# and 20 seconds (60 under ASan).
# usage: malformed_inputs_test.sh path/to/cppnn   (exit 0 all passed, 1 failures, 77 no python3)
set -u
tool="$(realpath "${1:?usage: malformed_inputs_test.sh path/to/cppnn}")"
here="$(dirname "$(realpath "$0")")"
command -v python3 >/dev/null || { echo "malformed: python3 not found; skipped" >&2; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
M="$work/m"    # the malformed inputs
O="$work/out"  # where the commands write
mkdir -p "$O"
python3 "$here/make_malformed_inputs.py" "$M" || { echo "malformed: the generator failed" >&2; exit 1; }
cd "$work" || exit 2

asan=0
if ldd "$tool" 2>/dev/null | grep -q libasan || nm "$tool" 2>/dev/null | grep -q __asan_init; then
  asan=1
fi
limit=()
[[ $asan -eq 1 ]] || limit=(prlimit --as=$((8 << 30)))
# Peak resident memory per case: 1 GiB; 3 GiB under ASan, whose shadow memory and quarantine
# roughly triple what a process keeps resident.
rss_limit_kb=$((1 << 20))
[[ $asan -eq 1 ]] && rss_limit_kb=$((3 << 20))
# A hang fails the case: 20 s each, 60 s under ASan (several times slower).
case_timeout=20
[[ $asan -eq 1 ]] && case_timeout=60
# As `make test-asan` runs it (ONNX Runtime's process-lifetime allocations are suppressed).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$here/../lsan.supp}"

snapshot() { (cd "$M" && find . -printf '%p %y %s\n' | LC_ALL=C sort); }
before="$(snapshot)"
passed=0
failed=()

# check ID CODES NAMED -- COMMAND...: runs COMMAND (stdin /dev/null) and checks that
# it exits with one of CODES ("1", "0|1", ...), names NAMED on stderr, stays within time and
# memory and leaves the folders clean.
check() {
  local id="$1" codes="$2" named="$3"
  [[ "$4" == "--" ]] || { echo "malformed: check $id: expected -- before the command" >&2; exit 2; }
  shift 4
  : >"$work/rss"
  timeout "$case_timeout" /usr/bin/time -f %M -o "$work/rss" "${limit[@]}" "$@" \
    </dev/null >"$work/out.txt" 2>"$work/err.txt"
  local rc=$? why=()
  [[ "|$codes|" == *"|$rc|"* ]] || why+=("exit $rc, expected $codes$([[ $rc -eq 124 ]] && echo ' (timed out)')")
  # The test runners report their cases on stdout; the other commands' errors go to stderr.
  if [[ -n "$named" && $rc -ne 0 ]] &&
    ! LC_ALL=C grep -qF -- "$named" "$work/err.txt" "$work/out.txt"; then
    why+=("no message names $named")
  fi
  local kb
  kb="$(tail -n 1 "$work/rss")"
  [[ $kb =~ ^[0-9]+$ ]] || kb=0
  [[ $kb -lt $rss_limit_kb ]] || why+=("resident memory $((kb / 1024)) MiB")
  LC_ALL=C grep -q "internal error\|AddressSanitizer\|runtime error" "$work/err.txt" &&
    why+=("an internal or sanitizer error")
  local now
  now="$(snapshot)"
  if [[ "$now" != "$before" ]]; then
    why+=("the folder changed: $(diff <(echo "$before") <(echo "$now") | head -4 | tr '\n' ' ')")
    # Put the folder back for the next cases.
    rm -rf "$M" "$work/outside"
    python3 "$here/make_malformed_inputs.py" "$M" >/dev/null
  fi
  local left
  left="$(find "$O" -name '.*.tmp-*' | head -3)"
  [[ -z "$left" ]] || why+=("temporaries left: $left")
  rm -rf "${O:?}"/* "$O"/.[!.]* 2>/dev/null
  if [[ ${#why[@]} -eq 0 ]]; then
    passed=$((passed + 1))
    return
  fi
  local line="$id: ${why[*]} -- $(head -c 300 "$work/err.txt" | tr '\n' ' ')"
  failed+=("$line")
  echo "FAIL $line" >&2
}

# The commands that load a GRAPH with its weights, those that also build it (validate --strict
# uses zero weights), and those that only parse the document.
weights_commands() {  # FILE CODES NAMED
  local f="$1" codes="$2" named="$3"
  local b
  b="$(basename "$f")"
  check "info $b" "$codes" "$named" -- "$tool" info "$f"
  check "info --json $b" "$codes" "$named" -- "$tool" info "$f" --json
  check "run $b" "$codes" "$named" -- "$tool" run "$f" --inputs zeros --backend reference
  check "bench $b" "$codes" "$named" -- "$tool" bench "$f" --backend reference \
    --iterations 1 --warmup 0
  check "dot $b" "$codes" "$named" -- "$tool" dot "$f" -o "$O/g.dot"
  if [[ $f != *.onnx ]]; then
    check "convert --to onnx $b" "$codes" "$named" -- "$tool" convert "$f" --to onnx \
      -o "$O/g.onnx"
  fi
}
builder_commands() {  # FILE CODES NAMED
  weights_commands "$@"
  local f="$1" codes="$2" named="$3"
  if [[ $f != *.onnx ]]; then
    check "validate --strict $(basename "$f")" "$codes" "$named" -- "$tool" validate \
      --strict "$f"
  fi
}
document_commands() {  # FILE CODES NAMED
  local f="$1" codes="$2" named="$3"
  local b
  b="$(basename "$f")"
  check "validate $b" "$codes" "$named" -- "$tool" validate "$f"
  check "fmt $b" "$codes" "$named" -- "$tool" fmt "$f"
  if [[ $f == *.json ]]; then
    check "serialize $b" "$codes" "$named" -- "$tool" serialize "$f"
  else
    check "parse $b" "$codes" "$named" -- "$tool" parse "$f"
  fi
  check "convert --to json $b" "$codes" "$named" -- "$tool" convert "$f" --to json \
    -o "$O/g.json"
  check "extract-weights $b" "$codes" "$named" -- "$tool" extract-weights --input "$f" \
    --output-dir "$O/x" --weights "$O/x.weights" --manifest "$O/x.json" --output-graph "$O/xg.json"
  check "inline-weights $b" "$codes" "$named" -- "$tool" inline-weights --input "$f" \
    --weights "$M/ok.weights" --manifest "$M/ok.manifest.json" --output "$O/i.json"
}
onnx_commands() {  # FILE CODES NAMED
  local f="$1" codes="$2" named="$3"
  local b
  b="$(basename "$f")"
  builder_commands "$@"
  check "convert-onnx $b" "$codes" "$named" -- "$tool" convert-onnx "$f" -o "$O/c.webnn"
  # compare-onnx needs ONNX Runtime (77: skipped without it).
  check "compare-onnx $b" "$codes|77" "$named" -- "$tool" compare-onnx "$f" \
    --backend reference
  check "compare $b" "$codes|77" "$named" -- "$tool" compare "$f" --backend reference
}

# ---- the valid controls: the commands are right ----
builder_commands "$M/base.webnn" 0 ""
document_commands "$M/base.webnn" 0 ""
builder_commands "$M/base.json" 0 ""
document_commands "$M/base.json" 0 ""
onnx_commands "$M/base.onnx" 0 ""
check "run --input base.npy" 0 "" -- "$tool" run "$M/base.webnn" --input "x=$M/base.npy"
check "inline-weights ok" 0 "" -- "$tool" inline-weights --input "$M/ref.webnn" \
  --weights "$M/ok.weights" --manifest "$M/ok.manifest.json" --output "$O/i.json"
check "unpack-weights ok" 0 "" -- "$tool" unpack-weights --weights "$M/ok.weights" \
  --manifest "$M/ok.manifest.json" --output-dir "$O/un"

# ---- graph files that cannot be read or parsed: every command fails ----
for f in empty.webnn blank.webnn truncated.webnn garbage.webnn bom.webnn \
  binary_after_header.webnn big_version.webnn fifo.webnn folder.webnn sparse.webnn \
  sparse_text.webnn devzero.webnn $'name_\xff\xfe.webnn' \
  empty.json truncated.json garbage.json not_object.json deep.json dim_overflow.json fifo.json \
  folder.json sparse.json; do
  builder_commands "$M/$f" 1 "$f"
  document_commands "$M/$f" 1 "$f"
done
# NUL and invalid UTF-8 in names: refused when the document is read.
for f in nul_name.webnn utf8_name.webnn nul_name.json utf8_name.json; do
  builder_commands "$M/$f" 1 "$f"
  document_commands "$M/$f" 1 "$f"
done
# Documents that parse but do not make a graph: the builder refuses them.
for f in huge_input.webnn huge_input.json huge_bytes_decl.webnn unknown_op.webnn unknown_op.json \
  bad_ref.webnn long_name.webnn; do
  builder_commands "$M/$f" 1 "$f"
done
for f in huge_scalar.webnn huge_scalar.json; do builder_commands "$M/$f" 1 "$f"; done
for f in unknown_option.webnn unknown_option.json; do
  builder_commands "$M/$f" 1 "$f"
done
# Deep nesting: refused or read, never a crash.
builder_commands "$M/deep_option.webnn" "1" "deep_option.webnn"
document_commands "$M/deep_option.webnn" "0|1" "deep_option.webnn"
# A valid graph with 20 MB of inline bytes: memory stays bounded.
for c in info validate fmt; do
  check "$c big_array.json" 0 "" -- "$tool" "$c" "$M/big_array.json"
done
check "convert --to json big_array.json" 0 "" -- "$tool" convert "$M/big_array.json" \
  --to json -o "$O/g.json"

# ---- ONNX models ----
for f in empty.onnx truncated.onnx garbage.onnx huge_dims.onnx huge_init.onnx short_init.onnx \
  fifo.onnx folder.onnx sparse.onnx devzero.onnx; do
  onnx_commands "$M/$f" 1 "$f"
done
# External data outside the model's folder (`..`, an absolute path, a symlink out of it), a FIFO,
# a range past the end: named by its location.
onnx_commands "$M/ext_escape.onnx" 1 "w.bin"
onnx_commands "$M/ext_abs.onnx" 1 "w.bin"
onnx_commands "$M/ext_link.onnx" 1 "ext_link.bin"
onnx_commands "$M/ext_fifo.onnx" 1 "ext.fifo"
onnx_commands "$M/ext_range.onnx" 1 "ext_range.bin"
# Dims files of convert-onnx.
for f in garbage.json fifo.json sparse.json folder.json deep.json; do
  check "convert-onnx --override-dims-file $f" 1 "$f" -- "$tool" convert-onnx "$M/base.onnx" \
    -o "$O/c.webnn" --override-dims-file "$M/$f"
done

# ---- SafeTensors sidecars of a valid graph ----
for s in st_truncated st_hugelen st_badjson st_offsets st_dtype st_shape st_fifo st_folder \
  st_sparse; do
  weights_commands "$M/$s.webnn" 1 "$s.safetensors"
  check "info --weights $s" 1 "$s.safetensors" -- "$tool" info "$M/ref.webnn" \
    --weights "$M/$s.safetensors"
done

# ---- .npy inputs ----
for f in bad_magic.npy truncated.npy header_past_end.npy bad_dict.npy fortran.npy bigendian.npy \
  huge_shape.npy dim_overflow.npy short_data.npy v2_huge_header.npy wrong_shape.npy fifo.npy \
  folder.npy sparse.npy; do
  check "run --input $f" 1 "$f" -- "$tool" run "$M/base.webnn" --input "x=$M/$f"
done
# SafeTensors files as inputs of run.
for s in st_truncated st_hugelen st_badjson st_offsets st_fifo st_folder st_sparse; do
  check "run --input $s.safetensors" 1 "$s.safetensors" -- "$tool" run "$M/base.webnn" \
    --input "$M/$s.safetensors"
done

# ---- weights tools ----
for m in garbage.manifest.json deep.manifest.json fifo.manifest.json huge_offset.manifest.json \
  huge_shape.manifest.json; do
  check "pack-weights --manifest $m" 1 "$m" -- "$tool" pack-weights --manifest "$M/$m" \
    --input-dir "$M/pack_short" --output "$O/p.weights"
  # (the reference's unpack-weights and inline-weights ignore a manifest entry's own shape)
  codes=1
  [[ $m == huge_shape.manifest.json ]] && codes="0|1"
  check "unpack-weights --manifest $m" "$codes" "$m" -- "$tool" unpack-weights \
    --weights "$M/ok.weights" --manifest "$M/$m" --output-dir "$O/un"
  check "inline-weights --manifest $m" "$codes" "$m" -- "$tool" inline-weights \
    --input "$M/ref.webnn" --weights "$M/ok.weights" --manifest "$M/$m" --output "$O/i.json"
done
for d in pack_fifo pack_short pack_folder; do
  check "pack-weights $d" 1 "$d" -- "$tool" pack-weights --manifest "$M/ok.manifest.json" \
    --input-dir "$M/$d" --output "$O/p.weights"
done
for w in truncated.weights garbage.weights fifo.weights folder.weights; do
  check "unpack-weights $w" 1 "$w" -- "$tool" unpack-weights --weights "$M/$w" \
    --manifest "$M/ok.manifest.json" --output-dir "$O/un"
  check "inline-weights $w" 1 "$w" -- "$tool" inline-weights --input "$M/ref.webnn" \
    --weights "$M/$w" --manifest "$M/ok.manifest.json" --output "$O/i.json"
done
# A 3 GiB sparse WGWT file with a valid header: mapped, not read; the 16 bytes it names are used.
check "unpack-weights sparse.weights" 0 "" -- "$tool" unpack-weights --weights "$M/sparse.weights" \
  --manifest "$M/ok.manifest.json" --output-dir "$O/un"
check "inline-weights sparse.weights" 0 "" -- "$tool" inline-weights --input "$M/ref.webnn" \
  --weights "$M/sparse.weights" --manifest "$M/ok.manifest.json" --output "$O/i.json"
for d in cm_badmeta cm_fifo cm_hugemeta; do
  check "create-manifest $d" 1 "$d" -- "$tool" create-manifest --input-dir "$M/$d" \
    --output "$O/m.json"
done
check "extract-weights huge_bytes_decl.webnn" 1 "huge_bytes_decl.webnn" -- "$tool" \
  extract-weights --input "$M/huge_bytes_decl.webnn" --output-dir "$O/x" \
  --weights "$O/x.weights" --manifest "$O/x.json" --output-graph "$O/xg.json"

# ---- the test runners ----
check "onnx-tests malformed data" 1 "test_garbage" -- "$tool" onnx-tests --data "$M/onnxdata" \
  --suite node --backend reference --expectations "$M/no_expectations.txt" --report "$O/r.json" \
  --timeout 20
check "onnx-tests --in-process malformed data" 1 "test_garbage" -- "$tool" onnx-tests \
  --data "$M/onnxdata" --suite node --backend reference --expectations "$M/no_expectations.txt" \
  --report "$O/r.json" --in-process
check "onnx-tests --expectations bad" 1 "bad_expectations.txt" -- "$tool" onnx-tests \
  --data "$M/onnxdata" --suite node --backend reference --expectations "$M/bad_expectations.txt" \
  --report "$O/r.json"
check "onnx-tests --expectations fifo" 1 "fifo.json" -- "$tool" onnx-tests --data "$M/onnxdata" \
  --suite node --backend reference --expectations "$M/fifo.json" --report "$O/r.json"
for f in garbage.json fifo.json deep.json sparse.json $'name_\xff\xfe.webnn'; do
  check "wpt --corpus $f" 1 "$f" -- "$tool" wpt --corpus "$M/$f" --expectations \
    "$M/no_expectations.txt"
done
check "ops --backend bad" 1 "not compiled in" -- "$tool" ops --backend $'\xff'

echo "malformed_inputs: $passed passed, ${#failed[@]} failed, 0 skipped"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "unexpected failures:" >&2
  printf '  %s\n' "${failed[@]}" >&2
fi
[[ ${#failed[@]} -eq 0 ]]
