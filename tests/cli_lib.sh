# Shared by the command-line test scripts (source it after setting `tool`): a scratch folder
# (the current directory, removed on exit), `fail MESSAGE` (counted in $fails),
# `expect CODE PATTERN -- COMMAND...` (exit status CODE and PATTERN in stderr; out.txt/err.txt
# keep the command's output) and `has PATTERN FILE` (FILE contains PATTERN).
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
expect() {
  local code="$1" pattern="$2"
  shift 3
  "$@" >out.txt 2>err.txt
  local rc=$?
  [[ $rc -eq $code ]] || fail "$* exited $rc, expected $code: $(cat err.txt)"
  [[ -z "$pattern" ]] || grep -qF -- "$pattern" err.txt || fail "$*: no \"$pattern\" in: $(cat err.txt)"
}
# has PATTERN FILE: FILE contains PATTERN.
has() { grep -qF -- "$1" "$2" || fail "no \"$1\" in $2: $(head -c 2000 "$2")"; }
