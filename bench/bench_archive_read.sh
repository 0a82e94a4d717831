#!/usr/bin/env bash
# Reading one member of a 1,000-member .ppka archive (25 appends of 40 gperftools profiles of
# tests/data/workload.c) and writing it as gperftools, against the same from its single .ppk
# (issue 33: at most 2x, independent of the archive's size). Alternating runs, medians,
# process start included; also a 40-member archive, to show the size does not count.
#   bash bench/bench_archive_read.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:?build dir}; export BENCH_RUNS=${2:-20}
pp=$build/tools/profpack; src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench/lib.sh
source "$src/bench/lib.sh"
prof=$(ls /usr/lib/*/libprofiler.so.0 | head -1)
gcc -g -O1 -pthread -o "$tmp/workload" "$src/tests/data/workload.c"
for i in $(seq 1 40); do
  CPUPROFILE="$tmp/p$i.prof" CPUPROFILE_FREQUENCY=$((500 + (i % 5) * 250)) LD_PRELOAD=$prof \
    "$tmp/workload" $((1 + i % 3)) $((10 + i)) >/dev/null 2>&1
done
for r in $(seq 1 25); do "$pp" archive add "$tmp/big.ppka" "$tmp"/p{1..40}.prof --time "$r"; done
"$pp" archive add "$tmp/small.ppka" "$tmp"/p{1..40}.prof --time 1
"$pp" convert "$tmp/p20.prof" -o "$tmp/one.ppk" --no-symbolize >/dev/null
# member 500 of the big archive is p20 of the 13th append; member 20 of the small one.
read -r wa _ wb _ < <(measure_pair "$pp" archive extract "$tmp/big.ppka" 500 -o "$tmp/a.prof" -- \
  "$pp" convert "$tmp/one.ppk" -o "$tmp/b.prof" --to gperftools)
read -r ws _ < <(measure "$pp" archive extract "$tmp/small.ppka" 20 -o "$tmp/s.prof")
cmp "$tmp/a.prof" "$tmp/p20.prof" && cmp "$tmp/b.prof" "$tmp/p20.prof"
echo "archive of 1000 members ($(stat -c %s "$tmp/big.ppka") bytes): ${wa} s;" \
  "archive of 40: ${ws} s; single .ppk: ${wb} s; ratio $(python3 -c "print(f'{$wa/$wb:.2f}')")"
