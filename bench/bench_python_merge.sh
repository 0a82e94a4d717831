#!/usr/bin/env bash
# Benchmark (not a test): merging N profiles (default 1,000) three ways in one run, alternating
# (BENCH_RUNS rounds, default 3; medians of wall time, largest peak RSS):
#   profpack merge       one process, inputs read and added one at a time;
#   go tool pprof -proto the reference merge, one process;
#   profpack.dask.merge  a distributed.LocalCluster of 2 worker processes (1 thread each):
#                        leaves of 16 files, a tree of merges of 8 (bench/bench_python_merge.py);
#                        wall time of the merge with the cluster up, each worker's peak RSS.
# The inputs are the two real gperftools runs of tests/data/merge, alternating (what
# bench/bench_merge.sh merges). Then the Dask merge again on N/4 inputs: a worker's peak should
# not grow with the number of inputs, only with the merged result. The Dask result must be
# `profpack equal` to profpack merge's.
# usage: bench/bench_python_merge.sh [BUILD_DIR] [N]   (default: build, 1000)
# Dask's log (a worker's heartbeat cut off as the cluster closes, ...) goes to its stderr,
# shown only when the merge fails.
# Needs the .venv of scripts/setup.sh (cffi, distributed); the binding's extension is
# compiled here against BUILD_DIR's libprofpack.so, as tests/check_python.sh does.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
n=${2:-1000}
cli=$build/tools/profpack
py=${PROFPACK_VENV:-$here/.venv}/bin/python
[ -x "$cli" ] || { echo "build first: ninja -C $build"; exit 1; }
"$py" -c 'import cffi, distributed' 2>/dev/null || { echo "no cffi and distributed in .venv (run scripts/setup.sh)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$PPROF_TMPDIR"
. "$here/bench/lib.sh"  # run_once, median_spread

# The binding, as tests/check_python.sh builds it.
bash "$here/bindings/python/dev_build.sh" "$py" "$here" "$build" "$tmp/pkg"
export PYTHONPATH=$tmp/pkg

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); commit" \
  "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F); N = $n"
mkdir -p "$tmp/in"
for i in $(seq 1 "$n"); do
  cp "$here/tests/data/merge/workload.run$(( (i % 2) + 1 )).prof" "$tmp/in/gp.$i.prof"
  echo "$tmp/in/gp.$i.prof"
done >"$tmp/list"
mapfile -t inputs <"$tmp/list"
head -n $((n / 4)) "$tmp/list" >"$tmp/list4"
echo "inputs: $(cat "${inputs[@]}" | wc -c | awk '{ printf "%.1f MB", $1 / 1e6 }')"

dask() {  # dask LIST OUT SPLIT_EVERY FILES_PER_TASK: bench/bench_python_merge.py's JSON line
  "$py" "$here/bench/bench_python_merge.py" "$@" 2>"$tmp/dask.err" || { cat "$tmp/dask.err" >&2; exit 1; }
}
walls_a=() walls_b=() walls_c=() rss_a=0 rss_b=0 worker=0 client=0
for ((r = 0; r < ${BENCH_RUNS:-3}; r++)); do
  run_once walls_a rss_a "$cli" merge "${inputs[@]}" -o "$tmp/merged.ppk"
  # With several sources pprof takes the first argument for the binary: name one.
  run_once walls_b rss_b go tool pprof -proto -symbolize=none -output "$tmp/pprof.pb.gz" \
    /bin/true "${inputs[@]}"
  dask "$tmp/list" "$tmp/dask.ppk" 8 16 >"$tmp/dask.json"
  walls_c+=("$("$py" -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["wall_s"] * 1e9))' "$tmp/dask.json")")
  cat "$tmp/dask.json"
done
"$cli" equal "$tmp/merged.ppk" "$tmp/dask.ppk" || { echo "the Dask merge differs from profpack merge"; exit 1; }
read -r wa _ < <(median_spread "${walls_a[@]}")
read -r wb _ < <(median_spread "${walls_b[@]}")
read -r wc _ < <(median_spread "${walls_c[@]}")
printf "profpack merge (1 process)     %7.2f s  peak %7.1f MB\n" "$wa" "$(echo "$rss_a" | awk '{ print $1 / 1024 }')"
printf "go tool pprof -proto           %7.2f s  peak %7.1f MB\n" "$wb" "$(echo "$rss_b" | awk '{ print $1 / 1024 }')"
printf "profpack.dask.merge (2 workers) %6.2f s  (per worker: see the JSON lines, KB)\n" "$wc"
echo "merged: $(stat -c %s "$tmp/merged.ppk") bytes of .ppk"
echo "the Dask merge on N/4 = $((n / 4)) inputs:"
dask "$tmp/list4" "$tmp/dask4.ppk" 8 16
echo "the Dask merge with one task per file (profpack.dask.to_ppk leaves):"
dask "$tmp/list" "$tmp/dask1.ppk" 8 1
"$cli" equal "$tmp/merged.ppk" "$tmp/dask1.ppk" || { echo "the Dask merge differs from profpack merge"; exit 1; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
