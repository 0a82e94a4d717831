#!/usr/bin/env bash
# Benchmark (not a test): XRay trace -> .ppk with the profpack CLI, beside llvm-xray-14 convert
# on the same trace in the same run; wall time and peak RSS from bench/lib.sh.
# usage: bench/bench_xray.sh [PROFPACK_CLI] [TRACE]
# Without TRACE, records the ~60 MB trace with tests/xray/make-traces.sh (ROUNDS=3600, FDR, 64 KiB buffers).
# Targets: >= 300 MB/s and peak RSS <= 1.2x the input.
set -euo pipefail
cli=${1:-build/tools/profpack}
build=$(dirname "$(dirname "$cli")")  # bench/lib.sh times runs with $build/bench/timeit
trace=${2:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -z "$trace" ]; then
  ROUNDS=${ROUNDS:-3600} "$(dirname "$0")/../tests/xray/make-traces.sh" "$tmp/gen" >/dev/null 2>&1
  trace=$(ls "$tmp"/gen/fdr-big.* | head -1)
fi
size=$(stat -c %s "$trace")
. "$(dirname "$0")/lib.sh"  # measure
echo "trace: $trace ($size bytes)"
for level in ${LEVELS:-6 3 1}; do
  read -r wall rss < <(measure "$cli" convert "$trace" -o "$tmp/out.ppk" --level "$level")
  awk -v s="$size" -v w="$wall" -v r="$rss" -v l="$level" -v o="$(stat -c %s "$tmp/out.ppk")" \
    'BEGIN { printf "profpack convert -> ppk (zstd %d): %.2f s, %.0f MB/s, peak RSS %.1f MB = %.2fx input, .ppk %d bytes\n", l, w, s / 1e6 / w, r / 1024, r * 1024 / s, o }'
done
read -r wall rss < <(measure "$cli" convert "$tmp/out.ppk" --to xray -o "$tmp/back.xray")
cmp -s "$trace" "$tmp/back.xray" && same=identical || same=DIFFERENT
awk -v s="$size" -v w="$wall" -v r="$rss" -v c="$same" \
  'BEGIN { printf "profpack convert ppk -> xray: %.2f s, peak RSS %.1f MB (%s bytes)\n", w, r / 1024, c }'
read -r wall rss < <(measure llvm-xray-14 convert --output-format=yaml "$trace" -o "$tmp/llvm.yaml")
awk -v s="$size" -v w="$wall" -v r="$rss" \
  'BEGIN { printf "llvm-xray-14 convert --output-format=yaml: %.2f s, %.1f MB/s, peak RSS %.1f MB = %.2fx input\n", w, s / 1e6 / w, r / 1024, r * 1024 / s }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 shared cores: figures vary with other jobs)"
