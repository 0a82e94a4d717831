#!/usr/bin/env bash
# Callgrind benchmark (not a test): makes a large real profile once, then reports parse and
# convert throughput, peak RSS, .ppk size against zstd -19 and callgrind_annotate's time on the
# same file, all in one run.
#   bench/bench_callgrind.sh [BUILD_DIR]     (default: build)
# The profile is cached in $PROFPACK_BENCH_CACHE (default ~/.cache/profpack-bench).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
cli=$build/tools/profpack
cache=${PROFPACK_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/profpack-bench}
mkdir -p "$cache"
big=$cache/callgrind.cc1plus.out
if [ ! -s "$big" ]; then
  echo "making $big (valgrind --tool=callgrind g++ -O1 -c t.cpp; takes minutes)" >&2
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
  printf '#include <regex>\n#include <map>\n#include <iostream>\nint main() {\n  std::map<std::string, int> m;\n  std::regex r("a+b*");\n  m["x"] = std::regex_match("aab", r);\n  std::cout << m["x"] << "\\n";\n}\n' > "$work/t.cpp"
  (cd "$work" && valgrind --tool=callgrind --trace-children=yes --dump-instr=yes \
     --collect-jumps=yes --callgrind-out-file="$work/cg.%p" g++ -O1 -c t.cpp) >/dev/null 2>&1
  # The cc1plus child writes by far the largest profile.
  cp "$(ls -S "$work"/cg.* | head -1)" "$big"
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
parse=$cache/bench_callgrind_parse
if [ ! -x "$parse" ] || [ "$parse" -ot "$build/lib/libprofpack_core.a" ] ||
   [ "$parse" -ot "$src/bench/bench_callgrind_parse.cpp" ]; then
  g++ -std=c++20 -O2 -I"$src/lib" -I"$build/lib" "$src/bench/bench_callgrind_parse.cpp" \
    "$build/lib/libprofpack_core.a" $(pkg-config --libs capnp kj libzstd) -pthread -o "$parse"
fi
size=$(stat -c %s "$big")
mb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }
echo "input: $big ($(mb "$size") MB)"
"$parse" "$big" 5 3 > "$tmp/parse"
v() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/parse"; }
echo "parse (in-process, best of 5): $(v parse_s) s = $(v parse_mb_s) MB/s wall; $(v parse_cpu_s) s = $(v parse_cpu_mb_s) MB/s of CPU time, both threads (target >= 400 MB/s)"
echo "IR message: $(v message_bytes) bytes ($(awk -v a="$(v message_bytes)" -v b="$size" 'BEGIN{printf "%.2f", a/b}') x input); encode to .ppk (level 3): $(v encode_s) s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall times include contention)"
best=1e9
for i in 1 2 3; do
  s=$(date +%s.%N); "$cli" convert "$big" -o "$tmp/big.ppk"; e=$(date +%s.%N)
  best=$(awk -v a="$best" -v b="$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')" 'BEGIN{print (b<a)?b:a}')
done
echo "convert to .ppk (CLI, default level 3, best of 3): $best s = $(awk -v b="$size" -v t="$best" 'BEGIN{printf "%.1f", b/1e6/t}') MB/s   (target >= 150)"
/usr/bin/time -v "$cli" convert "$big" -o "$tmp/big.ppk" 2> "$tmp/time"
rss=$(awk -F: '/Maximum resident set size/{gsub(/ /,"",$2); print $2}' "$tmp/time")
echo "peak RSS of convert: $(awk -v r="$rss" 'BEGIN{printf "%.1f", r/1024}') MB = $(awk -v r="$rss" -v b="$size" 'BEGIN{printf "%.2f", r*1024/b}') x input   (target <= 1.5)"
zstd -19 -q -c "$big" > "$tmp/big.zst"
ppk=$(stat -c %s "$tmp/big.ppk"); zs=$(stat -c %s "$tmp/big.zst")
echo ".ppk: $ppk bytes; zstd -19: $zs bytes; ratio $(awk -v a="$ppk" -v b="$zs" 'BEGIN{printf "%.3f", a/b}')   (target <= 0.8)"
for lvl in 19; do
  "$cli" convert "$big" --level $lvl -o "$tmp/big$lvl.ppk"
  p=$(stat -c %s "$tmp/big$lvl.ppk")
  echo ".ppk at --level $lvl: $p bytes; ratio $(awk -v a="$p" -v b="$zs" 'BEGIN{printf "%.3f", a/b}')"
done
best=1e9
for i in 1 2 3 4 5; do
  s=$(date +%s.%N); "$cli" top "$tmp/big.ppk" -n 20 >/dev/null; e=$(date +%s.%N)
  best=$(awk -v a="$best" -v b="$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')" 'BEGIN{print (b<a)?b:a}')
done
echo "profpack top on the .ppk (CLI, best of 5): $(awk -v t="$best" 'BEGIN{printf "%.1f", t*1000}') ms   (target <= 50)"
s=$(date +%s.%N); callgrind_annotate --auto=no "$big" > /dev/null 2>&1; e=$(date +%s.%N)
echo "callgrind_annotate on the same file: $(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.2f", e-s}') s = $(awk -v b="$size" -v s="$s" -v e="$e" 'BEGIN{printf "%.2f", b/1e6/(e-s)}') MB/s"
