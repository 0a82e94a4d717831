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
# PROFPACK_FUZZ_JOBS (default 2) harnesses run at once.
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
bash fuzz/setup-tree.sh || { echo "FAIL fuzz: no build tree"; exit 1; }
# The harnesses only: run alone, this builds no more than they need (under scripts/test.sh the
# whole tree is built and tested already).
targets=()
for src in fuzz/fuzz_*.cpp; do
  name=${src#fuzz/fuzz_}; targets+=("fuzz/fuzz_${name%.cpp}")
done
if ! ninja -C build-fuzz -j2 "${targets[@]}" >build-fuzz/build.log 2>&1; then
  echo "FAIL fuzz: the harnesses did not build (build-fuzz/build.log):"
  grep -E 'error|undefined reference' build-fuzz/build.log | head -20
  exit 1
fi
mkdir -p fuzz/out
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# run_one NAME: one harness for SECONDS; its verdict line goes to fuzz/out/NAME.result.
run_one() {
  local name=$1 exe=build-fuzz/fuzz/fuzz_$1 work log=fuzz/out/$1.log
  work=$(mktemp -d)
  if "$exe" "$work" "fuzz/corpus/$name" "fuzz/regressions/$name" -dict="fuzz/$name.dict" \
      -max_total_time="$secs" -runs="$runs" "${extra[@]}" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
      -seed="$seed" -print_final_stats=1 -artifact_prefix="fuzz/out/$name-" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "ok   fuzz $name: $execs execs, $cov, $(date -u +%FT%TZ)" > "fuzz/out/$name.result"
  else
    { echo "FAIL fuzz $name: finding, see $log"; tail -30 "$log"; } > "fuzz/out/$name.result"
  fi
  rm -rf "$work"
}
# PROFPACK_FUZZ_JOBS harnesses run at once (default 2, the project machine's cores; each is
# one process on one core, so two at a time halve the wall time without cutting any run short).
jobs_max=${PROFPACK_FUZZ_JOBS:-2}
names=()
for exe in build-fuzz/fuzz/fuzz_*; do
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  name=${exe##*/fuzz_}
  if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then continue; fi
  names+=("$name")
  rm -f "fuzz/out/$name.result"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run_one "$name" &
done
wait
status=0
for name in "${names[@]}"; do
  if [ -f "fuzz/out/$name.result" ]; then cat "fuzz/out/$name.result"; else
    echo "FAIL fuzz $name: no result (the runner itself failed)"; fi
  grep -q '^ok ' "fuzz/out/$name.result" 2>/dev/null || status=1
done
[ "${#names[@]}" -gt 0 ] || [ -n "$only" ] || { echo "FAIL fuzz: no harness was built"; status=1; }
exit $status
