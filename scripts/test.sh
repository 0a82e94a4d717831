#!/usr/bin/env bash
# Builds profpack and runs every test: the unit, C ABI, reference-tool, ABI and binding suites
# in a normal build, the same suites again under AddressSanitizer + UndefinedBehaviorSanitizer,
# the threads test under ThreadSanitizer, and each fuzz harness for a short time
# (PROFPACK_FUZZ_SECONDS, default 60). Prints "N passed, N failed" over all of it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

total_pass=0; total_fail=0
count() {  # count BUILD_DIR: add the results of the last meson test run in BUILD_DIR
  local log="$1/meson-logs/testlog.json"
  local p f
  p=$(grep -c '"result": "OK"' "$log" || true)
  f=$(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\)"' "$log" || true)
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
}
run_suite() {  # run_suite BUILD_DIR [meson setup args...]
  local dir="$1"; shift
  if [ ! -f "$dir/build.ninja" ]; then meson setup "$dir" "$@" >/dev/null; fi
  ninja -C "$dir" >/dev/null
  local rc=0
  meson test -C "$dir" --num-processes 2 --print-errorlogs || rc=$?
  count "$dir"
  return $rc
}

status=0
echo "== build and test (debugoptimized)"
run_suite build || status=1
echo "== build and test under ASan + UBSan"
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug || status=1

echo "== ThreadSanitizer: 8 threads converting at once through the C ABI; the cost-table worker"
if [ ! -f build-tsan/build.ninja ]; then
  meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null
fi
ninja -C build-tsan tests/test_threads tests/test_ir >/dev/null
rc=0
TSAN_OPTIONS=halt_on_error=1 meson test -C build-tsan --no-rebuild --suite threads --print-errorlogs || rc=$?
count build-tsan
[ $rc -eq 0 ] || status=1

if [ -x fuzz/run-all.sh ]; then
  echo "== fuzz smoke run"
  if bash fuzz/run-all.sh "${PROFPACK_FUZZ_SECONDS:-60}"; then
    total_pass=$((total_pass + 1))
  else
    total_fail=$((total_fail + 1)); status=1
  fi
fi

echo "$total_pass passed, $total_fail failed"
exit $status
