#!/usr/bin/env bash
# Every speed and memory aim in one run, one table: each row is profpack against its peer tool
# on the same input, the two run alternately (bench/lib.sh measure_pair), wall time the median
# of BENCH_RUNS (default 5), memory the largest peak RSS.
#   bash bench/all.sh [BUILD_DIR] [GPERF_MB]      (default: build, 50)
#   BENCH_ONLY=gperftools bash bench/all.sh build 200   (one section; see want() below)
# Inputs are made here from the repository's real profiles (no file outside it is read):
#   gperftools  bench/gen_gperf_large.py on each real profile in tests/data/gperftools (the C
#               workload and perl), in its two shapes: "open" (many distinct chains) and
#               "distinct" (100,000 chains with Zipf popularity);
#   callgrind   the cc1plus profile of bench/bench_callgrind.sh (made once, cached);
#   pprof       bench/gen_pprof_large.py on tests/data/pprof/flate-cpu.pb.gz (1,000,000 samples);
#   cpuprofile  node --cpu-prof of bench/v8/long.js and of bench/v8/genwide.js's program (made
#               once, cached);
#   perf        recordings of tests/data/perf/threads (20 and 100 runs) and of a g++ compile;
#   xray        tests/xray/make-traces.sh's largest trace;
#   trace JSON  llvm-xray-14's trace events of that trace, and profpack's of the wide profile.
# Prints "case | profpack | peer | time ratio | memory ratio | aim", the ratio columns as the
# aim states them (peer time / profpack time: "20x" means 20 times faster; profpack memory /
# peer memory), and "met" or "NOT met" per row.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
mb=${2:-50}
cli=$build/tools/profpack
[ -x "$cli" ] && [ -x "$build/bench/timeit" ] || { echo "build first: ninja -C $build"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export BENCH_RUNS=${BENCH_RUNS:-5}
# The inputs made once (the cc1plus and V8 profiles) are kept in the user's cache, named before
# HOME is replaced with a scratch one (for the peers' own caches) and passed on to the scripts
# that make them.
export PROFPACK_BENCH_CACHE=${PROFPACK_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/profpack-bench}
cache=$PROFPACK_BENCH_CACHE
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"
. "$here/bench/lib.sh"

rows=()
# BENCH_ONLY="gperftools perf" runs those sections only (gperftools callgrind pprof cpuprofile
# perf xray trace; the trace rows read what the xray and perf sections made).
want() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }
# row CASE AIM_TIME AIM_MEM A... -- B...: one table row; AIM_TIME is the least "x faster" (0:
# none), AIM_MEM the most memory ratio (0: none).
row() {
  local name=$1 aim_t=$2 aim_m=$3 wa ra wb rb t m verdict aim=""
  shift 3
  read -r wa ra wb rb _ < <(measure_pair "$@")
  t=$(awk -v a="$wa" -v b="$wb" 'BEGIN { printf "%.1f", b / a }')
  m=$(awk -v a="$ra" -v b="$rb" 'BEGIN { printf "%.2f", a / b }')
  verdict=met
  if [ "$aim_t" != 0 ]; then
    aim=">=${aim_t}x"
    awk -v t="$t" -v a="$aim_t" 'BEGIN { exit !(t < a) }' && verdict="NOT met"
  fi
  if [ "$aim_m" != 0 ]; then
    aim="$aim${aim:+, }mem<=${aim_m}x"
    awk -v m="$m" -v a="$aim_m" 'BEGIN { exit !(m > a) }' && verdict="NOT met"
  fi
  rows+=("$name|${wa}s ${ra}KB|${wb}s ${rb}KB|${t}x|${m}x|${aim:-none} $verdict")
  echo "  $name: done" >&2
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); commit" \
  "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F)"

# --- gperftools: every real profile, two shapes --------------------------------------------
if want gperftools; then
for real in "$here"/tests/data/gperftools/workload.64le.prof "$here"/tests/data/gperftools/perl-words.prof; do
  base=$(basename "$real" .prof)
  for shape in open distinct; do
    f=$tmp/$base.$shape.prof
    extra=()
    [ "$shape" = distinct ] && extra=(--distinct 100000)
    python3 "$here/bench/gen_gperf_large.py" "$real" "$f" --mb "$mb" "${extra[@]}" >/dev/null
    row "gperftools $base $shape ${mb}MB -> pprof" 20 0.1 \
      "$cli" convert --no-symbolize "$f" -o "$tmp/out.pb.gz" --to pprof -- \
      go tool pprof -proto -symbolize=none -output "$tmp/peer.pb.gz" "$f"
    row "gperftools $base $shape ${mb}MB -> callgrind" 20 0.1 \
      "$cli" convert --no-symbolize "$f" -o "$tmp/out.callgrind" --to callgrind -- \
      go tool pprof -callgrind -symbolize=none -output "$tmp/peer.callgrind" "$f"
    rm -f "$f"
  done
done
fi  # gperftools

# --- Callgrind: the cc1plus profile to .ppk against zstd -3 of the same bytes; top on it ----
if want callgrind; then
big=$cache/callgrind.cc1plus.out
if [ ! -s "$big" ]; then
  bash "$here/bench/bench_callgrind.sh" "$build" >/dev/null 2>&1 || true  # makes and caches it
fi
if [ -s "$big" ]; then
  row "callgrind cc1plus $(($(stat -c %s "$big") / 1000000))MB -> .ppk vs zstd -3" 1.25 0 \
    "$cli" convert "$big" -o "$tmp/big.ppk" -- zstd -3 -q -f "$big" -o "$tmp/big.zst"
  "$cli" convert "$big" -o "$tmp/big.ppk"
  # The aim is the process's own time, start to exit, which bench/timeit measures.
  read -r w r < <(measure "$cli" top "$tmp/big.ppk" -n 20)
  ms=$(awk -v w="$w" 'BEGIN { printf "%.1f", w * 1000 }')
  verdict=met
  awk -v m="$ms" 'BEGIN { exit !(m > 12) }' && verdict="NOT met"
  rows+=("top on the cc1plus .ppk|${ms} ms ${r}KB|-|-|-|<=12 ms $verdict")
else
  rows+=("callgrind cc1plus|not made (valgrind missing?)|-|-|-|-")
fi
fi  # callgrind

# --- pprof: read + top against go tool pprof -top --------------------------------------------
if want pprof; then
p=$tmp/large.pb.gz
python3 "$here/bench/gen_pprof_large.py" "$here/tests/data/pprof/flate-cpu.pb.gz" "$p" \
  --samples 1000000
row "pprof 1M samples: top" 20 0 \
  "$cli" top --no-symbolize "$p" -n 20 -- go tool pprof -top -symbolize=none -nodecount=20 "$p"
fi  # pprof

# --- V8 .cpuprofile: read + top against node reading the same file ----------------------------
# Two profiles node records here (cached): "long", bench/v8/long.js for 10 s sampled every
# 10 us (few functions, many samples), and "wide", 4,000 generated functions calling each other
# along many paths (bench/v8/genwide.js; 65,000 nodes). The peer is node itself:
# bench/peer_cpuprofile_top.js parses the file and sums self and inclusive time per function.
if want cpuprofile; then
if command -v node >/dev/null; then
  for shape in long wide; do
    f=$cache/$shape.cpuprofile
    if [ ! -s "$f" ]; then
      mkdir -p "$cache"
      if [ $shape = wide ]; then
        node "$here/bench/v8/genwide.js" 4000 >"$tmp/wide.js" && js=$tmp/wide.js; iv=100
      else
        js=$here/bench/v8/long.js; iv=10
      fi
      node --cpu-prof --cpu-prof-interval $iv --cpu-prof-dir "$tmp" --cpu-prof-name v8.cpuprofile \
        "$js" 10 >/dev/null && mv "$tmp/v8.cpuprofile" "$f"
    fi
    [ -s "$f" ] || continue
    row "cpuprofile $shape $(awk -v b="$(stat -c %s "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')MB: top" 0 0 \
      "$cli" top "$f" -n 20 -- node "$here/bench/peer_cpuprofile_top.js" "$f"
  done
else
  rows+=("cpuprofile|not run (node missing)|-|-|-|-")
fi
fi  # cpuprofile

# --- perf: perf.data -> folded stacks against `perf script` alone, on three recordings --------
# made here (cpu-clock, which needs no PMU): the committed threads program run 20 and 100 times
# (the same stacks, five times the samples), and a g++ compile (a driver and its children, many
# DSOs). Named: profpack names the frames as perf script does (binaries by build id, kernel
# frames from the kallsyms copy perf record keeps in $HOME/.debug), with DWARF (inline frames)
# or, as perf script does, from symbol tables only; unnamed: addresses only. The decompressed
# debug files profpack keeps (lib/symbolize/debugfile.cpp) go to the scratch HOME: the first
# named run makes them, the rest use them; the "no debug cache" rows decompress every time.
# perf keeps its own cache there too (perf record copies the binaries and the kernel's table).
if want perf; then
if command -v perf >/dev/null &&
  perf record -q -e cpu-clock -o "$tmp/probe.data" true >/dev/null 2>&1; then
  threads=$here/tests/data/perf/threads
  printf '#include <regex>\n#include <map>\n#include <iostream>\nint main() { std::regex r("a+b");\n  std::map<int, int> m; m[1] = 2; std::cout << std::regex_match("aab", r) << m[1]; }\n' \
    >"$tmp/t.cpp"
  for shape in threads20 threads100 gxx; do
    f=$tmp/$shape.data
    case $shape in
      threads*) n=${shape#threads}
        perf record -q -e cpu-clock -F 20000 -g -o "$f" -- \
          sh -c "for i in \$(seq $n); do $threads >/dev/null; done" >/dev/null 2>&1 ;;
      gxx) perf record -q -e cpu-clock -F 10000 -g -o "$f" -- \
          g++ -O1 -c "$tmp/t.cpp" -o "$tmp/t.o" >/dev/null 2>&1 ;;
    esac
    size=$(($(stat -c %s "$f") / 1000000))
    row "perf $shape ${size}MB -> folded, named" 10 0 \
      "$cli" convert "$f" --binary-path "$here/tests/data/perf" --to folded -o "$tmp/out.folded" -- \
      perf script -i "$f"
    row "perf $shape ${size}MB -> folded, named, no debug cache" 10 0 \
      env PROFPACK_DEBUG_CACHE=off "$cli" convert "$f" --binary-path "$here/tests/data/perf" \
      --to folded -o "$tmp/out.folded" -- perf script -i "$f"
    row "perf $shape ${size}MB -> folded, named from symbol tables" 10 0 \
      "$cli" convert "$f" --binary-path "$here/tests/data/perf" --symbol-tables-only --to folded \
      -o "$tmp/out.folded" -- perf script -i "$f"
    row "perf $shape ${size}MB -> folded, addresses" 10 0 \
      "$cli" convert "$f" --no-symbolize --to folded -o "$tmp/out.folded" -- perf script -i "$f"
    # A long recording: the threads x100 one five times over, as new processes each time
    # (tests/perf_repeat.py): memory should follow the distinct stacks, not the file.
    if [ $shape = threads100 ] &&
      python3 "$here/tests/perf_repeat.py" "$f" "$tmp/long.data" 5 --new-processes 2>/dev/null; then
      size=$(($(stat -c %s "$tmp/long.data") / 1000000))
      row "perf threads100 x5 ${size}MB -> folded, named" 10 0 \
        "$cli" convert "$tmp/long.data" --binary-path "$here/tests/data/perf" --to folded \
        -o "$tmp/out.folded" -- perf script -i "$tmp/long.data"
      row "perf threads100 x5 ${size}MB -> folded, named from symbol tables" 10 0 \
        "$cli" convert "$tmp/long.data" --binary-path "$here/tests/data/perf" --symbol-tables-only \
        --to folded -o "$tmp/out.folded" -- perf script -i "$tmp/long.data"
      row "perf threads100 x5 ${size}MB -> folded, addresses" 10 0 \
        "$cli" convert "$tmp/long.data" --no-symbolize --to folded -o "$tmp/out.folded" -- \
        perf script -i "$tmp/long.data"
      rm -f "$tmp/long.data"
    fi
    # Its sample slices as trace events, for the trace JSON rows below.
    [ $shape = threads100 ] &&
      "$cli" convert "$f" --no-symbolize --to trace-event -o "$tmp/perf-trace.json" >/dev/null
    rm -f "$f"
  done
else
  rows+=("perf|not run (perf missing or perf_event_open denied)|-|-|-|-")
fi
fi  # perf

# --- XRay: a ~60 MB FDR trace to trace events against llvm-xray-14 convert ---------------------
if want xray; then
if command -v llvm-xray-14 >/dev/null && command -v clang++-14 >/dev/null; then
  ROUNDS=${XRAY_ROUNDS:-3600} bash "$here/tests/xray/make-traces.sh" "$tmp/xray" >/dev/null 2>&1 || true
  x=$(ls "$tmp"/xray/fdr-big.* 2>/dev/null | head -1 || true)
  if [ -n "$x" ]; then
    row "xray $(($(stat -c %s "$x") / 1000000))MB -> trace events" 0 0 \
      "$cli" convert "$x" -o "$tmp/out.json" --to trace-event -- \
      llvm-xray-14 convert --symbolize=false --output-format=trace_event \
      --instr_map="$tmp/xray/st" --output="$tmp/peer.json" "$x"
  fi
fi
fi  # xray

# --- Chrome trace-event JSON: read + top against node reading the same file ------------------
# Three traces: llvm-xray-14's of the XRay trace above (its peer output), profpack's own of the
# wide .cpuprofile and of the threads x100 perf recording (its samples as slices: many spans). Peer: bench/peer_trace_top.js
# (JSON.parse, spans per thread, self and inclusive time per name).
if want trace; then
if command -v node >/dev/null; then
  traces=()
  [ -s "$tmp/peer.json" ] && mv "$tmp/peer.json" "$tmp/xray-trace.json" && traces+=("$tmp/xray-trace.json")
  if [ -s "$cache/wide.cpuprofile" ] &&
    "$cli" convert "$cache/wide.cpuprofile" --to trace-event -o "$tmp/v8-trace.json" >/dev/null; then
    traces+=("$tmp/v8-trace.json")
  fi
  [ -s "$tmp/perf-trace.json" ] && traces+=("$tmp/perf-trace.json")
  for f in "${traces[@]}"; do
    name="trace $(basename "$f" .json) $(($(stat -c %s "$f") / 1000000))MB: top"
    if [ "$(stat -c %s "$f")" -lt 500000000 ]; then
      row "$name" 0 0 "$cli" top "$f" -n 20 -- node "$here/bench/peer_trace_top.js" "$f"
    else  # node holds a string of at most 2^29 - 24 characters: it cannot read the file
      read -r w r < <(measure "$cli" top "$f" -n 20)
      rows+=("$name|${w}s ${r}KB|node cannot read it (string limit)|-|-|none")
    fi
  done
fi
fi  # trace

printf '\n%-52s | %-22s | %-22s | %-8s | %-7s | %s\n' case profpack peer "time" memory aim
for r in "${rows[@]}"; do
  IFS='|' read -r c a b t m aim <<<"$r"
  printf '%-52s | %-22s | %-22s | %-8s | %-7s | %s\n' "$c" "$a" "$b" "$t" "$m" "$aim"
done
