#!/usr/bin/env bash
# The exported ABI of libprofpack.so must stay compatible with the committed baseline
# capi/abi/libprofpack.so.0.abi. Additions pass; a removed or changed function or type fails
# until the baseline is deliberately regenerated with:
#   abidw --exported-interfaces-only --headers-dir include/profpack --drop-private-types \
#         --no-corpus-path --no-comp-dir-path --out-file capi/abi/libprofpack.so.0.abi \
#         build/capi/libprofpack.so
set -uo pipefail
src=${PROFPACK_SOURCE:?}; lib=${PROFPACK_LIB:?}
command -v abidiff >/dev/null || { echo "abidiff not installed (abigail-tools)"; echo "0 passed, 1 failed"; exit 1; }
# Only profpack_* may be exported.
others=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRVW]/ && $3 !~ /^profpack_/ {print $3}')
if [ -n "$others" ]; then
  echo "FAIL exports beyond profpack_*:"; echo "$others" | head; echo "0 passed, 1 failed"; exit 1
fi
echo "ok   only profpack_* exported"
report=$(abidiff --headers-dir2 "$src/include/profpack" "$src/capi/abi/libprofpack.so.0.abi" "$lib")
rc=$?
echo "$report"
# abidiff flags every change with bit 4, additions included: a change is compatible only if
# nothing was removed or changed.
breaking=$(echo "$report" | grep -E 'changes summary: ([1-9][0-9]* Removed|[0-9]+ Removed[^,]*, [1-9][0-9]* Changed)' || true)
if [ $((rc & 1)) -ne 0 ] || [ $((rc & 2)) -ne 0 ] || [ $((rc & 8)) -ne 0 ] || [ -n "$breaking" ]; then
  echo "FAIL ABI incompatible with the baseline (abidiff exit $rc)"; echo "1 passed, 1 failed"; exit 1
fi
echo "ok   ABI compatible with the baseline (abidiff exit $rc)"
echo "2 passed, 0 failed"
