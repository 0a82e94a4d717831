#!/usr/bin/env bash
# Builds profpack and runs every test: the unit, C ABI, reference-tool, ABI and binding suites
# in a normal build, the same suites again under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang-14, in build-fuzz: the tree the fuzz harnesses are built in, so the library is
# compiled with the sanitizers once), the threaded tests under ThreadSanitizer, and each fuzz harness for a short time (a budget
# of PROFPACK_FUZZ_BUDGET seconds, default 120, shared by the harnesses two at a time, at
# least 15 s each; PROFPACK_FUZZ_SECONDS sets the time per harness instead; the long search is
# fuzz/run-all.sh's campaign mode). Needs nothing outside the repository but the packages and
# the test-only .venv scripts/setup.sh installs. Prints the wall time, then
# "N passed, N failed, N skipped" over all of it (skipped: a test that exited 77, saying why)
# as the last line.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
bash scripts/setup.sh

since() { local s=$(($(date +%s) - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
total_pass=0; total_fail=0; total_skip=0
count() {  # count BUILD_DIR: add the results of the last meson test run in BUILD_DIR
  local log="$1/meson-logs/testlog.json"
  local p f s
  p=$(grep -c '"result": "OK"' "$log" || true)
  f=$(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\|UNEXPECTEDPASS\)"' "$log" || true)
  s=$(grep -c '"result": "SKIP"' "$log" || true)
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + s))
}
run_suite() {  # run_suite BUILD_DIR [meson setup args...]
  local dir="$1"; shift
  local t=$(date +%s)
  if [ ! -f "$dir/build.ninja" ]; then meson setup "$dir" "$@" >/dev/null; fi
  # A build that fails is a failure of its own, with the compiler's message (not a missing test).
  if ! ninja -C "$dir" -j2 >"$dir/build-output.txt" 2>&1; then
    echo "   BUILD FAILED in $(since "$t"):"; grep -E "error|FAILED" -A3 "$dir/build-output.txt" | head -30
    total_fail=$((total_fail + 1))
    return 1
  fi
  echo "   built in $(since "$t")"
  local rc=0
  t=$(date +%s)
  meson test -C "$dir" --no-rebuild --num-processes 2 --print-errorlogs || rc=$?
  echo "   tested in $(since "$t")"
  count "$dir"
  return $rc
}

status=0
echo "== build and test (debugoptimized)"
run_suite build || status=1
echo "== build and test under ASan + UBSan (clang-14, with the fuzz harnesses)"
if bash fuzz/setup-tree.sh; then
  run_suite build-fuzz || status=1
else
  total_fail=$((total_fail + 1)); status=1
fi

echo "== ThreadSanitizer: 8 threads converting at once through the C ABI; the cost-table worker"
t=$(date +%s)
if [ ! -f build-tsan/build.ninja ]; then
  # -O1 with line tables: a race report needs no more, and it builds in 60 % of the time.
  meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dbuildtype=plain \
    -Doptimization=1 -Dcpp_args=-g1 -Dc_args=-g1 >/dev/null
fi
# Only what the threads suite runs (test_ir, test_threads and the library it loads).
ninja -C build-tsan -j2 tests/test_threads tests/test_ir >/dev/null
rc=0
TSAN_OPTIONS=halt_on_error=1 meson test -C build-tsan --no-rebuild --suite threads --print-errorlogs || rc=$?
count build-tsan
[ $rc -eq 0 ] || status=1
echo "   built and tested in $(since "$t")"

echo "== fuzz smoke run"
t=$(date +%s)
# Run with bash: a lost executable bit must not skip the fuzzing.
# The budget keeps the whole run within CI's time as harnesses are added; a longer search is
# fuzz/run-all.sh's own campaign mode.
harnesses=$(find fuzz -maxdepth 1 -name 'fuzz_*.cpp' | wc -l)
per=$(( ${PROFPACK_FUZZ_BUDGET:-120} * 2 / (harnesses > 0 ? harnesses : 1) ))
[ "$per" -ge 15 ] || per=15
echo "   $harnesses harnesses, ${PROFPACK_FUZZ_SECONDS:-$per} s each"
if bash fuzz/run-all.sh "${PROFPACK_FUZZ_SECONDS:-$per}"; then
  total_pass=$((total_pass + 1))
else
  total_fail=$((total_fail + 1)); status=1
fi
echo "   built and fuzzed in $(since "$t")"

echo "scripts/test.sh: $(since "$started")"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit $status
