#!/usr/bin/env bash
# Acceptance: for every Callgrind test file, callgrind_annotate prints the same lines (apart from
# the data-file line; compared sorted, since ties print in hash order) for the original and for
# the file written back from its .ppk, with --inclusive=yes and with --tree=calling; and a second
# round trip (written file -> .ppk) gives a byte-identical .ppk, i.e. an equal IR. Interop: the
# file written as Cachegrind gives, in cg_annotate, the self costs per file:function that
# callgrind_annotate prints for the original.
set -euo pipefail
cli=${PROFPACK_CLI:?}
data=${PROFPACK_TEST_DATA:?}
command -v callgrind_annotate >/dev/null || { echo "callgrind_annotate not installed (valgrind)"; exit 1; }
command -v cg_annotate >/dev/null || { echo "cg_annotate not installed (valgrind)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
annotate() {  # file options...
  local f=$1; shift
  # Run from the file's directory with a relative name: the file name line is dropped anyway.
  (cd "$(dirname "$f")" && callgrind_annotate --threshold=100 --auto=no "$@" \
    "$(basename "$f")" 2>/dev/null) |
    grep -v -e '^Profile data file' -e '^Data file' | sort
}
check() {  # name ok-condition message
  if [ "$2" = yes ]; then echo "ok   $1"; passed=$((passed+1)); else echo "FAIL $1: $3"; failed=$((failed+1)); fi
}
for f in "$data"/callgrind/*.out; do
  name=$(basename "$f")
  "$cli" convert "$f" -o "$tmp/$name.ppk"
  "$cli" convert "$tmp/$name.ppk" --to callgrind -o "$tmp/$name.back"
  for opt in --inclusive=yes --tree=calling; do
    annotate "$f" "$opt" > "$tmp/a"
    annotate "$tmp/$name.back" "$opt" > "$tmp/b"
    ok=no
    if [ "$(wc -l < "$tmp/a")" -gt 20 ] && cmp -s "$tmp/a" "$tmp/b"; then ok=yes; fi
    check "$name $opt" $ok "callgrind_annotate output differs"
    [ $ok = yes ] || diff "$tmp/a" "$tmp/b" | head -20 || true
  done
  # Function lines without percentages (totals differ in multi-part files) and objects.
  fnlines() { grep -E '^ *[0-9,]+ ' | sed -E 's/ \([ 0-9.]+%\)//g; s/ \[[^]]*\]$//' |
    grep -v 'PROGRAM TOTALS' | sort; }
  "$cli" convert "$tmp/$name.ppk" --to cachegrind -o "$tmp/$name.cg"
  (cd "$tmp" && cg_annotate --auto=no --threshold=0 --show=Ir --sort=Ir "$name.cg" 2>/dev/null) |
    fnlines > "$tmp/a"
  (cd "$(dirname "$f")" && callgrind_annotate --auto=no --threshold=100 --show=Ir --sort=Ir \
    "$name" 2>/dev/null) | fnlines > "$tmp/b"
  ok=no
  if [ "$(wc -l < "$tmp/a")" -gt 20 ] && cmp -s "$tmp/a" "$tmp/b"; then ok=yes; fi
  check "$name as cachegrind" $ok "cg_annotate self costs differ from callgrind_annotate's"
  [ $ok = yes ] || diff "$tmp/a" "$tmp/b" | head -20 || true
  "$cli" convert "$tmp/$name.back" -o "$tmp/$name.2.ppk"
  "$cli" convert "$tmp/$name.2.ppk" --to callgrind -o "$tmp/$name.back2"
  ok=no; cmp -s "$tmp/$name.ppk" "$tmp/$name.2.ppk" && cmp -s "$tmp/$name.back" "$tmp/$name.back2" && ok=yes
  check "$name second round trip" $ok "the .ppk of the written file differs (IR not equal)"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
