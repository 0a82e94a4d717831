#!/usr/bin/env bash
# The layers include downwards only: lib/formats (the registry and each format) never includes
# lib/symbolize, lib/merge or capi; lib/model, lib/ir and lib/container include none of those
# nor lib/formats. (The registry once included symbolize/ while symbolize called the registry.)
set -uo pipefail
src=${PROFPACK_SOURCE:?}
passed=0 failed=0
layer() {  # DIR PATTERN WHAT
  local hits
  hits=$(grep -rnE "#include \"($2)/" "$src/$1" --include='*.cpp' --include='*.h')
  if [ -z "$hits" ]; then
    echo "ok   $1 includes no $3"; passed=$((passed + 1))
  else
    echo "FAIL $1 includes $3:"; echo "$hits" | sed "s|$src/||"; failed=$((failed + 1))
  fi
}
layer lib/formats 'symbolize|merge|capi|profpack' "symbolize/, merge/ or the C API"
for d in lib/model lib/ir lib/container; do
  layer "$d" 'formats|symbolize|merge|capi|profpack' "formats/, symbolize/, merge/ or the C API"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
