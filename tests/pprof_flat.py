#!/usr/bin/env python3
"""Prints `go tool pprof -symbolize=none -top -addresses` of a gperftools CPU profile as
"SAMPLES<TAB>OBJECT+0xOFFSET" per address with samples (flat, the samples' leaf addresses),
sorted, naming each address as `profpack top` does: its mapping's file and file offset (address -
start + offset), or the bare address outside any named mapping. Exits 1 if pprof fails.
usage: pprof_flat.py PROFILE"""
import subprocess
import sys


def pprof(*args):
    r = subprocess.run(["go", "tool", "pprof", "-symbolize=none", *args], capture_output=True,
                       text=True)
    if r.returncode:
        sys.exit(f"go tool pprof {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.splitlines()


path = sys.argv[1]
raw = pprof("-raw", path)
maps = []
for l in raw[raw.index("Mappings") + 1:]:
    f = l.split()
    if len(f) >= 3 and f[0].endswith(":"):
        start, limit, off = (int(x, 16) for x in f[1].split("/"))
        maps.append((start, limit, off, f[2]))
rows = []
body = False
for l in pprof("-top", "-addresses", "-sample_index=samples", "-nodecount=1000000",
               "-nodefraction=0", "-edgefraction=0", path):
    if l.strip().startswith("flat"):
        body = True
        continue
    f = l.split()
    if not body or len(f) < 6 or f[0] == "0":
        continue
    a = int(f[5], 16)
    m = next((m for m in maps if m[0] <= a < m[1]), None)
    rows.append(f"{f[0]}\t{m[3]}+{a - m[0] + m[2]:#x}" if m else f"{f[0]}\t{a:#x}")
if not body:
    sys.exit(f"go tool pprof -top printed no table for {path}")
print("\n".join(sorted(rows)))
