#!/usr/bin/env bash
# Lists every function the C header exports that a binding never calls, or that docs/api.md's
# table does not name in full. Exits 1 if the binding named (go, swift or python) or docs/api.md
# (docs) leaves any out; default all three.
#   bash scripts/check-binding-coverage.sh [go|swift|python|docs]...
set -euo pipefail
cd "$(dirname "$0")/.."
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(go swift python docs)
exported=$(grep -o 'PROFPACK_API [^(]*\bprofpack_[a-z_]*(' include/profpack/profpack.h |
  grep -o 'profpack_[a-z_]*(' | tr -d '(' | sort -u)
status=0
for lang in "${langs[@]}"; do
  case $lang in
    go) files=$(ls bindings/go/profpack/*.go | grep -v _test.go); pattern='C\.%s\(' ;;
    swift) files=$(ls bindings/swift/Sources/Profpack/*.swift); pattern='(^|[^a-z_])%s\(' ;;
    python) files=$(ls bindings/python/profpack/*.py); pattern='lib\.%s\(' ;;
    docs) # the C column of docs/api.md's table of operations
      files=$(mktemp); trap 'rm -f "$files"' EXIT
      awk -F'|' '/^\| operation \|/ {on = 1} on && /^\|/ {print $3} on && !/^\|/ {exit}' \
        docs/api.md >"$files"
      pattern='`%s`' ;;
    *) echo "unknown binding $lang"; exit 2 ;;
  esac
  missing=()
  for f in $exported; do
    # shellcheck disable=SC2059,SC2086
    grep -qE "$(printf "$pattern" "$f")" $files || missing+=("$f")
  done
  n=$(echo "$exported" | wc -l)
  if [ ${#missing[@]} -eq 0 ]; then
    echo "ok   $lang names all $n exported functions"
  else
    echo "FAIL $lang names $((n - ${#missing[@]})) of $n exported functions; not: ${missing[*]}"
    status=1
  fi
done
exit $status
