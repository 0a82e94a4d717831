#!/usr/bin/env bash
# Benchmark (not a test): reading pprof, profpack against go tool pprof on the same file.
# usage: bench/bench_pprof.sh [BUILD_DIR] [SAMPLES]
#
# Makes a large profile from tests/data/pprof/flate-cpu.pb.gz with bench/gen_pprof_large.py
# (SAMPLES samples, default 1,000,000) and times, alternately (bench/lib.sh measure_pair):
#   read   - `profpack info` (read, check, IR, summary) against `go tool pprof -raw` (parse,
#            check, print every sample);
#   top    - `profpack top` against `go tool pprof -top` (the same question);
#   ppk    - `profpack convert -o .ppk` and the .ppk's size against the .pb.gz.
# Wall time is the median of BENCH_RUNS (default 3), memory the largest peak RSS.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
samples=${2:-1000000}
cli=$build/tools/profpack
[ -x "$cli" ] || { echo "build first: ninja -C $build"; exit 1; }
command -v go >/dev/null || { echo "go not installed (go tool pprof)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"
. "$here/bench/lib.sh"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
f=$tmp/large.pb.gz
python3 "$here/bench/gen_pprof_large.py" "$here/tests/data/pprof/flate-cpu.pb.gz" "$f" \
  --samples "$samples"
echo "input: $(stat -c %s "$f") bytes gzipped, $(gzip -dc "$f" | wc -c) bytes of profile.proto, $samples samples"
pair() {
  local what=$1; shift
  read -r wa ra wb rb _ < <(measure_pair "$@")
  echo "$what: profpack ${wa}s ${ra}KB, go tool pprof ${wb}s ${rb}KB;" \
    "$(echo "scale=1; $wb / $wa" | bc)x faster, memory $(echo "scale=2; $ra / $rb" | bc)x"
}
pair read "$cli" info "$f" -- go tool pprof -raw "$f"
pair top "$cli" top "$f" -n 20 -- go tool pprof -top -nodecount=20 "$f"
"$cli" convert "$f" -o "$tmp/large.ppk"
echo "ppk: $(stat -c %s "$tmp/large.ppk") bytes, $(echo "scale=3; $(stat -c %s "$tmp/large.ppk") / $(stat -c %s "$f")" | bc)x the .pb.gz"
