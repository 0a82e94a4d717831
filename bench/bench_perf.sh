#!/usr/bin/env bash
# perf.data -> folded stacks: `profpack convert --to folded` against `perf script` alone (the
# first half of the usual `perf script | stackcollapse-perf.pl`), on one recording made here of
# tests/data/perf/threads run RUNS times over at a high sampling rate. Prints the wall times
# (medians of REPS runs, alternating) and the ratios.
# Usage: bash bench/bench_perf.sh BUILD_DIR [RUNS] [REPS]
set -euo pipefail
build=${1:?build dir}; runs=${2:-20}; reps=${3:-3}
cli=$build/tools/profpack
src=$(cd "$(dirname "$0")/.." && pwd)/tests/data/perf
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
perf record -q -e cpu-clock -F 20000 -g -o "$tmp/big.data" -- \
  sh -c "for i in \$(seq $runs); do $src/threads >/dev/null; done" 2>/dev/null
wall() {  # wall seconds of one run of "$@"
  local s e
  s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
  python3 -c "print($e - $s)"
}
median() { python3 -c "import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))" "$@"; }
size=$(stat -c %s "$tmp/big.data")
samples=$(perf report -i "$tmp/big.data" --stdio -n --sort comm -g none 2>/dev/null |
  awk '!/^#/ && NF {n += $3} END {print n}')
# Alternating, so that the machine's load falls on both alike; medians of REPS.
P=(); N=(); S=()
for _ in $(seq "$reps"); do
  P+=("$(wall "$cli" convert "$tmp/big.data" --no-symbolize --to folded -o "$tmp/out.folded")")
  # With names, as perf script prints them: symbolize, then folded stacks from the .ppk.
  N+=("$(wall sh -c "'$cli' symbolize '$tmp/big.data' -o '$tmp/big.ppk' --binary-path '$src' &&
    '$cli' convert '$tmp/big.ppk' --to folded -o '$tmp/named.folded'")")
  S+=("$(wall perf script -i "$tmp/big.data")")
done
p=$(median "${P[@]}"); n=$(median "${N[@]}"); s=$(median "${S[@]}")
echo "file: $size bytes, $samples samples (perf report); medians of $reps alternating runs"
echo "profpack convert --no-symbolize --to folded:   ${p}s"
echo "profpack symbolize + convert --to folded:      ${n}s"
echo "perf script:                                   ${s}s"
python3 -c "print(f'ratio: {$s / $p:.1f}x unnamed, {$s / $n:.1f}x named')"
