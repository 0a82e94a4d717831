#!/usr/bin/env bash
# Benchmark (not a test): symbolizing a gperftools profile from local binaries, against
# `go tool pprof -symbolize=local -top` on the same profile in the same run; wall time and
# peak RSS from bench/lib.sh.
# The profile is made here, so that its binaries are the ones on this machine: the profpack
# CLI of BUILD_DIR (built with -g: libprofpack.so has DWARF with many inline frames) merging 300
# Cachegrind files under libprofiler (the kernel holds the timer to 250 Hz).
# profpack's figure is `profpack symbolize` (reads the profile, looks up every distinct address
# once per binary with elfutils, writes the .ppk) plus `profpack top` on the result; pprof's is
# `-top`, which symbolizes with binutils/llvm-symbolizer and ranks. The same for the small
# tests/data/symbolize profile, whose functions pprof names too.
# usage: bench/bench_symbolize.sh [BUILD_DIR]   (default: build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
cli=$build/tools/profpack
[ -x "$cli" ] || { echo "build first: ninja -C $build"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$PPROF_TMPDIR"
. "$(dirname "$0")/lib.sh"  # measure

prof=$tmp/cli.prof
for i in $(seq 1 300); do
  cp "$here/tests/data/merge/cachegrind.workload.run$(( i % 2 + 1 )).out" "$tmp/cg.$i.out"
done
CPUPROFILE=$prof CPUPROFILE_FREQUENCY=4000 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libprofiler.so.0 \
  "$cli" merge "$tmp"/cg.*.out -o "$tmp/merged.out" --to callgrind 2>/dev/null
rm -f "$tmp"/cg.*.out
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
one() {  # label profile [--binary-path DIR]
  local label=$1 p=$2; shift 2
  echo "$label: $(stat -c %s "$p") bytes, $("$cli" info "$p" | sed -n 's/^records: //p') records"
  read -r w1 r1 < <(measure bash -c "'$cli' symbolize '$p' -o '$tmp/sym.ppk' $* 2>/dev/null && '$cli' top '$tmp/sym.ppk' -n 20")
  read -r w2 r2 < <(measure env PPROF_BINARY_PATH="${PPROF_PATH:-}" go tool pprof -symbolize=local -top -nodecount=20 "$p")
  awk -v w1="$w1" -v r1="$r1" -v w2="$w2" -v r2="$r2" 'BEGIN {
    printf "  symbolize + top | profpack %6.2f s %6.1f MB | go tool pprof %6.2f s %7.1f MB | %5.1fx faster, %.2fx the memory\n",
      w1, r1 / 1024, w2, r2 / 1024, (w1 > 0 ? w2 / w1 : 0), r1 / r2 }'
  echo "  top 3, profpack then pprof:"
  "$cli" top "$tmp/sym.ppk" -n 3 | tail -3 | cut -c1-110
  env PPROF_BINARY_PATH="${PPROF_PATH:-}" go tool pprof -symbolize=local -top -nodecount=3 "$p" 2>/dev/null | tail -3
}
one "profpack merge of 300 Cachegrind files" "$prof"
PPROF_PATH=$here/tests/data/symbolize one "tests/data/symbolize/hot.prof" \
  "$here/tests/data/symbolize/hot.prof" --binary-path "$here/tests/data/symbolize"
