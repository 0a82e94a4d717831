#!/usr/bin/env bash
# Makes this directory's recordings again (not run by the tests): builds spin.c and threads.c in
# DIR (default /usr/src/profpack-samples/perf, the path the recordings then name), records the
# six recordings there with perf (cpu-clock: no PMU needed), prints each one's `perf script`
# text, cuts the excerpt of /proc/kallsyms the tests name kernel frames from, copies the results
# here and removes the binaries from DIR (so that, as on any other machine, perf finds them
# through the tests' --symfs and build-id cache, not at the recorded path).
# Needs root (or kernel.perf_event_paranoid <= 1 and a readable /proc/kallsyms).
# usage: tests/data/perf/record.sh [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/usr/src/profpack-samples/perf}
mkdir -p "$dir"
cd "$dir"
cp "$here/spin.c" "$here/threads.c" .
rm -f ./*.data ./*.data.old
gcc -O1 -g -fno-omit-frame-pointer -o spin spin.c
gcc -O1 -g -fno-omit-frame-pointer -pthread -o threads threads.c
# Each recording is made again until some of its samples are in the kernel (spin's are nearly
# all in user space; the kernel's come from the process's start), which the tests' kernel
# naming needs.
rec() {  # OUT ARGS...: record ARGS into OUT ("-": pipe mode, OUT written from standard output)
  local out=$1 try
  shift
  for try in $(seq 30); do
    if [ "$1" = - ]; then
      perf record -q -e cpu-clock -g -o - "${@:2}" >"$out" 2>/dev/null
    else
      perf record -q -e cpu-clock -g -o "$out" "$@" >/dev/null 2>&1
    fi
    [ "$(perf script -F ip,dso -i "$out" 2>/dev/null | grep -c 'kernel.kallsyms')" -gt 0 ] && return 0
  done
  echo "record.sh: no kernel samples in $out after 30 recordings" >&2
  return 1
}
rec spin.data ./spin 60
rec threads.data ./threads
rec procs.data -- sh -c './spin 30 & ./threads; wait'
rec pipe.data - ./spin 20
# perf record -z: the records in zstd-compressed PERF_RECORD_COMPRESSED ones.
mkdir -p compressed
rec compressed/threads.data -z ./threads
# perf record -c N: the samples hold no period (each has the event's N).
mkdir -p fixed
rec fixed/threads.data -c 250000 ./threads
# perf record --threads: a directory, data and a data.N per recording thread.
mkdir -p dir
rm -rf dir/threads.data
rec dir/threads.data --threads ./threads
fields=comm,pid,tid,time,event,ip,sym,dso
for r in spin threads procs compressed/threads dir/threads; do
  perf script --ns -F "$fields" -i "$r.data" 2>/dev/null | gzip -9n >"$r.script.txt.gz"
done
perf script --ns -F "$fields,period" -i fixed/threads.data 2>/dev/null |
  gzip -9n >fixed/threads.script.txt.gz
# pipe mode records no build ids: perf finds spin at its recorded path, here.
perf script --ns -F "$fields" --kallsyms /proc/kallsyms -i pipe.data 2>/dev/null |
  gzip -9n >pipe.script.txt.gz
# The kallsyms lines of every symbol holding a kernel address of the samples (or a return
# address less one), and of the symbol after each: enough to name every kernel frame.
for r in spin threads procs pipe; do perf script -F ip -i "$r.data" 2>/dev/null; done |
  python3 -c '
import bisect, sys
want = set()
for line in sys.stdin:
    for word in line.split():
        try:
            a = int(word, 16)
        except ValueError:
            continue
        if a >= 0xffff800000000000:
            want.update((a, a - 1))
rows = []
for line in open("/proc/kallsyms"):
    f = line.split()
    if len(f) >= 3 and f[1].upper() in "TWDB" and int(f[0], 16):
        rows.append((int(f[0], 16), line.rstrip("\n")))
rows.sort(key=lambda r: r[0])
starts = [r[0] for r in rows]
keep = set()
for a in want:
    i = bisect.bisect_right(starts, a) - 1
    if i >= 0:
        keep.update(range(i, min(i + 2, len(rows))))
for i in sorted(keep):
    print(rows[i][1])
' >kallsyms.txt
cp spin threads spin.data threads.data procs.data pipe.data ./*.script.txt.gz kallsyms.txt "$here/"
mkdir -p "$here/compressed" "$here/dir" "$here/fixed"
cp compressed/threads.data compressed/threads.script.txt.gz "$here/compressed/"
cp fixed/threads.data fixed/threads.script.txt.gz "$here/fixed/"
rm -rf "$here/dir/threads.data"
cp -r dir/threads.data dir/threads.script.txt.gz "$here/dir/"
rm -f spin threads
