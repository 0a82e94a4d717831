#!/usr/bin/env python3
"""Synthesise a large 64-bit little-endian gperftools CPU profile from a real one.

usage: gen_gperf_large.py REAL.prof OUT.prof [--mb 200] [--seed 1] [--distinct N | --unique]

A real run cannot reach hundreds of MB in reasonable time (the profiler aggregates samples
per stack), so records are derived from the real profile's call chains the way a long run of
a larger program varies them: the leaf PC moves to other instructions of its function, call
sites occasionally differ, recursion depth varies, and hot chains are emitted again (as the
profiler evicts them again). The mapped-objects text is the real one.

Default ("open" mode): 35% of records repeat an earlier chain, the rest are new chains, so the
number of distinct chains grows with the file (about 1.1 million at 200 MB) - a worst case.
With --distinct N the program has N distinct chains, and records draw from them with Zipf
(s = 1.1) popularity, as the evictions of a long run of a program with N stacks would.
With --unique every record has a chain of its own (what pprof cannot merge).
"""
import argparse, array, random, struct, sys

def read64le(data):
    hdr = struct.unpack_from("<5Q", data, 0)
    assert hdr[0] == 0 and hdr[1] >= 3, "not a 64-bit little-endian gperftools profile"
    pos = (2 + hdr[1]) * 8
    records = []
    while True:
        count, n = struct.unpack_from("<2Q", data, pos)
        pcs = struct.unpack_from("<%dQ" % n, data, pos + 16)
        pos += (2 + n) * 8
        if count == 0 and n == 1 and pcs[0] == 0:
            break
        records.append(pcs)
    return list(struct.unpack_from("<%dQ" % (2 + hdr[1]), data, 0)), records, data[pos:]

def variant(rng, base):
    """A chain like a real one: another leaf instruction, sometimes another call site or
    recursion depth."""
    pcs = list(base[rng.randrange(len(base))])
    if rng.random() < 0.8:
        pcs[0] += rng.randrange(-256, 256)
    for i in range(1, len(pcs)):
        if rng.random() < 0.05:
            pcs[i] += rng.randrange(-64, 64)
    if len(pcs) > 4 and rng.random() < 0.3:
        i = rng.randrange(1, len(pcs) - 2)
        j = min(len(pcs) - 1, i + rng.randrange(1, 4))
        pcs = pcs[:j] + pcs[i:j] * rng.randrange(1, 4) + pcs[j:]
    return pcs

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("real"); ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=200); ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--distinct", type=int, default=0)
    ap.add_argument("--unique", action="store_true")
    a = ap.parse_args()
    header, base, text = read64le(open(a.real, "rb").read())
    rng = random.Random(a.seed)
    target = int(a.mb * 1e6) - len(text)
    slots = array.array("Q", header)
    pool = []
    seen = set()
    universe = None
    if a.distinct:
        universe = set()
        while len(universe) < a.distinct:
            universe.add(tuple(variant(rng, base)))
        universe = sorted(universe)
        rng.shuffle(universe)
        cum, t = [], 0.0
        for i in range(len(universe)):
            t += 1.0 / (i + 1) ** 1.1
            cum.append(t)
    while len(slots) * 8 < target:
        if universe is not None:
            for pcs in rng.choices(universe, cum_weights=cum, k=1000):
                slots.append(1 if rng.random() < 0.7 else rng.randrange(2, 6))
                slots.append(len(pcs))
                slots.extend(pcs)
            continue
        if a.unique:
            pcs = tuple(variant(rng, base))
            if pcs in seen:
                continue
            seen.add(pcs)
        elif pool and rng.random() < 0.35:
            pcs = pool[rng.randrange(len(pool))]
        else:
            pcs = variant(rng, base)
            pool.append(pcs)
        slots.append(1 if rng.random() < 0.7 else rng.randrange(2, 6))
        slots.append(len(pcs))
        slots.extend(pcs)
    slots.extend((0, 1, 0))
    if sys.byteorder != "little":
        slots.byteswap()
    with open(a.out, "wb") as f:
        f.write(slots.tobytes())
        f.write(text)

if __name__ == "__main__":
    main()
