#!/usr/bin/env bash
# Acceptance: for every gperftools test file (64/32-bit, little/big endian, and a perl profile
# with many evictions), the file written back from its .ppk is byte-identical, and the samples
# `go tool pprof -symbolize=none -top -addresses` counts at each leaf address of the original
# (tests/pprof_flat.py) equal `profpack top`'s self samples of that address in the .ppk.
set -euo pipefail
cli=${PROFPACK_CLI:?}
data=${PROFPACK_TEST_DATA:?}
command -v go >/dev/null || { echo "go not installed (golang-go provides go tool pprof)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# pprof wants a writable home and Go caches; keep them out of the user's.
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"
pprof_raw() { go tool pprof -symbolize=none -raw "$1" 2>"$tmp/err" || { cat "$tmp/err"; return 1; }; }
passed=0; failed=0
for f in "$data"/gperftools/*.prof; do
  name=$(basename "$f")
  "$cli" convert "$f" -o "$tmp/$name.ppk" --no-symbolize  # addresses, as -symbolize=none
  "$cli" convert "$tmp/$name.ppk" --to gperftools -o "$tmp/$name.back"
  if cmp -s "$f" "$tmp/$name.back"; then
    echo "ok   $name: rewrite is byte-identical"; passed=$((passed+1))
  else
    echo "FAIL $name: rewrite is not byte-identical"; failed=$((failed+1))
  fi
  # pprof's flat samples per address of the original equal profpack top's self samples read
  # from the .ppk (addresses named alike: mapping file + file offset).
  python3 "$(dirname "$0")/pprof_flat.py" "$f" > "$tmp/a" || true
  "$cli" top "$tmp/$name.ppk" -n 100000000 --tsv --no-symbolize | awk -F'\t' '$1 != 0 {print $1 "\t" $5}' |
    sort > "$tmp/b"
  if [ "$(wc -l < "$tmp/a")" -gt 20 ] && cmp -s "$tmp/a" "$tmp/b"; then
    echo "ok   $name: go tool pprof's flat samples per address ($(wc -l < "$tmp/a")) are profpack top's"
    passed=$((passed+1))
  else
    echo "FAIL $name: go tool pprof's flat samples per address differ from profpack top's"
    diff "$tmp/a" "$tmp/b" | head -10 || true; failed=$((failed+1))
  fi
done
# profpack info agrees with pprof's sample total and with the file's records and mappings.
f="$data/gperftools/workload.64le.prof"
total=$(pprof_raw "$f" | awk '/^Samples:/{s=1;next} /^Locations/{s=0} s && $2 ~ /^[0-9]+:$/ {t+=$1} END{print t}')
info=$("$cli" info "$f")
if grep -q '^records: 94$' <<<"$info" && grep -q '^objects: 67$' <<<"$info" &&
   grep -Eq "^  samples +$total\$" <<<"$info" && [ "$total" = 97 ]; then
  echo "ok   info"; passed=$((passed+1))
else
  echo "FAIL info: expected 94 records, 67 objects and pprof's total of $total samples"
  echo "$info"; failed=$((failed+1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq 11 ]
