# Shared by the benchmark scripts (sourced); $tmp must name a scratch directory. Wall times and
# peak RSS come from $build/bench/timeit (bench/timeit.c: the clock in nanoseconds from just
# before the command's fork to just after its exit, ru_maxrss from wait4); where that is not
# built, from the clock around /usr/bin/time -v, which adds 3-6 ms of its own to each run.

# run_once WALLS RSS COMMAND...: runs COMMAND once, appends its wall time (ns) to the array
# named WALLS and raises the variable named RSS to its peak RSS (KB); exits on failure.
run_once() {
  local -n walls_=$1 rss_=$2
  shift 2
  local t0 t1 r w
  if [ -x "${build:-}/bench/timeit" ]; then
    "$build/bench/timeit" "$tmp/timeit" "$@" 2>"$tmp/time" >/dev/null ||
      { cat "$tmp/time" >&2; exit 1; }
    read -r w r <"$tmp/timeit"
    walls_+=("$w")
  else
    echo "bench/lib.sh: no ${build:-\$build}/bench/timeit: timing with /usr/bin/time" >&2
    t0=$(date +%s%N)
    /usr/bin/time -v "$@" 2>"$tmp/time" >/dev/null || { cat "$tmp/time" >&2; exit 1; }
    t1=$(date +%s%N)
    walls_+=("$((t1 - t0))")
    r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
  fi
  if ((r > rss_)); then rss_=$r; fi
}

# median_spread NS...: "median fastest slowest" of wall times in ns, as seconds.
median_spread() {
  printf '%s\n' "$@" | sort -n | awk \
    '{ w[NR] = $1 } END { printf "%.4f %.4f %.4f\n", w[int((NR + 1) / 2)] / 1e9, w[1] / 1e9, w[NR] / 1e9 }'
}

# measure COMMAND...: runs the command BENCH_RUNS times (default 3) and prints the median wall
# time in seconds and the largest peak RSS in KB.
measure() {
  local runs=${BENCH_RUNS:-3} walls=() rss=0 i m
  for ((i = 0; i < runs; i++)); do run_once walls rss "$@"; done
  read -r m _ < <(median_spread "${walls[@]}")
  echo "$m $rss"
}

# measure_pair A... -- B...: runs the two commands alternately BENCH_RUNS times (A, B, A, B,
# ...), so that both meet the same state of the machine (page cache, memory the kernel has to
# zero, other load), and prints "wallA rssA wallB rssB minA maxA minB maxB": medians and the
# largest peak RSS as measure() does, then the fastest and slowest wall time of each.
measure_pair() {
  local runs=${BENCH_RUNS:-3} a=() b=() wa=() wb=() ra=0 rb=0 i ma loa hia mb lob hib
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  for ((i = 0; i < runs; i++)); do
    run_once wa ra "${a[@]}"
    run_once wb rb "${b[@]}"
  done
  read -r ma loa hia < <(median_spread "${wa[@]}")
  read -r mb lob hib < <(median_spread "${wb[@]}")
  echo "$ma $ra $mb $rb $loa $hia $lob $hib"
}
