#!/usr/bin/env bash
# Benchmark (not a test): merging N corpus-sized profiles, against the reference tool merging
# the same files in the same run; wall time and peak RSS from bench/lib.sh.
#   N Cachegrind files (the two real runs of tests/data/merge, alternating): profpack merge
#     --to cachegrind vs cg_merge
#   N gperftools profiles (likewise): profpack merge --to gperftools vs go tool pprof -proto
# profpack reads and adds one input at a time, so its peak memory should stay near that of the
# merged result, whatever N.
# usage: bench/bench_merge.sh [BUILD_DIR] [N]   (default: build, 100)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
n=${2:-100}
cli=$build/tools/profpack
[ -x "$cli" ] || { echo "build first: ninja -C $build"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$PPROF_TMPDIR"

. "$(dirname "$0")/lib.sh"  # measure
report() {  # label inputs_bytes ours_wall ours_rss theirs_wall theirs_rss
  awk -v l="$1" -v b="$2" -v w1="$3" -v r1="$4" -v w2="$5" -v r2="$6" 'BEGIN {
    printf "%-22s inputs %6.1f MB | profpack %6.2f s %6.1f MB | reference %6.2f s %7.1f MB | %5.1fx faster, %.2fx the memory\n",
      l, b / 1e6, w1, r1 / 1024, w2, r2 / 1024, (w1 > 0 ? w2 / w1 : 0), r1 / r2 }'
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); N = $n"
cg=() gp=()
for i in $(seq 1 "$n"); do
  r=$(( (i % 2) + 1 ))
  cp "$here/tests/data/merge/cachegrind.workload.run$r.out" "$tmp/cg.$i.out"
  cp "$here/tests/data/merge/workload.run$r.prof" "$tmp/gp.$i.prof"
  cg+=("$tmp/cg.$i.out"); gp+=("$tmp/gp.$i.prof")
done
bytes=$(cat "${cg[@]}" | wc -c)
read -r w1 r1 < <(measure "$cli" merge "${cg[@]}" -o "$tmp/merged.out" --to cachegrind)
read -r w2 r2 < <(measure cg_merge -o "$tmp/cg_merge.out" "${cg[@]}")
report "cachegrind x$n" "$bytes" "$w1" "$r1" "$w2" "$r2"
one=$( { /usr/bin/time -v "$cli" convert "${cg[0]}" -o "$tmp/one.ppk" 2>&1 >/dev/null; } |
       sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "  profpack convert of one input: peak $(awk -v r="$one" 'BEGIN{printf "%.1f", r/1024}') MB"
bytes=$(cat "${gp[@]}" | wc -c)
read -r w1 r1 < <(measure "$cli" merge "${gp[@]}" -o "$tmp/merged.prof" --to gperftools)
# With several sources pprof takes the first argument for the binary: name one.
read -r w2 r2 < <(measure go tool pprof -proto -symbolize=none -output "$tmp/pprof.pb.gz" \
                  /bin/true "${gp[@]}")
report "gperftools x$n" "$bytes" "$w1" "$r1" "$w2" "$r2"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
