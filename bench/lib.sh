# Shared by the benchmark scripts (sourced): measure COMMAND... runs the command BENCH_RUNS
# times (default 3) and prints the median wall time in seconds (from the clock in nanoseconds:
# /usr/bin/time's hundredths are a tenth of a 0.1 s run) and the largest peak RSS in KB (from
# /usr/bin/time -v); $tmp must name a scratch directory.
measure() {
  local runs=${BENCH_RUNS:-3} walls=() rss=0 i t0 t1 r
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    /usr/bin/time -v "$@" 2>"$tmp/time" >/dev/null || { cat "$tmp/time" >&2; exit 1; }
    t1=$(date +%s%N)
    walls+=("$((t1 - t0))")
    r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
    ((r > rss)) && rss=$r
  done
  printf '%s\n' "${walls[@]}" | sort -n | awk -v n="$runs" -v rss="$rss" \
    '{ w[NR] = $1 } END { printf "%.4f %d\n", w[int((n + 1) / 2)] / 1e9, rss }'
}

# measure_pair A... -- B...: runs the two commands alternately BENCH_RUNS times (A, B, A, B,
# ...), so that both meet the same state of the machine (page cache, memory the kernel has to
# zero, other load), and prints "wallA rssA wallB rssB minA maxA minB maxB": medians and the
# largest peak RSS as measure() does, then the fastest and slowest wall time of each.
measure_pair() {
  local runs=${BENCH_RUNS:-3} a=() b=() wa=() wb=() ra=0 rb=0 i t0 t1 r
  while [ "$1" != "--" ]; do a+=("$1"); shift; done; shift
  b=("$@")
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    /usr/bin/time -v "${a[@]}" 2>"$tmp/time" >/dev/null || { cat "$tmp/time" >&2; exit 1; }
    t1=$(date +%s%N)
    wa+=("$((t1 - t0))")
    r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
    ((r > ra)) && ra=$r
    t0=$(date +%s%N)
    /usr/bin/time -v "${b[@]}" 2>"$tmp/time" >/dev/null || { cat "$tmp/time" >&2; exit 1; }
    t1=$(date +%s%N)
    wb+=("$((t1 - t0))")
    r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
    ((r > rb)) && rb=$r
  done
  local sa sb
  sa=$(printf '%s\n' "${wa[@]}" | sort -n | awk -v n="$runs" \
    '{ w[NR] = $1 } END { printf "%.4f %.4f %.4f", w[int((n + 1) / 2)] / 1e9, w[1] / 1e9, w[n] / 1e9 }')
  sb=$(printf '%s\n' "${wb[@]}" | sort -n | awk -v n="$runs" \
    '{ w[NR] = $1 } END { printf "%.4f %.4f %.4f", w[int((n + 1) / 2)] / 1e9, w[1] / 1e9, w[n] / 1e9 }')
  set -- $sa $sb
  echo "$1 $ra $4 $rb $2 $3 $5 $6"
}
