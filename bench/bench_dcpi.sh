#!/usr/bin/env bash
# DCPI parse/write throughput on a 16 MB profile (issue 6 target: parse >= 1 GB/s), and the time
# of the reference dumper (tests/dcpi_tool.py dump) on the same file.
#   bench/bench_dcpi.sh [BUILD_DIR]   (default: build). The profile is made by the project's
#   own generator and dumper, tests/dcpi_tool.py (written from the format's description).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
gen=$here/tests/dcpi_tool.py
[ -x "$build/bench/bench_dcpi" ] || { echo "bench_dcpi: build $build first (ninja -C $build)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$gen" gen "$tmp/big.dcpi" --chunks 20000 --max-len 400
echo "file: $(stat -c %s "$tmp/big.dcpi") bytes (dcpi_tool.py gen --chunks 20000 --max-len 400)"
"$build/bench/bench_dcpi" "$tmp/big.dcpi" 20
start=$(date +%s.%N)
python3 "$gen" dump "$tmp/big.dcpi" > /dev/null
end=$(date +%s.%N)
echo "reference: dcpi_tool.py dump took $(echo "$end - $start" | bc) s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
