#!/usr/bin/env bash
# cppnn-ocr on untrusted inputs. Malformed images (zero or huge declared dimensions, truncated
# PNGs, random bytes, an empty file, a directory, a FIFO) and fonts (random bytes, DejaVu Sans
# cut at several lengths, table offsets past the end, a bad indexToLocFormat, a directory, a
# FIFO) must fail with exit 1 and `Error: ...` naming the file, never crash or hang; none of
# these needs the models (images and fonts are checked before the graphs load). With --alpha:
# text drawn only in the alpha channel of a PNG (black everywhere, transparent paper) must read
# as the demo's lines, which needs the PaddleOCR v4 models (exit 77 without them).
# usage: ocr_inputs_test.sh CPPNN_OCR
#        ocr_inputs_test.sh --alpha CPPNN_OCR CPPNN MODELS_DIR WORK_DIR
set -u
alpha=0
if [[ "${1:-}" == "--alpha" ]]; then
  alpha=1
  shift
fi
ocr="$(realpath "${1:?usage: ocr_inputs_test.sh [--alpha] CPPNN_OCR [CPPNN MODELS_DIR WORK_DIR]}")"
if [[ $alpha -eq 1 ]]; then
  tool="$(realpath "${2:?usage: ocr_inputs_test.sh --alpha CPPNN_OCR CPPNN MODELS_DIR WORK_DIR}")"
  models="$(realpath -m "${3:?}")" work="$(realpath -m "${4:?}")"
fi
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# png FILE WIDTH HEIGHT COLOR_TYPE [BYTES_PER_PIXEL]: a PNG of one gray level (python3 + zlib).
png() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
path, w, h, ct = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ct]
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
rows = min(h, 64)  # huge images: only a few rows of data (the declared size is what matters)
raw = b"".join(b"\0" + bytes([200]) * (bpp * min(w, 4096)) for _ in range(rows))
data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ct, 0, 0, 0)) +
        chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open(path, "wb").write(data)
PY
}

# expect_error PATTERN FILE -- ARGS...: cppnn-ocr ARGS exits 1 within 60 s, its stderr starts
# with `Error: ` and names FILE, and contains PATTERN.
expect_error() {
  local pattern="$1" file="$2"
  shift 3
  timeout 60 "$ocr" "$@" >out.txt 2>err.txt </dev/null
  local rc=$?
  if [[ $rc -eq 124 ]]; then
    fail "cppnn-ocr $* hangs"
    return
  fi
  [[ $rc -eq 1 ]] || fail "cppnn-ocr $* exited $rc, expected 1: $(head -c 2000 err.txt)"
  grep -q "^Error: " err.txt || fail "cppnn-ocr $*: no \"Error: \" in: $(head -c 2000 err.txt)"
  grep -qF -- "$file" err.txt || fail "cppnn-ocr $*: the message does not name $file: $(cat err.txt)"
  grep -qF -- "$pattern" err.txt || fail "cppnn-ocr $*: no \"$pattern\" in: $(cat err.txt)"
}

if [[ $alpha -eq 0 ]]; then
  # ---- images: checked before the models load, so none is needed ----
  printf 'P6\n320 0\n255\n' >zero-height.ppm
  expect_error "both dimensions must be positive" zero-height.ppm -- zero-height.ppm
  printf 'P6\n0 240\n255\n' >zero-width.ppm
  expect_error "both dimensions must be positive" zero-width.ppm -- zero-width.ppm
  printf 'P5\n0 0\n255\n' >zero.pgm
  expect_error "zero.pgm" zero.pgm -- zero.pgm
  png zero-width.png 0 16 2
  expect_error "cannot read image" zero-width.png -- zero-width.png
  # 16384 x 16385 and 30000 x 30000 pixels: more than 2^28, refused before decoding (stb_image
  # itself would allocate them).
  printf 'P6\n16384 16385\n255\n' >huge.ppm
  expect_error "more than the limit of 2^28" huge.ppm -- huge.ppm
  png huge.png 30000 30000 0
  expect_error "more than the limit of 2^28" huge.png -- huge.png
  png huge-rgb.png 20000 20000 2
  expect_error "cannot read image" huge-rgb.png -- huge-rgb.png
  printf 'P6\n16777216 16777216\n255\n' >huger.ppm
  expect_error "huger.ppm" huger.ppm -- huger.ppm
  # A valid image cut short.
  png small.png 64 48 6
  size=$(stat -c %s small.png)
  for n in 4 8 16 29 33 45 $((size / 2)) $((size - 13)); do
    head -c "$n" small.png >"cut-$n.png"
    expect_error "cannot read image" "cut-$n.png" -- "cut-$n.png"
  done
  head -c 3000 /dev/zero | tr '\0' 'x' >noise.bin
  expect_error "cannot read image" noise.bin -- noise.bin
  : >empty.png
  expect_error "empty" empty.png -- empty.png
  mkdir folder.png
  expect_error "directory" folder.png -- folder.png
  mkfifo fifo.png
  expect_error "not a regular file" fifo.png -- fifo.png
  expect_error "not a regular file" /dev/null -- /dev/null
  expect_error "cannot read image" missing.png -- missing.png

  # ---- fonts: checked before stb_truetype sees them, and before the models load ----
  python3 -c 'import random; random.seed(7); open("random.ttf", "wb").write(bytes(random.randrange(256) for _ in range(20000)))'
  expect_error "not a TrueType font" random.ttf -- --demo --font random.ttf
  # An sfnt header whose table directory is random.
  python3 -c 'import random; random.seed(8); open("header.ttf", "wb").write(b"\0\1\0\0\0\x10" + bytes(random.randrange(256) for _ in range(4000)))'
  expect_error "not a TrueType font" header.ttf -- --demo --font header.ttf
  : >empty.ttf
  expect_error "not a TrueType font" empty.ttf -- --demo --font empty.ttf
  mkdir folder.ttf
  expect_error "directory" folder.ttf -- --demo --font folder.ttf
  mkfifo fifo.ttf
  expect_error "not a regular file" fifo.ttf -- --demo --font fifo.ttf
  expect_error "cannot read font" missing.ttf -- --demo --font missing.ttf
  if [[ -f "$font" ]]; then
    size=$(stat -c %s "$font")
    for n in 1 11 12 100 400 1000 65536 $((size / 2)) $((size - 1)); do
      head -c "$n" "$font" >"cut-$n.ttf"
      expect_error "not a TrueType font" "cut-$n.ttf" -- --demo --font "cut-$n.ttf"
    done
    # Every table record's offset pointing past the end (then only the first one).
    python3 - "$font" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
count = struct.unpack(">H", data[4:6])[0]
past = bytearray(data)
for i in range(count):
    struct.pack_into(">I", past, 12 + 16 * i + 8, len(data) + 16 * i)
open("past-end.ttf", "wb").write(past)
one = bytearray(data)
struct.pack_into(">I", one, 12 + 8, 0xFFFFFFF0)  # offset + length overflows 32 bits
open("overflow.ttf", "wb").write(one)
glyf = next(i for i in range(count) if data[12 + 16 * i:16 + 16 * i] == b"glyf")
longer = bytearray(data)
struct.pack_into(">I", longer, 12 + 16 * glyf + 12, len(data))  # glyf's length past the end
open("long-glyf.ttf", "wb").write(longer)
head = next(i for i in range(count) if data[12 + 16 * i:16 + 16 * i] == b"head")
offset = struct.unpack(">I", data[12 + 16 * head + 8:12 + 16 * head + 12])[0]
fmt = bytearray(data)
struct.pack_into(">h", fmt, offset + 50, 2)  # indexToLocFormat 2
open("loca-format.ttf", "wb").write(fmt)
PY
    expect_error "ends past the end of the file" past-end.ttf -- --demo --font past-end.ttf
    expect_error "ends past the end of the file" overflow.ttf -- --demo --font overflow.ttf
    expect_error "'glyf'" long-glyf.ttf -- --demo --font long-glyf.ttf
    expect_error "indexToLocFormat" loca-format.ttf -- --demo --font loca-format.ttf
    # The real font passes the checks: the error is then about the missing graph, by name.
    expect_error "cannot read detector graph" "$dir/none.webnn" -- --demo --font "$font" \
      --det "$dir/none.webnn" --rec "$dir/none-rec.webnn" --keys "$dir/none.txt"
    grep -qF "none-rec.webnn" err.txt || fail "the missing recognizer graph is not named: $(cat err.txt)"
  else
    echo "ocr_inputs: $font not installed: the truncated-font checks are skipped"
  fi

  # ---- the default models: found from the executable, whatever the current folder ----
  "$ocr" --help >out.txt 2>&1 || fail "cppnn-ocr --help failed"
  grep -q "executable" out.txt || fail "--help does not say where the default models are"
  models="$(cd "$(dirname "$ocr")/../.." && pwd)/.deps/models"
  if [[ ! -f "$models/det.webnn" ]]; then
    expect_error "cannot read detector graph $models/det.webnn" "$models/det.webnn" -- small.png
  fi

  [[ $fails -eq 0 ]] || { echo "ocr_inputs: $fails failure(s)"; exit 1; }
  echo "ocr_inputs: passed"
  exit 0
fi

# ---- --alpha: text only in the alpha channel is read like the demo ----
for f in ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ppocr_keys_v1.txt; do
  if [[ ! -f "$models/$f" ]]; then
    echo "ocr_inputs --alpha: skipped: no $models/$f (scripts/fetch-models.sh)"
    exit 77
  fi
done
[[ -f "$font" ]] || { echo "ocr_inputs --alpha: skipped: no $font"; exit 77; }
mkdir -p "$work"
convert() {  # NAME DIMS...: the converted graph in WORK, made again when the model is newer
  local name="$1"
  shift
  [[ "$work/$name.webnn" -nt "$models/ch_PP-OCRv4_${name}_infer.onnx" ]] && return 0
  "$tool" convert-onnx "$models/ch_PP-OCRv4_${name}_infer.onnx" -o "$work/$name.webnn" "$@" \
    >/dev/null 2>"$work/convert.txt" || { echo "FAIL: $name conversion: $(cat "$work/convert.txt")"; exit 1; }
}
convert det --override-dim p2o.DynamicDimension.0=1 --override-dim p2o.DynamicDimension.1=640 \
  --override-dim p2o.DynamicDimension.2=640
convert rec --override-dim p2o.DynamicDimension.0=1 --override-dim p2o.DynamicDimension.1=640
args=(--det "$work/det.webnn" --rec "$work/rec.webnn" --keys "$models/ppocr_keys_v1.txt")

"$ocr" --demo --out demo.png "${args[@]}" >demo.txt 2>err.txt || {
  cat demo.txt err.txt
  echo "FAIL: cppnn-ocr --demo failed"
  exit 1
}
# demo.png (RGB, black on white) to RGBA: every pixel black, the ink only in the alpha channel.
python3 - demo.png alpha.png <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w, h, ct = 8, b"", 0, 0, 0
while pos < len(data):
    n, t = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w, h, depth, ct = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ct in (0, 2, 6), (depth, ct)
    elif t == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {0: 1, 2: 3, 6: 4}[ct]
raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
out = bytearray()
for line in rows:
    out.append(0)
    for x in range(w):
        gray = line[x * bpp]
        out += bytes([0, 0, 0, 255 - gray])
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[2], "wb").write(b"\x89PNG\r\n\x1a\n" +
    chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
    chunk(b"IDAT", zlib.compress(bytes(out))) + chunk(b"IEND", b""))
PY
[[ -s alpha.png ]] || { echo "FAIL: could not make alpha.png"; exit 1; }
"$ocr" "${args[@]}" alpha.png >alpha.txt 2>err.txt || fail "cppnn-ocr alpha.png failed: $(cat err.txt)"
cat alpha.txt
diff <(grep '^\[' demo.txt | sed 's/^\[[^]]*\] //') <(grep '^\[' alpha.txt | sed 's/^\[[^]]*\] //') >/dev/null ||
  fail "alpha.png does not read as the demo's lines: $(cat alpha.txt)"
[[ $(grep -c '^\[' alpha.txt) -gt 0 ]] || fail "no text read from alpha.png"

[[ $fails -eq 0 ]] || { echo "ocr_inputs --alpha: $fails failure(s)"; exit 1; }
echo "ocr_inputs --alpha: passed"
