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
