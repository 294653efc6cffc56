#!/usr/bin/env bash
# Checks the family map (include/cppnn/ops.def's 5th column, docs/extending.md "The family map"):
# for every CPPNN_OP(E, method, S, O, family) line, src/ops/<family>.cpp,
# src/backends/reference/<family>_kernels.cpp, src/export/onnx/lower_<family>.cpp,
# src/export/coreml/lower_<family>.cpp and src/export/tflite/lower_<family>.cpp exist and name the
# method as a whole word, and
# src/passes/decompose/<family>.cpp exists.
# Usage: family_map_test.sh SRC_DIR (the repository root). Exits 1 on any mismatch.
set -u
src="${1:?usage: family_map_test.sh SRC_DIR}"
defs="$src/include/cppnn/ops.def"
[[ -f "$defs" ]] || { echo "family-map: no $defs"; exit 1; }

passed=0
failed=0

# Records one failed check with its reason.
fail() {
  echo "FAIL: $1"
  failed=$((failed + 1))
}

# Checks that file $2 exists and, when $3 is set, names method $3 as a whole word (op $1).
check_file() {
  local op="$1" file="$2" method="${3:-}"
  if [[ ! -f "$src/$file" ]]; then
    fail "$op: $file does not exist"
  elif [[ -n "$method" ]] && ! grep -qw -- "$method" "$src/$file"; then
    fail "$op: $file does not name $method"
  else
    passed=$((passed + 1))
  fi
}

ops=0
while IFS= read -r line; do
  fields="${line#CPPNN_OP(}"
  fields="${fields%)*}"
  IFS=',' read -r enum method _sig _opts family <<<"$fields"
  enum="${enum// /}" method="${method// /}" family="${family// /}"
  if [[ -z "$method" || -z "$family" ]]; then
    fail "malformed line: $line"
    continue
  fi
  ops=$((ops + 1))
  check_file "$method" "src/ops/$family.cpp" "$method"
  check_file "$method" "src/backends/reference/${family}_kernels.cpp" "$method"
  check_file "$method" "src/export/onnx/lower_$family.cpp" "lower_$method"
  check_file "$method" "src/export/coreml/lower_$family.cpp" "lower_$method"
  check_file "$method" "src/export/tflite/lower_$family.cpp" "lower_$method"
  check_file "$method" "src/passes/decompose/$family.cpp"
done < <(grep -E '^CPPNN_OP\(' "$defs")

[[ $ops -gt 0 ]] || fail "no CPPNN_OP lines in $defs"
echo "family-map: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
