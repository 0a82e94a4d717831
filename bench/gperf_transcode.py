#!/usr/bin/env python3
"""Rewrites a gperftools CPU profile with another slot width and byte order, for the benches.

The records and the mapped-objects text after them are kept; only the slots change. A value
that does not fit a 4-byte slot (a 64-bit address) keeps its low 32 bits, which is what a
32-bit process would have recorded for a program mapped below 4 GiB.

usage: gperf_transcode.py IN OUT --to {32le,32be,64le,64be} [--from {32le,...}]
"""
import argparse
import struct
import sys

LAYOUTS = {"32le": ("<", 4), "32be": (">", 4), "64le": ("<", 8), "64be": (">", 8)}


def slots(data, layout):
    """Yields (offset, value) of every slot of the binary part, then the offset after it."""
    order, width = LAYOUTS[layout]
    code = order + ("I" if width == 4 else "Q")

    def at(i):
        return struct.unpack_from(code, data, i * width)[0]

    if len(data) < 5 * width or at(0) != 0 or at(2) != 0 or at(1) < 3:
        sys.exit(f"not a {layout} gperftools CPU profile")
    header = 2 + at(1)
    out = [at(i) for i in range(header)]
    i = header
    while True:
        count, depth = at(i), at(i + 1)
        out += [count, depth] + [at(i + 2 + k) for k in range(depth)]
        i += 2 + depth
        if count == 0 and depth == 1 and out[-1] == 0:  # the trailer record
            return out, i * width


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--to", required=True, choices=LAYOUTS)
    ap.add_argument("--from", dest="source", default="64le", choices=LAYOUTS)
    a = ap.parse_args()
    data = open(a.inp, "rb").read()
    values, end = slots(data, a.source)
    order, width = LAYOUTS[a.to]
    mask = (1 << (8 * width)) - 1
    body = struct.pack(f"{order}{len(values)}{'I' if width == 4 else 'Q'}", *(v & mask for v in values))
    with open(a.out, "wb") as f:
        f.write(body + data[end:])


if __name__ == "__main__":
    main()
