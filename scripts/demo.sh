#!/usr/bin/env bash
# The main job on the bundled sample profiles: converts each to .ppk and back to its own
# format, printing sizes and times, and checks that the round trip kept the IR (byte-identical
# files where the format allows, an equal IR otherwise; for a format profpack reads but does
# not write, that the .ppk holds the same IR as the file).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
cli=build/tools/profpack
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
printf '%-44s %-11s %10s %9s %7s %9s %9s\n' sample format bytes ppk ratio "to-ppk" "back"
for f in tests/data/*/*; do
  case "$f" in *.txt|*.bin|*.md|*.c) continue ;; esac
  fmt=$($cli info "$f" 2>/dev/null | sed -n 's/^format: \([a-z-]*\).*/\1/p') || true
  [ -n "$fmt" ] || continue
  name=$(basename "$f")
  t0=$(date +%s%N)
  # The IR as read: naming addresses from binaries found on this machine would add names
  # that the file itself does not hold.
  $cli convert "$f" -o "$out/$name.ppk" --level 19 --no-symbolize
  t1=$(date +%s%N)
  writable=yes
  if ! err=$($cli convert "$out/$name.ppk" --to "$fmt" -o "$out/$name.back" 2>&1); then
    case "$err" in *"read by profpack, not written"*) writable=no ;; *) echo "$err" >&2; exit 1 ;; esac
  fi
  t2=$(date +%s%N)
  in_size=$(stat -c %s "$f"); ppk_size=$(stat -c %s "$out/$name.ppk")
  # Byte-identical where the format allows; otherwise the rewrite must hold the same IR.
  if [ "$writable" = no ]; then
    if $cli equal "$f" "$out/$name.ppk" >/dev/null; then same="read only, .ppk same IR"
    else same="DIFFERENT IR"; fi
  elif cmp -s "$f" "$out/$name.back"; then same="identical"
  elif $cli equal "$f" "$out/$name.back" >/dev/null; then same="rewritten, same IR"
  else same="DIFFERENT IR"; fi
  awk -v n="$name" -v f="$fmt" -v i="$in_size" -v p="$ppk_size" -v a="$((t1 - t0))" \
    -v b="$((t2 - t1))" -v s="$same" \
    'BEGIN { printf "%-44s %-11s %10d %9d %6.1fx %7.1fms %7.1fms  %s\n", n, f, i, p, i / p, a / 1e6, b / 1e6, s }'
done
