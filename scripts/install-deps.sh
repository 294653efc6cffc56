#!/usr/bin/env bash
# Installs the Debian packages cppnn builds with, idempotently: only missing packages are
# installed, and apt-get update runs at most once, only when something is missing. chromium
# (headless) renders the page of `cppnn emit-html` in tests/cli/emit_html_test.py; unicode-data
# is the Unicode Character Database the tokenizer's tables are generated from.
set -euo pipefail

packages=(cmake ninja-build g++ make libgtest-dev googletest nlohmann-json3-dev ccache clang-format pkg-config
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler libbenchmark-dev clang libclang-rt-14-dev
  libstb-dev fonts-dejavu-core chromium flatbuffers-compiler libflatbuffers-dev unicode-data)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
