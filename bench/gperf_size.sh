#!/usr/bin/env bash
# Benchmark (not a test): .ppk size against `go tool pprof -proto` for real gperftools profiles.
# usage: bench/gperf_size.sh [BUILD_DIR] [PROFILE...]
#
# Without profiles it uses tests/data/gperftools/perl-words.prof (recorded with
# bench/data/perl-words.pl, see bench/data/README.md) and, if present,
# bench/data/python-mix.prof, recorded as that README says.
# For each it prints the .ppk size at the default level and at 19, pprof's proto, and the ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true
cli=$build/tools/profpack
[ -x "$cli" ] || { echo "build first: ninja -C $build"; exit 1; }
command -v go >/dev/null || { echo "go not installed (go tool pprof)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" PPROF_TMPDIR="$tmp/pprof"
mkdir -p "$HOME" "$GOCACHE" "$GOPATH" "$PPROF_TMPDIR"
profiles=("$@")
if [ ${#profiles[@]} -eq 0 ]; then
  profiles=("$here/tests/data/gperftools/perl-words.prof")
  [ -f "$here/bench/data/python-mix.prof" ] && profiles+=("$here/bench/data/python-mix.prof")
fi
printf '%-28s %10s %10s %10s %12s %12s\n' profile bytes ppk ppk-19 pprof-proto ratio
for f in "${profiles[@]}"; do
  "$cli" convert "$f" -o "$tmp/a.ppk"
  "$cli" convert "$f" -o "$tmp/b.ppk" --level 19
  "$cli" convert "$tmp/a.ppk" -o "$tmp/back.prof" --to gperftools
  cmp -s "$f" "$tmp/back.prof" || { echo "$f: rewrite differs"; exit 1; }
  go tool pprof -proto -symbolize=none "$f" >"$tmp/p.pb.gz" 2>/dev/null
  a=$(stat -c %s "$tmp/a.ppk") b=$(stat -c %s "$tmp/b.ppk") p=$(stat -c %s "$tmp/p.pb.gz")
  printf '%-28s %10s %10s %10s %12s %12s\n' "$(basename "$f")" "$(stat -c %s "$f")" "$a" "$b" "$p" \
    "$(echo "scale=3; $a / $p" | bc)x"
done
