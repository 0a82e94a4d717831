#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang-14 (ASan + UBSan + fuzzer) and runs each for
# SECONDS (default 60). Fails on any crash, leak, sanitizer report, timeout or memory-limit
# breach; the input that caused it is kept under fuzz/out/ — minimise it with
#   build-fuzz/fuzz/fuzz_NAME -minimize_crash=1 -runs=100000 fuzz/out/NAME-crash-...
# and commit it to fuzz/regressions/NAME/, which every test run replays.
# Longer runs: PROFPACK_FUZZ_SEED=0 bash fuzz/run-all.sh 3600
#   (or one harness: build-fuzz/fuzz/fuzz_NAME -dict=fuzz/NAME.dict fuzz/corpus/NAME ...)
# An acceptance campaign counts executions rather than seconds, and can be split over cores:
#   PROFPACK_FUZZ_SEED=0 PROFPACK_FUZZ_RUNS=10000000 PROFPACK_FUZZ_ONLY="callgrind xray" \
#     bash fuzz/run-all.sh 0
# PROFPACK_FUZZ_MAX_LEN caps input length (libFuzzer -max_len): the binary gperftools harness
# is ~3x faster at 4096 than at the 15 KB of its largest seed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
# A fixed seed makes the short CI run repeatable (a finding there is never luck of the draw);
# exploratory runs pass PROFPACK_FUZZ_SEED=0 for a random one.
seed=${PROFPACK_FUZZ_SEED:-1}
runs=${PROFPACK_FUZZ_RUNS:--1}
only=${PROFPACK_FUZZ_ONLY:-}
extra=()
[ -n "${PROFPACK_FUZZ_MAX_LEN:-}" ] && extra+=(-max_len="$PROFPACK_FUZZ_MAX_LEN")
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang-14 CXX=clang++-14 meson setup build-fuzz -Dfuzzing=true -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false -Dcpp_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C build-fuzz >/dev/null
mkdir -p fuzz/out
status=0
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for exe in build-fuzz/fuzz/fuzz_*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  name=${exe##*/fuzz_}
  if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then continue; fi
  work=$(mktemp -d)
  log=fuzz/out/$name.log
  if "$exe" "$work" "fuzz/corpus/$name" "fuzz/regressions/$name" -dict="fuzz/$name.dict" \
      -max_total_time="$secs" -runs="$runs" "${extra[@]}" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
      -seed="$seed" -print_final_stats=1 -artifact_prefix="fuzz/out/$name-" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "ok   fuzz $name: $execs execs, $cov, $(date -u +%FT%TZ)"
  else
    echo "FAIL fuzz $name: finding, see $log"; tail -30 "$log"; status=1
  fi
  rm -rf "$work"
done
exit $status
