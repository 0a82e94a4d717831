#!/usr/bin/env bash
# Acceptance: cg_annotate prints the same (apart from the data-file line) for every Cachegrind
# test file and for the file written back from its .ppk.
set -euo pipefail
cli=${PROFPACK_CLI:?}
data=${PROFPACK_TEST_DATA:?}
command -v cg_annotate >/dev/null || { echo "cg_annotate not installed (valgrind)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
for f in "$data"/cachegrind/*.out; do
  name=$(basename "$f")
  "$cli" convert "$f" -o "$tmp/$name.ppk"
  "$cli" convert "$tmp/$name.ppk" --to cachegrind -o "$tmp/$name.back"
  # Ties print in hash order, so compare sorted lines.
  cg_annotate --threshold=0 --auto=no "$f" | grep -v '^Data file:' | sort > "$tmp/a"
  cg_annotate --threshold=0 --auto=no "$tmp/$name.back" | grep -v '^Data file:' | sort > "$tmp/b"
  if [ "$(wc -l < "$tmp/a")" -gt 20 ] && cmp -s "$tmp/a" "$tmp/b"; then
    echo "ok   $name"; passed=$((passed+1))
  else
    echo "FAIL $name: cg_annotate output differs"; diff "$tmp/a" "$tmp/b" | head -20 || true
    failed=$((failed+1))
  fi
done
# `profpack equal`: the rewrite holds the same IR; two different profiles do not.
files=("$data"/cachegrind/*.out)
if "$cli" equal "${files[0]}" "$tmp/$(basename "${files[0]}").ppk" >/dev/null &&
   ! "$cli" equal "${files[0]}" "${files[1]}" >/dev/null; then
  echo "ok   profpack equal"; passed=$((passed+1))
else
  echo "FAIL profpack equal"; failed=$((failed+1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
