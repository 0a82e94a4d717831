#!/usr/bin/env bash
# Benchmark (not a test): gperftools parse throughput and .ppk size against go tool pprof.
# usage: bench/bench_gperftools.sh [BUILD_DIR] [MB]
#
# Makes ~MB-sized (default 200) synthetic profiles from the real corpus profile with
# bench/gen_gperf_large.py (see there), in two shapes:
#   open   - 35% of records repeat an earlier chain, ~1.1M distinct chains (worst case)
#   zipf   - 100000 distinct chains drawn with Zipf popularity (a long run of a big program)
#   unique - every record a chain of its own (nothing for pprof to merge)
# plus the zipf one transcoded to 32-bit big-endian with bench/gperf_transcode.py.
# For each it prints the in-process parse speed (bench_gperftools, best of 5, CPU and wall
# time), the end-to-end `profpack convert` time, `go tool pprof -proto` time (same run), and
# the sizes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
mb=${2:-200}
bench=$build/bench/bench_gperftools
cli=$build/tools/profpack
transcode=$here/bench/gperf_transcode.py
[ -x "$bench" ] && [ -x "$cli" ] || { echo "build first: ninja -C $build"; exit 1; }
command -v go >/dev/null || { echo "go not installed (go tool pprof)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"
real=$here/tests/data/gperftools/workload.64le.prof

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/bench/gen_gperf_large.py" "$real" "$tmp/open.64le.prof" --mb "$mb"
python3 "$here/bench/gen_gperf_large.py" "$real" "$tmp/zipf.64le.prof" --mb "$mb" --distinct 100000
python3 "$here/bench/gen_gperf_large.py" "$real" "$tmp/unique.64le.prof" --mb "$mb" --unique
python3 "$transcode" "$tmp/zipf.64le.prof" "$tmp/zipf.32be.prof" --to 32be

secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
for f in "$tmp"/*.prof; do
  name=$(basename "$f" .prof)
  echo "== $name ($(stat -c %s "$f") bytes)"
  "$bench" "$f" | sed 's/^/  /'
  conv=$(secs "$cli" convert "$f" -o "$tmp/$name.ppk")
  pp=$(secs go tool pprof -proto -output "$tmp/$name.pb.gz" "$f")
  ppk=$(stat -c %s "$tmp/$name.ppk"); pb=$(stat -c %s "$tmp/$name.pb.gz")
  echo "  profpack_convert_s: $conv"
  echo "  pprof_proto_s: $pp"
  echo "  pprof_proto_bytes: $pb"
  echo "  ppk_over_pprof: $(echo "scale=3; $ppk / $pb" | bc)"
  rm -f "$tmp/$name.ppk" "$tmp/$name.pb.gz"
done
