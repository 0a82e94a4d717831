#!/usr/bin/env bash
# Acceptance: `llvm-xray-14 convert --output-format=yaml --symbolize --instr_map=BINARY` prints
# the same records (compared sorted) for each XRay trace and for the trace written back from its
# .ppk (by the CLI), on every corpus trace and on traces recorded now with
# tests/xray/make-traces.sh (clang-14 -fxray-instrument; multi-thread, many buffers). Also
# checks the FDR traces written as versions 1-4 and as basic mode (through .ppk, by xray_tool),
# and each basic-mode trace written as FDR versions 1-5, with the fields those
# versions cannot carry normalised: the process id (no Pid record before version 3), the CPU
# of custom events (none before version 4) and the record type llvm-xray 14 leaks from a typed
# event into the records after it. On a recorded program whose calls are unwound by an exception
# or a longjmp, `profpack top`'s calls and times equal `llvm-xray-14 account -d`'s.
set -euo pipefail
cli=${PROFPACK_CLI:?}
data=${PROFPACK_TEST_DATA:?}
tool=${PROFPACK_XRAY_TOOL:?}
command -v llvm-xray-14 >/dev/null || { echo "llvm-xray-14 not installed (llvm-14)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
ok() { echo "ok   $1"; passed=$((passed+1)); }
bad() { echo "FAIL $1"; failed=$((failed+1)); }

# yaml FILE BINARY: the sorted record lines llvm-xray prints (BINARY "" = none).
yaml() {
  local map=()
  [ -n "$2" ] && map=(--symbolize "--instr_map=$2")
  llvm-xray-14 convert --output-format=yaml "${map[@]}" "$1" 2>/dev/null | grep '^  - {' | sort || true
}
same() {  # name a b: compare two record listings
  if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1 ($(wc -l < "$2") records)"; else
    bad "$1: llvm-xray records differ"; diff "$2" "$3" | head -6 || true; fi
}

check() {  # TRACE BINARY NAME
  local f=$1 bin=$2 name=$3
  "$cli" convert "$f" -o "$tmp/$name.ppk" 2>"$tmp/warn"
  "$cli" convert "$tmp/$name.ppk" --to xray -o "$tmp/$name.back"
  local ref=$f
  if grep -q 'trace truncated' "$tmp/warn"; then
    # llvm-xray cannot read a trace that ends inside a record: compare the complete part.
    local at; at=$(sed -n 's/.*byte offset \([0-9]*\): trace truncated.*/\1/p' "$tmp/warn" | head -1)
    head -c "$at" "$f" > "$tmp/$name.cut"; ref=$tmp/$name.cut
    head -c "$at" "$tmp/$name.back" > "$tmp/$name.backcut"
    yaml "$tmp/$name.cut" "$bin" > "$tmp/a"; yaml "$tmp/$name.backcut" "$bin" > "$tmp/b"
    cmp -s "$f" "$tmp/$name.back" || { bad "$name: written back with other bytes"; return; }
  else
    yaml "$f" "$bin" > "$tmp/a"; yaml "$tmp/$name.back" "$bin" > "$tmp/b"
  fi
  same "$name" "$tmp/a" "$tmp/b"
  cp "$tmp/a" "$tmp/ref"  # llvm-xray's records of $ref (the whole trace or its complete part)
  local srcv; srcv=$(od -An -tu2 -N2 "$f" | tr -d ' ')
  if [ "$(od -An -tu2 -j2 -N2 "$f" | tr -d ' ')" = 1 ]; then
    for v in 1 2 3 4 5; do
      [ "$ref" != "$f" ] && [ "$v" = "$srcv" ] && continue  # same version: checked above
      "$tool" "$f" "$tmp/$name.v$v" fdr $v
      local norm=''  # sed '': unchanged
      # Without a Pid record llvm-xray omits the process field (pid 0).
      [ $v -lt 3 ] && norm='s/process: [0-9]*, //'
      yaml "$tmp/$name.v$v" "$bin" | sed "$norm" > "$tmp/b"
      sed "$norm" "$tmp/ref" > "$tmp/a"
      if [ $v -lt 4 ]; then
        sed -i 's/cpu: [0-9]*\(.*custom-event\)/cpu: -\1/' "$tmp/a" "$tmp/b"
      fi
      sort -o "$tmp/a" "$tmp/a"; sort -o "$tmp/b" "$tmp/b"
      same "$name as FDR version $v" "$tmp/a" "$tmp/b"
    done
    "$tool" "$f" "$tmp/$name.basic" basic 3
    grep -v -- '-event,' "$tmp/ref" | sed 's/type: [0-9]*, //' | sort > "$tmp/a"
    yaml "$tmp/$name.basic" "$bin" | sed 's/type: [0-9]*, //' | sort > "$tmp/b"
    same "$name as basic mode" "$tmp/a" "$tmp/b"
  else
    # Basic mode written as FDR: one buffer per thread; llvm-xray must read the same records.
    for v in 1 2 3 4 5; do
      "$tool" "$f" "$tmp/$name.fdr$v" fdr $v
      local norm=''  # sed '': unchanged
      [ $v -lt 3 ] && norm='s/process: [0-9]*, //'  # no Pid record before version 3
      sed "$norm" "$tmp/ref" | sort > "$tmp/a"
      yaml "$tmp/$name.fdr$v" "$bin" | sed "$norm" | sort > "$tmp/b"
      same "$name (basic) as FDR version $v" "$tmp/a" "$tmp/b"
    done
  fi
}

binary_of() {  # trace name -> instrumented binary llvm-xray can load ("" for typed events)
  case $1 in
    *typed*) echo "";;
    *tailexit*|*st_o2*) echo "$2/st_o2${3:-}";;
    *mt*) echo "$2/mt${3:-}";;
    *unwind*) echo "$2/unwind${3:-}";;
    *) echo "$2/st${3:-}";;
  esac
}

for f in "$data"/xray/*.xray; do
  name=$(basename "$f" .xray)
  check "$f" "$(binary_of "$name" "$data/xray" .bin)" "$name"
done

# Fresh traces from the real runtime.
if bash "$(dirname "$0")/xray/make-traces.sh" "$tmp/gen" >"$tmp/make.log" 2>&1; then
  for f in "$tmp"/gen/*-*.*.*; do
    name=gen-$(basename "$f" | cut -d. -f1)
    check "$f" "$(binary_of "$name" "$tmp/gen")" "$name"
  done
  # Calls an exception or a longjmp went past (they never return): `top`'s calls and inclusive
  # time (no recursion: llvm-xray's sum) are `llvm-xray-14 account -d`'s, and the self times
  # add up to the elapsed time of the outermost call.
  f=$(echo "$tmp"/gen/basic-unwind.unwind.*)
  llvm-xray-14 account -d -format=csv "-instr_map=$tmp/gen/unwind" "$f" > "$tmp/acc.csv" 2>&1 || true
  "$cli" top "$f" --binary "$tmp/gen/unwind" --json > "$tmp/top.json"
  if why=$(python3 - "$tmp/acc.csv" "$tmp/top.json" <<'PY'
import csv, json, sys
ref = {r["function"]: r for r in csv.DictReader(open(sys.argv[1]))}
top = json.load(open(sys.argv[2]))
fns = {f["name"]: f for f in top["functions"]}
hz = top["units_per_second"]
bad = []
if set(ref) != set(fns) or not ref:
    bad.append(f"functions {sorted(ref)} vs {sorted(fns)}")
for name, r in ref.items():
    f = fns.get(name)
    if not f:
        continue
    got, want = f["inclusive"] / hz, float(r["sum"])
    if f["calls"] != int(r["count"]) or abs(got - want) > want * 5e-7:
        bad.append(f"{name}: {f['calls']} calls, {got:.6e} s; llvm-xray {r['count']}, {want:.6e} s")
roots = max(f["inclusive"] for f in fns.values()) if fns else 0
if sum(f["self"] for f in fns.values()) != top["total"] or top["total"] != roots:
    bad.append(f"self times add up to {sum(f['self'] for f in fns.values())}, total "
               f"{top['total']}, the outermost call {roots}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
  ); then ok "unwound calls: top equals llvm-xray account -d"; else
    bad "unwound calls: $why"; fi
else
  bad "make-traces.sh failed (needs clang-14 and libclang-rt-14-dev)"; tail -20 "$tmp/make.log"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
