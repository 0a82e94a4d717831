#!/usr/bin/env bash
# Benchmark (not a test): cross-format conversions against the reference tools doing the same
# conversion on the same file in the same run; wall time and peak RSS from bench/lib.sh.
#   gperftools -> callgrind   profpack convert --to callgrind  vs  go tool pprof -callgrind
#   gperftools -> pprof       profpack convert --to pprof      vs  go tool pprof -proto
#   XRay -> trace events      profpack convert --to trace-event
#                             vs  llvm-xray-14 convert --output-format=trace_event
# Neither side symbolizes (pprof: -symbolize=none; llvm-xray: no --symbolize). Each figure is
# the median of BENCH_RUNS runs (default 5), the two sides alternating (measure_pair in
# bench/lib.sh): single conversions on a shared machine vary by a third from run to run, and
# alternating gives both the same conditions.
# usage: bench/bench_convert.sh [BUILD_DIR] [GPERF_MB] [XRAY_ROUNDS]
#   GPERF_MB (default 50): size of the synthetic gperftools profile (bench/gen_gperf_large.py,
#   100000 distinct chains with Zipf popularity, from the real tests/data profile);
#   XRAY_ROUNDS (default 3600, about 60 MB): ROUNDS of tests/xray/make-traces.sh's fdr-big trace.
# Aim: >= 20x faster and <= 0.1x the memory of the reference tool.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
mb=${2:-50}
iters=${3:-3600}
cli=$build/tools/profpack
[ -x "$cli" ] && [ -x "$build/bench/first_touch" ] || { echo "build first: ninja -C $build"; exit 1; }
command -v go >/dev/null || { echo "go not installed (go tool pprof)"; exit 1; }
command -v llvm-xray-14 >/dev/null || { echo "llvm-xray-14 not installed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"

. "$(dirname "$0")/lib.sh"  # measure_pair
export BENCH_RUNS=${BENCH_RUNS:-5}
compare() {  # label size "ours..." -- "theirs...": one line with both figures and the ratios
  local label=$1 size=$2; shift 2
  read -r w1 r1 w2 r2 lo1 hi1 lo2 hi2 < <(measure_pair "$@")
  awk -v l="$label" -v s="$size" -v w1="$w1" -v r1="$r1" -v w2="$w2" -v r2="$r2" \
    -v lo1="$lo1" -v hi1="$hi1" -v lo2="$lo2" -v hi2="$hi2" 'BEGIN {
    printf "%-26s profpack %6.3f s %7.1f MB | reference %7.2f s %7.1f MB | %5.1fx faster, %.3fx the memory\n",
      l, w1, r1 / 1024, w2, r2 / 1024, (w1 > 0 ? w2 / w1 : 0), r1 / r2
    printf "  spread: profpack %.3f-%.3f s, reference %.2f-%.2f s\n", lo1, hi1, lo2, hi2 }'
}

# The host's state (bench/first_touch.cpp): the first touch of 32 MB of fresh memory on huge
# pages in three processes in a row, and on 4 KiB pages. A conversion of the 50 MB gperftools
# profile touches about that much, on huge pages (the CLI's heap and the reader's table).
host_state() {
  local h1 h2 h3 small
  read -r _ h1 _ small < <("$build/bench/first_touch" 32)
  read -r _ h2 _ _ < <("$build/bench/first_touch" 32)
  read -r _ h3 _ _ < <("$build/bench/first_touch" 32)
  echo "$1: first touch of 32 MB: huge pages $h1, $h2, $h3 ms; 4 KiB pages $small ms"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
host_state "host before"
python3 "$here/bench/gen_gperf_large.py" "$here/tests/data/gperftools/workload.64le.prof" \
  "$tmp/zipf.prof" --mb "$mb" --distinct 100000 >/dev/null
prof=$tmp/zipf.prof
psize=$(stat -c %s "$prof")
echo "gperftools profile: synthetic, $(awk -v s="$psize" 'BEGIN{printf "%.1f", s/1e6}') MB"
compare "gperftools -> callgrind" "$psize" "$cli" convert "$prof" --to callgrind -o "$tmp/p.cg" \
  -- go tool pprof -callgrind -symbolize=none -output "$tmp/g.cg" "$prof"
compare "gperftools -> pprof" "$psize" "$cli" convert "$prof" --to pprof -o "$tmp/p.pb.gz" \
  -- go tool pprof -proto -symbolize=none -output "$tmp/g.pb.gz" "$prof"
echo "  sizes: callgrind $(stat -c %s "$tmp/p.cg") vs $(stat -c %s "$tmp/g.cg") bytes;" \
  "pprof $(stat -c %s "$tmp/p.pb.gz") vs $(stat -c %s "$tmp/g.pb.gz") bytes"

ROUNDS=$iters "$here/tests/xray/make-traces.sh" "$tmp/xray" >/dev/null 2>&1
trace=$(ls "$tmp"/xray/fdr-big.* | head -1)
tsize=$(stat -c %s "$trace")
echo "XRay trace: FDR, $(awk -v s="$tsize" 'BEGIN{printf "%.1f", s/1e6}') MB"
compare "xray -> trace-event" "$tsize" "$cli" convert "$trace" --to trace-event -o "$tmp/p.json" \
  -- llvm-xray-14 convert --output-format=trace_event "$trace" -o "$tmp/l.json"
echo "  sizes: $(stat -c %s "$tmp/p.json") vs $(stat -c %s "$tmp/l.json") bytes"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
host_state "host after"
