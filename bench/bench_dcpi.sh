#!/usr/bin/env bash
# DCPI parse/write throughput on a 16 MB profile (issue 6 target: parse >= 1 GB/s), and the time
# of the reference dumper (dcpi_gen.py --dump) on the same file.
#   bench/bench_dcpi.sh [BUILD_DIR]   (default: build); needs ../shared/tools/dcpi_gen.py or
#   PROFPACK_SHARED pointing at the shared directory.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shared=${PROFPACK_SHARED:-$here/../shared}
[ -d "$shared" ] || shared=$here/../../shared  # a git worktree under wt/<name>
gen=$shared/tools/dcpi_gen.py
[ -f "$gen" ] || { echo "bench_dcpi: $gen not found (set PROFPACK_SHARED)" >&2; exit 1; }
[ -x "$build/bench/bench_dcpi" ] || { echo "bench_dcpi: build $build first (ninja -C $build)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$gen" "$tmp/big.dcpi" --chunks 20000 --max-len 400
echo "file: $(stat -c %s "$tmp/big.dcpi") bytes (dcpi_gen.py --chunks 20000 --max-len 400)"
"$build/bench/bench_dcpi" "$tmp/big.dcpi" 20
start=$(date +%s.%N)
python3 "$gen" --dump "$tmp/big.dcpi" > /dev/null
end=$(date +%s.%N)
echo "reference: dcpi_gen.py --dump took $(echo "$end - $start" | bc) s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
