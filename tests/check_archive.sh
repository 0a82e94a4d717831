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
mkdir -p "$w/gperf" "$w/cg" "$w/sizes"
# (two at a time: the machine's two cores; gperftools samples CPU time, not wall time)
for i in $(seq 1 40); do
  freq=$((500 + (i % 5) * 250)); n=$((1 + i % 3)); iters=$((10 + i))
  CPUPROFILE="$w/gperf/p$i.prof" CPUPROFILE_FREQUENCY=$freq LD_PRELOAD=$prof \
    "$w/workload" $n $iters >/dev/null 2>&1 &
  [ $((i % 2)) = 0 ] && wait
done
for i in $(seq 1 40); do
  valgrind --tool=callgrind --callgrind-out-file="$w/cg/c$i.out" \
    "$w/workload" $((1 + i % 2)) $((i % 4 + 1)) >/dev/null 2>&1 &
  [ $((i % 2)) = 0 ] && wait
done
wait
size() { stat -c %s "$1"; }
ratio() { python3 -c "print(f'{$1/$2:.3f}')"; }
# at most: fails where the ratio passes LIMIT (the aims of issue 33 that the archive meets).
atmost() { python3 -c "import sys; sys.exit(0 if $1 <= $2 * $3 else 1)"; }
for kind in gperf cg mixed; do
  if [ $kind = mixed ]; then files=$(ls "$w"/gperf/* "$w"/cg/* | sort -V); dirs="gperf cg"
  else files=$(ls "$w/$kind"/* | sort -V); dirs=$kind; fi
  # shellcheck disable=SC2086
  tarz=$(tar c -C "$w" $dirs | zstd -19 -q -c | wc -c)
  sum=0
  for f in $files; do
    # Without symbols, as archive add reads them (a symbolized .ppk also keeps the names); each
    # file's once, the mixed set reusing them.
    one=$w/sizes/${f##*/}
    [ -s "$one" ] || { "$pp" convert "$f" -o "$w/one.ppk" --no-symbolize >/dev/null &&
      size "$w/one.ppk" >"$one"; }
    sum=$((sum + $(cat "$one")))
  done
  rm -f "$w/$kind.ppka"
  # shellcheck disable=SC2086
  "$pp" archive add "$w/$kind.ppka" $files --label kind=$kind --time 1000 || bad "add $kind"
  a=$(size "$w/$kind.ppka")
  echo "size $kind: $(echo $files | wc -w) members: archive $a bytes; tar c | zstd -19 $tarz;" \
    "sum of .ppk $sum; ratios $(ratio $a $tarz) $(ratio $a $sum)"
  # The aims of issue 33 are <= 0.5x tar|zstd-19 and <= 0.25x the .ppk files. The profiles
  # are made here, and what they hold depends on the machine and its load: gperftools sets
  # measured 0.42x-0.47x and 0.215x-0.260x (a fresh-clone CI run gave 0.465x and 0.260x). So
  # the checks guard the level reached, with room for such runs (revision 1 was 0.94x and
  # 0.50x), and each run says whether it met the aims. Callgrind sets measured 1.03x-1.16x of
  # tar|zstd-19 in this test, and 1.28x for a set made the same way by hand, before their
  # archive coding (lib/formats/callgrind/archive_coding.h; their threads' interleaving moves
  # their costs); with it 0.681x and 0.683x on two sets (mixed 0.605x and 0.603x).
  case $kind in
    gperf) lim_tar=0.55 lim_sum=0.3 ;;
    cg) lim_tar=0.85 lim_sum=0.25 ;;
    mixed) lim_tar=0.7 lim_sum=0.25 ;;
  esac
  atmost "$a" "$tarz" $lim_tar && ok "$kind archive <= ${lim_tar}x tar c | zstd -19" ||
    bad "$kind archive $a > ${lim_tar}x tar c | zstd -19 ($tarz)"
  atmost "$a" "$sum" $lim_sum && ok "$kind archive <= ${lim_sum}x the sum of .ppk" ||
    bad "$kind archive $a > ${lim_sum}x the sum of .ppk ($sum)"
  if atmost "$a" "$tarz" 0.5 && atmost "$a" "$sum" 0.25; then
    echo "note: $kind meets issue 33's aims in this run (0.5x tar c | zstd -19, 0.25x .ppk)"
  else
    echo "note: $kind misses issue 33's aims in this run (0.5x tar c | zstd -19, 0.25x .ppk)"
  fi
done
[ "${1:-}" = --sizes-only ] && { echo "$pass passed, $failn failed"; [ $failn = 0 ]; exit; }

# A member's time: the profile's own (pprof time_nanos, as go tool pprof -raw prints it), else
# --time, else the file's mtime; list --since/--until select by it.
a=$w/time.ppka; rm -f "$a"
cp "$src/tests/data/pprof/go-cpu.pb.gz" "$w/gperf/p1.prof" "$w/gperf/p2.prof" "$w/"
touch -d @1500000000 "$w/p1.prof"; touch -d @1600000000 "$w/p2.prof" "$w/go-cpu.pb.gz"
"$pp" archive add "$a" "$w/go-cpu.pb.gz" "$w/p1.prof" "$w/p2.prof"
"$pp" archive add "$a" "$w/go-cpu.pb.gz" "$w/p1.prof" --time 1700000000
want=""
if command -v go >/dev/null; then
  want=$(date -u -d "$(go tool pprof -raw "$w/go-cpu.pb.gz" 2>/dev/null | sed -n 's/^Time: \([0-9-]* [0-9:]*\).* \([-+][0-9]*\) .*/\1 \2/p')" +%s)
fi
got=$("$pp" archive list "$a" | cut -f3 | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want 1500000000 1600000000 $want 1700000000 " ] &&
  ok "member times: pprof's own ($want, go tool pprof), else --time, else mtime" ||
  bad "member times: $got (pprof's own: ${want:-go missing})"
ids() { "$pp" archive list "$a" "$@" | cut -f1 | tr '\n' ' '; }
[ "$(ids --since 1500000001 --until 1700000000)" = "3 5 " ] &&
  [ "$(ids --until 1500000000)" = "2 " ] && [ "$(ids --since $((want + 1)))" = "" ] &&
  ok "list --since/--until select by member time" ||
  bad "list --since/--until: $(ids --since 1500000001 --until 1700000000)/$(ids --until 1500000000)"

# Byte-identical extraction, and merge of all members = merge of the originals.
for kind in gperf cg; do
  i=0; same=0
  for f in $(ls "$w/$kind"/* | sort -V); do
    i=$((i + 1))
    ext=$([ $kind = cg ] && echo callgrind || echo gperftools)
    "$pp" archive extract "$w/$kind.ppka" $i -o "$w/x.out" || continue
    # gperftools is lossless: the original itself; Callgrind is written as its .ppk writes it.
    want=$f
    if [ $kind = cg ]; then "$pp" convert "$f" -o "$w/want.out" --to callgrind >/dev/null; want=$w/want.out; fi
    cmp -s "$want" "$w/x.out" && same=$((same + 1))
  done
  [ $same = 40 ] && ok "$kind: 40 members extract byte-identical" || bad "$kind: $same of 40 identical"
  # shellcheck disable=SC2046
  # (gperftools merges only profiles of one sampling period: those at 500 Hz)
  sel=(); files=$(ls "$w/$kind"/* | sort -V)
  [ $kind = gperf ] && sel=(--where hz=500) && files=$(ls "$w"/gperf/p{5,10,15,20,25,30,35,40}.prof)
  if [ $kind = gperf ]; then
    rm -f "$w/g1000.ppka"
    # shellcheck disable=SC2086
    "$pp" archive add "$w/g1000.ppka" $files --label hz=500 --time 5
    "$pp" archive add "$w/g1000.ppka" "$w/gperf/p1.prof" --label hz=750 --time 6
  fi
  # shellcheck disable=SC2086
  "$pp" merge $files -o "$w/ref.ppk" >/dev/null &&
    "$pp" archive merge "$([ $kind = gperf ] && echo "$w/g1000.ppka" || echo "$w/$kind.ppka")" \
      "${sel[@]}" -o "$w/arch.ppk" &&
    "$pp" equal "$w/ref.ppk" "$w/arch.ppk" >/dev/null &&
    ok "$kind: archive merge equals profpack merge of the originals" ||
    bad "$kind: archive merge differs from profpack merge"
done

# diff of two selections = profpack diff of the merges of their originals; trend's figures =
# top --json of each original, none extracted.
a=$w/weeks.ppka; rm -f "$a"
"$pp" archive add "$a" "$w"/cg/c{1..4}.out --label week=1 --time 100
"$pp" archive add "$a" "$w"/cg/c{5..8}.out --label week=2 --time 200
"$pp" merge "$w"/cg/c{1..4}.out -o "$w/b.ppk" >/dev/null && "$pp" merge "$w"/cg/c{5..8}.out -o "$w/n.ppk" >/dev/null &&
  "$pp" diff "$w/b.ppk" "$w/n.ppk" -o "$w/ref.ppk" >/dev/null &&
  "$pp" archive diff "$a" --base --where week=1 --new --where week=2 -o "$w/d.ppk" &&
  "$pp" equal "$w/ref.ppk" "$w/d.ppk" >/dev/null &&
  "$pp" archive diff "$a" --new --since 150 --base --until 150 -o "$w/d2.ppk" &&
  "$pp" equal "$w/ref.ppk" "$w/d2.ppk" >/dev/null &&
  ok "archive diff of two selections equals profpack diff of their merged originals" ||
  bad "archive diff differs from profpack diff of the originals"
"$pp" archive trend "$w/cg.ppka" cmp --json >"$w/trend.json"
for i in $(seq 1 40); do "$pp" top "$w/cg/c$i.out" --json -n 100000 >"$w/top$i.json"; done
python3 - "$w" <<'PY' && ok "trend: 40 members' self and inclusive Ir of cmp equal top --json of each original" || bad "trend differs from top --json"
import json, sys
w = sys.argv[1]
rows = json.load(open(w + "/trend.json"))
assert [r["id"] for r in rows] == list(range(1, 41)), rows
for r in rows:
    top = json.load(open(f"{w}/top{r['id']}.json"))
    f = [x for x in top["functions"] if x["name"] == "cmp"]
    want = (sum(x["self"] for x in f), sum(x["inclusive"] for x in f), len(f))
    got = (r["self"], r["inclusive"], r["functions"])
    assert want == got and want[0] > 0, (r["id"], want, got)
PY
[ "$("$pp" archive trend "$a" cmp --where week=2 | cut -f1 | tr '\n' ' ')" = "5 6 7 8 " ] &&
  ok "trend takes a selection" || bad "trend --where week=2"

# add --symbolize keeps the names with gperftools members (the binary may be gone later):
# trend then names functions as top does on the originals, and members still extract as read.
a=$w/sym.ppka; rm -f "$a"
"$pp" archive add "$a" "$w"/gperf/p{1..5}.prof --symbolize --time 1
"$pp" archive trend "$a" cmp --json >"$w/trend.json"
for i in 1 2 3 4 5; do "$pp" top "$w/gperf/p$i.prof" --json -n 100000 >"$w/top$i.json"; done
"$pp" archive extract "$a" 3 -o "$w/x.prof"
python3 - "$w" <<'PY' && cmp -s "$w/x.prof" "$w/gperf/p3.prof" && ok "add --symbolize: trend of cmp equals top --json of 5 gperftools originals" || bad "add --symbolize: trend or extraction differs"
import json, sys
w = sys.argv[1]
named = 0  # a short run may take no sample in cmp: equal then too, but most must have it
for r in json.load(open(w + "/trend.json")):
    f = [x for x in json.load(open(f"{w}/top{r['id']}.json"))["functions"] if x["name"] == "cmp"]
    want = (sum(x["self"] for x in f), sum(x["inclusive"] for x in f), len(f))
    assert want == (r["self"], r["inclusive"], r["functions"]) and want[2] <= 1, (r, want)
    named += want[2]
assert named >= 3, named
PY

# compact: a revision-1 archive becomes the revision this build writes (members kept as their
# formats' files) with the same figures; forty one-member appends compact into one segment
# with one dictionary rebuilt over all of them, as small as the forty added at once.
a=$w/old.ppka; cp "$src/tests/data/compat/ppka-r1/mixed.ppka" "$a"
rev() { python3 -c "import struct, sys; print(struct.unpack_from('<I', open(sys.argv[1], 'rb').read(), 8)[0])" "$1"; }
"$pp" archive add "$w/now.ppka" "$src/tests/data/gperftools/workload.64le.prof" --time 1 >/dev/null
now=$(rev "$w/now.ppka")
"$pp" archive list --json "$a" >"$w/list1.json"
for i in 1 2 3 4 5; do "$pp" archive extract "$a" $i -o "$w/old$i.ppk"; done
"$pp" archive compact "$a" && "$pp" archive verify "$a" >/dev/null && [ "$(rev "$a")" = "$now" ] &&
  [ "$(rev "$src/tests/data/compat/ppka-r1/mixed.ppka")" = 1 ] && same=0 &&
  for i in 1 2 3 4 5; do
    "$pp" archive extract "$a" $i -o "$w/new$i.ppk" && "$pp" equal "$w/old$i.ppk" "$w/new$i.ppk" >/dev/null &&
      same=$((same + 1))
  done && [ $same = 5 ] && ok "compact: revision 1 -> $now, 5 members equal" ||
  bad "compact of a revision-1 archive (revision $(rev "$a"), not $now; $same members equal)"
# An append to a revision-3 archive keeps revision 3, and with it Callgrind members uncoded
# (revision 4 brought their coding): the archive still reads in builds of revision 3.
a=$w/r3.ppka; cp "$src/tests/data/compat/ppka-r3/mixed.ppka" "$a"
cg=$(ls "$w"/cg/* | head -1)
"$pp" archive add "$a" "$cg" --time 1 >/dev/null && [ "$(rev "$a")" = 3 ] &&
  "$pp" archive verify "$a" >/dev/null && "$pp" archive extract "$a" 9 -o "$w/r3-9.ppk" &&
  "$pp" convert "$cg" -o "$w/r3-cg.ppk" --no-symbolize && "$pp" equal "$w/r3-9.ppk" "$w/r3-cg.ppk" >/dev/null &&
  ok "an append to a revision-3 archive keeps revision 3 (Callgrind member uncoded, equal)" ||
  bad "append to a revision-3 archive (revision $(rev "$a"))"
a=$w/onebyone.ppka; rm -f "$a"
for f in $(ls "$w"/gperf/* | sort -V); do "$pp" archive add "$a" "$f" --time 1000; done
before=$(size "$a")
"$pp" archive compact "$a" && "$pp" archive verify "$a" >/dev/null &&
  "$pp" archive extract "$a" 7 -o "$w/x.prof" && cmp -s "$w/x.prof" "$w/gperf/p7.prof" &&
  atmost "$(size "$a")" "$(size "$w/gperf.ppka")" 1.02 &&
  ok "compact: 40 one-member segments ($before bytes) -> $(size "$a") (one add: $(size "$w/gperf.ppka"))" ||
  bad "compact of 40 one-member segments: $before -> $(size "$a") bytes, one add $(size "$w/gperf.ppka")"

# kill -9 of `archive add` at random points: every try leaves an archive that verify accepts,
# holding every member committed before it, and the add's members all or none.
# (adds of two members, so that a hundred tries stay cheap: each add writes and reads back its
# members, and verify and list read every member committed before)
a=$w/crash.ppka; rm -f "$a"
"$pp" archive add "$a" "$w"/gperf/p{1,2,3}.prof --time 1 || bad "crash: first add"
count() { "$pp" archive list "$1" | wc -l; }
start=$(date +%s%N); "$pp" archive add "$w/timing.ppka" "$w"/gperf/p{4,5}.prof; end=$(date +%s%N)
span=$(( (end - start) / 1000 + 1 ))  # microseconds one add takes
good=0; killed=0; before=$(count "$a"); ids=$("$pp" archive list "$a" | cut -f1)
for try in $(seq 1 100); do
  "$pp" archive add "$a" "$w"/gperf/p{4,5}.prof --label try=$try &
  pid=$!
  # (bash's own random numbers: a python3 start took longer than most adds, so that the kill
  # came after the add had finished)
  us=$(( (RANDOM * 32768 + RANDOM) % span ))
  sleep "$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))"
  kill -9 $pid 2>/dev/null && killed=$((killed + 1))
  wait $pid 2>/dev/null
  after=$(count "$a")
  if "$pp" archive verify "$a" >/dev/null &&
     { [ "$after" = "$before" ] || [ "$after" = $((before + 2)) ]; } &&
     [ "$("$pp" archive list "$a" | head -n "$before" | cut -f1)" = "$ids" ]; then
    good=$((good + 1))
  else
    echo "try $try: $before members before, $after after"; "$pp" archive verify "$a"
  fi
  before=$after; ids=$("$pp" archive list "$a" | cut -f1)
done
[ $good = 100 ] && ok "kill -9 of archive add: 100 of 100 tries verify ($killed killed mid-add, $before members)" ||
  bad "kill -9 of archive add: $good of 100 tries verify"

# A full disk: a small tmpfs where one can be mounted, else a file size limit (with SIGXFSZ
# ignored, so that the write fails with EFBIG as on a full disk rather than killing the process).
a=$w/full/full.ppka; mkdir -p "$w/full"
if mount -t tmpfs -o size=64k tmpfs "$w/full" 2>/dev/null; then how="64 KiB tmpfs"; lim=""; else how="ulimit -f 64"; lim=64; fi
"$pp" archive add "$a" "$w"/gperf/p1.prof --time 1 || bad "full disk: first add"
n=$(count "$a"); fulls=0
for i in $(seq 2 40); do
  if [ -n "$lim" ]; then (trap '' XFSZ; ulimit -f $lim; exec "$pp" archive add "$a" "$w/gperf/p$i.prof" "$w/cg/c$i.out") 2>"$w/err"
  else "$pp" archive add "$a" "$w/gperf/p$i.prof" "$w/cg/c$i.out" 2>"$w/err"; fi
  rc=$?
  [ $rc != 0 ] && fulls=$((fulls + 1))
  m=$(count "$a")
  "$pp" archive verify "$a" >/dev/null && { [ $m = $n ] || [ $m = $((n + 2)) ]; } && [ $rc = 0 -o $m = $n ] ||
    { bad "full disk: add $i left $m members (before $n, exit $rc)"; cat "$w/err"; }
  n=$m
done
[ $fulls -gt 0 ] && ok "full disk ($how): $fulls adds refused, archive verifies with $n members" ||
  bad "full disk ($how): no add was refused"

# Hostile archives: refused with a clear error, never a crash.
small=$w/small.ppka; rm -f "$small"
"$pp" archive add "$small" "$w"/gperf/p{1,2}.prof --time 1
python3 - "$small" "$w" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read(); w = sys.argv[2]
t = len(data) - 32
frame, msg, fnv = struct.unpack_from("<QQQ", data, t)
# the manifest's frame said to start before the file does
open(w + "/h1.ppka", "wb").write(data[:t] + struct.pack("<QQQ", t + 100, msg, fnv) + data[t + 24:])
# a segment cut short: 40 bytes taken out of the members, the commit record kept whole
open(w + "/h2.ppka", "wb").write(data[:60] + data[100:])
# a member's bytes flipped
b = bytearray(data); b[40] ^= 0xff; open(w + "/h3.ppka", "wb").write(bytes(b))
PY
# ... and members coded by their format (archive revision 2) whose coding is hostile: a slot
# count or a record past the member's end, a PC in an object no mapping holds, a coded member
# in a revision-1 archive (tests/hostile_archive.py; the same files are fuzz regressions).
rm -f "$small"; "$pp" archive add "$small" "$w"/gperf/p1.prof --time 1
python3 "$src/tests/hostile_archive.py" "$small" "$w" || bad "hostile_archive.py"
"$pp" archive verify "$small" >/dev/null && ok "a coded gperftools member verifies" || bad "coded member"
# Members kept in their segment's dictionary (revision 3) under a header that says revision 2.
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[8] = 2
open(sys.argv[2], 'wb').write(bytes(d))" "$src/tests/data/compat/ppka-r3/mixed.ppka" "$w/indict-r2.ppka"
# Coded Callgrind members (revision 4) under a header that says revision 3.
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[8] = 3
open(sys.argv[2], 'wb').write(bytes(d))" "$src/tests/data/compat/ppka-r4/mixed.ppka" "$w/callgrind-coded-r3.ppka"
for h in h1 h2 h3 coded-slots coded-object coded-records coded-r1 indict-r2 callgrind-coded-r3; do
  out=$("$pp" archive verify "$w/$h.ppka" 2>&1); rc=$?
  [ $rc = 1 ] && echo "$out" | grep -q "ppka" && ok "hostile $h refused: $out" || bad "hostile $h: exit $rc: $out"
done
# compact reads every member as the archive's revision does: it refuses what verify refuses,
# and leaves the file as it was.
cp "$w/callgrind-coded-r3.ppka" "$w/cc.ppka"
out=$("$pp" archive compact "$w/cc.ppka" 2>&1); rc=$?
[ $rc = 1 ] && cmp -s "$w/cc.ppka" "$w/callgrind-coded-r3.ppka" &&
  ok "compact refuses coded Callgrind members under revision 3: $out" ||
  bad "compact of callgrind-coded-r3: exit $rc: $out"
# compact of a revision-3 archive: the revision this build writes (its Callgrind member is
# then coded), the same figures.
a=$w/r3c.ppka; cp "$src/tests/data/compat/ppka-r3/mixed.ppka" "$a"
"$pp" archive extract "$a" 3 -o "$w/r3c-before.ppk"
"$pp" archive compact "$a" && [ "$(rev "$a")" = "$now" ] && "$pp" archive verify "$a" >/dev/null &&
  "$pp" archive extract "$a" 3 -o "$w/r3c-after.ppk" &&
  "$pp" equal "$w/r3c-before.ppk" "$w/r3c-after.ppk" >/dev/null &&
  ok "compact: revision 3 -> $now, the Callgrind member equal" ||
  bad "compact of a revision-3 archive"
echo "$pass passed, $failn failed"
[ $failn = 0 ]
