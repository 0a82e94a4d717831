#!/usr/bin/env python3
"""Writes a large pprof profile (gzip level 1, as runtime/pprof writes) built from a real one:
its sample types, mappings, locations, functions and strings, and N samples whose stacks are
the real stacks with their leaf-side half redrawn from the real locations (so stacks share
callers as a long run's do), values drawn at random, and a `worker` label of 16 values.
usage: gen_pprof_large.py REAL.pb.gz OUT.pb.gz --samples N [--seed S]"""
import argparse, gzip, os, random, sys


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from protowire import encode_varint as varint  # noqa: E402
from protowire import fields_with_bytes as fields  # noqa: E402
from protowire import varint as read_varint  # noqa: E402


ap = argparse.ArgumentParser()
ap.add_argument("real")
ap.add_argument("out")
ap.add_argument("--samples", type=int, default=1000000)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rnd = random.Random(a.seed)
msg = gzip.decompress(open(a.real, "rb").read())
keep, stacks, locations, strings, ntypes = [], [], [], [], 0
for f, w, v, raw in fields(msg):
    if f == 2:
        ids = []
        for g, gw, gv, _ in fields(v):
            if g == 1:
                if gw == 2:
                    j = 0
                    while j < len(gv):
                        x, j = read_varint(gv, j)
                        ids.append(x)
                else:
                    ids.append(gv)
        stacks.append(ids)
    elif f == 1:
        ntypes += 1
        keep.append(raw)
    elif f == 4:
        locations.append(dict((g, gv) for g, _, gv, _ in fields(v)).get(1, 0))
        keep.append(raw)
    elif f == 6:
        strings.append(v)
    else:
        keep.append(raw)
key = len(strings)
strings += [b"worker"] + [b"w%d" % i for i in range(16)]
out = bytearray(b"".join(keep))
for s in strings:
    out += b"\x32" + varint(len(s)) + s
for n in range(a.samples):
    base = rnd.choice(stacks)
    cut = len(base) // 2
    leaf = [rnd.choice(locations) for _ in range(rnd.randint(1, max(1, cut)))]
    ids = leaf + base[cut:]
    loc = b"".join(varint(x) for x in ids)
    val = b"".join(varint(rnd.randint(1, 20) * (10000000 if t else 1)) for t in range(ntypes))
    lab = b"\x08" + varint(key) + b"\x10" + varint(key + 1 + rnd.randrange(16))
    s = b"\x0a" + varint(len(loc)) + loc + b"\x12" + varint(len(val)) + val + \
        b"\x1a" + varint(len(lab)) + lab
    out += b"\x12" + varint(len(s)) + s
with gzip.open(a.out, "wb", compresslevel=1) as fh:
    fh.write(out)
