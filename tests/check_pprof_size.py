#!/usr/bin/env python3
"""A pprof profile kept as .ppk (zstd level 3, the default) is at most 0.6x the size of its
.pb.gz (issue 31), on the real profiles of tests/data/pprof that Go's runtime/pprof wrote
(PROVENANCE.md). Prints each file's .pb.gz, .ppk and ratio; the tiny and converted files are
printed for information only."""
import os, sys, tempfile

import checklib
from checklib import check, finish, run, data

LIMIT = 0.6
# Written by runtime/pprof (Go 1.19.8): what the limit is about.
REAL = ["go-cpu.pb.gz", "go-heap.pb.gz", "flate-cpu.pb.gz", "flate-mem.pb.gz", "json-cpu.pb.gz",
        "sort-cpu.pb.gz"]
# Written by go tool pprof or profpack, or tiny: figures only.
OTHER = ["gperf-hot-inline.pb.gz", "hot-diff.pb.gz", "profpack-rec.pb.gz",
         "profpack-gperf.pb.gz"]

tmp = tempfile.mkdtemp(prefix="profpack-pprof-size-")
total_gz = total_ppk = 0
for name in REAL + OTHER:
    src = os.path.join(data, "pprof", name)
    out = os.path.join(tmp, name + ".ppk")
    r = run("convert", src, "-o", out, "--to", "ppk")
    if r.returncode != 0:
        check(False, f"{name}: convert to .ppk: {r.stderr.strip()}")
        continue
    gz, ppk = os.path.getsize(src), os.path.getsize(out)
    ratio = ppk / gz
    line = f"{name}: .pb.gz {gz} B, .ppk {ppk} B, {ratio:.3f}x"
    if name in REAL:
        total_gz += gz
        total_ppk += ppk
        check(ratio <= LIMIT, f"{line} (limit {LIMIT}x)")
    else:
        print("info", line)
if total_gz:
    print(f"info real profiles together: .pb.gz {total_gz} B, .ppk {total_ppk} B, "
          f"{total_ppk / total_gz:.3f}x")
finish()
