#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang++, ASan+UBSan) in build-fuzz and runs them.
#
#   scripts/fuzz.sh bounded            every target ~15 s from its seed corpus (CI, `make test`)
#   scripts/fuzz.sh long SECONDS       every target SECONDS seconds (`make fuzz`)
#   scripts/fuzz.sh build              build only
#   ... [TARGET...]                    restrict to some targets (names as in tests/fuzz/*_fuzz.cpp)
#
# Seeds are read from tests/fuzz/corpus/<target>/ (with tests/fuzz/<target>.dict as a libFuzzer
# dictionary when present) and never written; new inputs go to
# build-fuzz/corpus/<target>/, crash reproducers to build-fuzz/artifacts/. Exit status 1 when any
# target crashed, leaked or hit a sanitizer error, 2 on a build failure. Environment:
# FUZZ_BUILD (build folder), FUZZ_CXX (compiler, default clang++-14 or clang++), FUZZ_JOBS.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD:-$root/build-fuzz}"
mode="${1:-bounded}"
shift || true
seconds=15
if [[ "$mode" == "long" ]]; then
  seconds="${1:?usage: scripts/fuzz.sh long SECONDS [TARGET...]}"
  shift
elif [[ "$mode" != "bounded" && "$mode" != "build" ]]; then
  echo "usage: scripts/fuzz.sh bounded|long SECONDS|build [TARGET...]" >&2
  exit 2
fi

cxx="${FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}"
if [[ -z "$cxx" ]]; then
  echo "fuzz: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DCPPNN_FUZZ=ON -DCPPNN_BUILD_TESTS=OFF \
    -DCPPNN_BUILD_TOOLS=OFF -DCPPNN_WERROR=OFF >/dev/null || exit 2
fi
cmake --build "$build" --target cppnn_fuzzers -j "${FUZZ_JOBS:-$(nproc)}" || exit 2
[[ "$mode" == "build" ]] && exit 0

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for src in "$root"/tests/fuzz/*_fuzz.cpp; do
    name="$(basename "$src" .cpp)"
    targets+=("${name%_fuzz}")
  done
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=()
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  seeds="$root/tests/fuzz/corpus/$t"
  work="$build/corpus/$t"
  artifacts="$build/artifacts/$t"
  mkdir -p "$work" "$artifacts"
  [[ -d "$seeds" ]] || { echo "fuzz: no seed corpus $seeds" >&2; failed+=("$t"); continue; }
  log="$build/fuzz-$t.log"
  extra=()  # ONNX's own test models (Debian libonnx-testdata) seed the importer when present
  [[ "$t" == onnx_import && -d /usr/share/libonnx-testdata/data/node ]] &&
    extra=(/usr/share/libonnx-testdata/data/node)
  dict=()
  [[ -f "$root/tests/fuzz/$t.dict" ]] && dict=(-dict="$root/tests/fuzz/$t.dict")
  echo "fuzz: $t for ${seconds}s (log $log)"
  if "$bin" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "$seeds" "${extra[@]}" >"$log" 2>&1; then
    grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" | \
      sed "s/^/  /" || true
  else
    echo "fuzz: $t FAILED, see $log and $artifacts/" >&2
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$log" | head -5 >&2 || true
    failed+=("$t")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failures in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran clean"
