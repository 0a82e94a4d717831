#!/usr/bin/env bash
# Scale benchmark (not a test): a Callgrind file of several GB, made of PARTS copies of the
# cc1plus profile of bench_callgrind.sh concatenated (each copy is one part), converted to .ppk
# and checked: no Cap'n Proto list or segment limit is reached, peak RSS against the input
# size, and the .ppk holds the same IR as the text (`profpack equal` reads both again).
#   bench/bench_callgrind_multipart.sh [BUILD_DIR] [PARTS]   (default: build 150, ~2.6 GB)
# Needs about 2.2x the file size of free disk under $PROFPACK_BENCH_CACHE.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
parts=${2:-150}
cli=$build/tools/profpack
cache=${PROFPACK_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/profpack-bench}
one=$cache/callgrind.cc1plus.out
[ -s "$one" ] || bash "$src/bench/bench_callgrind.sh" "$build" >/dev/null  # makes the profile
big=$cache/callgrind.multipart.out
trap 'rm -f "$big" "$big.ppk"' EXIT
for ((i = 0; i < parts; i++)); do cat "$one"; done > "$big"
size=$(stat -c %s "$big")
echo "input: $parts parts, $(awk -v b="$size" 'BEGIN{printf "%.2f", b/1e9}') GB"
/usr/bin/time -v "$cli" convert "$big" -o "$big.ppk" 2> "$cache/multipart.time"
wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$cache/multipart.time")
cpu=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{print u+s}' "$cache/multipart.time")
rss=$(awk -F: '/Maximum resident set size/{gsub(/ /,"",$2); print $2}' "$cache/multipart.time")
echo "convert: $wall wall, $cpu s CPU = $(awk -v b="$size" -v t="$cpu" 'BEGIN{printf "%.0f", b/1e6/t}') MB/s per CPU second"
echo "peak RSS: $(awk -v r="$rss" 'BEGIN{printf "%.0f", r/1024}') MB = $(awk -v r="$rss" -v b="$size" 'BEGIN{printf "%.2f", r*1024/b}') x input   (target <= 1.5)"
echo ".ppk: $(stat -c %s "$big.ppk") bytes"
"$cli" info "$big.ppk" | sed -n '1,4p'
"$cli" equal "$big" "$big.ppk"
