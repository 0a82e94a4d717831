# Shared by the benchmark scripts (sourced): measure COMMAND... prints the command's wall time
# in seconds and its peak RSS in KB, from /usr/bin/time -v; $tmp must name a scratch directory.
measure() {
  /usr/bin/time -v "$@" 2>"$tmp/time" >/dev/null || { cat "$tmp/time" >&2; exit 1; }
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time" |
         awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
  echo "$wall $rss"
}
