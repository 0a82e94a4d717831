#!/usr/bin/env bash
# Acceptance: tests/dcpi_tool.py dump (a DCPI dumper independent of lib/formats/dcpi) prints the
# same for every DCPI test file and for the file written back from its .ppk, the rewrite is
# byte-identical, and `profpack info` reports the footer's sample total. For tests/data/dcpi the
# dump also equals the committed *.expected.txt, which the external dumper printed (PROVENANCE.md).
# Besides tests/data/dcpi, files generated here by dcpi_tool.py gen with other seeds, sizes (0, 1
# and 20000 chunks) and options are checked.
set -euo pipefail
cli=${PROFPACK_CLI:?}
data=${PROFPACK_TEST_DATA:?}
command -v python3 >/dev/null || { echo "python3 not installed"; exit 1; }
tool=$(dirname "$0")/dcpi_tool.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

files=("$data"/dcpi/*.dcpi)
python3 "$tool" gen "$tmp/gen-20000-chunks.dcpi" --seed 31 --chunks 20000
python3 "$tool" gen "$tmp/gen-0-chunks-padded.dcpi" --seed 32 --chunks 0 --pad
python3 "$tool" gen "$tmp/gen-1-chunk-unknown.dcpi" --seed 33 --chunks 1 --unknown owner=someone "x.y=a b  c"
python3 "$tool" gen "$tmp/gen-pad-unknown.dcpi" --seed 34 --chunks 500 --max-len 9 --pad --unknown k=v
files+=("$tmp"/gen-*.dcpi)

passed=0; failed=0
for f in "${files[@]}"; do
  name=$(basename "$f")
  why=""
  "$cli" convert "$f" -o "$tmp/$name.ppk"
  "$cli" convert "$tmp/$name.ppk" --to dcpi -o "$tmp/$name.back"
  python3 "$tool" dump "$f" > "$tmp/a"
  python3 "$tool" dump "$tmp/$name.back" > "$tmp/b" || true
  cmp -s "$tmp/a" "$tmp/b" || why="dcpi_tool.py dump output differs"
  want=${f%.dcpi}.expected.txt
  if [ -f "$want" ] && ! cmp -s "$tmp/a" "$want"; then
    why="${why:+$why; }dcpi_tool.py dump differs from ${want##*/}"
  fi
  cmp -s "$f" "$tmp/$name.back" || why="${why:+$why; }rewrite is not byte-identical"
  # info: the event total mod 2^32 equals the footer's total samples.
  footer=$(tail -1 "$tmp/a" | awk '{print $3}')
  total=$("$cli" info "$tmp/$name.ppk" | awk '/^events:/ {getline; print $2}')
  [ -n "$total" ] && [ $((total % 4294967296)) -eq "$footer" ] ||
    why="${why:+$why; }info total $total disagrees with footer $footer"
  if [ -z "$why" ]; then
    echo "ok   $name"; passed=$((passed+1))
  else
    echo "FAIL $name: $why"; diff "$tmp/a" "$tmp/b" | head -10 || true
    failed=$((failed+1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
