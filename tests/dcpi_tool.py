#!/usr/bin/env python3
"""DCPI profile files (major version 0, docs/formats.md) for the tests, written from the format's
description alone and sharing nothing with lib/formats/dcpi/.

  dcpi_tool.py gen OUT [--seed N] [--chunks N] [--max-len N] [--pad] [--unknown KEY=VALUE ...]
      writes a profile: the required header lines and some optional ones in a seeded random
      order, then the KEY VALUE lines, "samples", chunks of little-endian uint32 counts at
      increasing, non-overlapping offsets (some adjacent, some counts zero, some large enough
      that the sum overflows 32 bits), and the footer. --pad pads the last header line with
      blanks so that the binary part starts at a multiple of 4.
  dcpi_tool.py dump FILE
      prints "header LINE" for every header line (trailing blanks removed), "OFFSET COUNT"
      (hex, decimal) for every address with samples, and "footer ADDRESSES SAMPLES". It checks
      what the format requires (a terminated header, whole chunks in order, the footer's
      figures) and exits 1 with a message on the first violation.
"""
import random
import struct
import sys


def gen(out, seed=1, chunks=50, max_len=64, pad=False, unknown=()):
    r = random.Random(f"profpack-dcpi-{seed}")
    tstart = r.randrange(0x100000000, 0x180000000, 16)
    lines = [
        f"version pdb-0.{r.choice([6, 7])}",
        f"image {r.randrange(1 << 32, 1 << 48):x}",
        "epoch %02d%02d%02d%02d%02d" % (r.randint(94, 99), r.randint(1, 12), r.randint(1, 28),
                                        r.randint(0, 23), r.randint(0, 59)),
        f"platform alpha-{r.choice(['21164', '21264', 'ev67'])}",
        f"event {r.choice(['cycles', 'imiss', 'cycles:imiss'])}",
        f"period {r.choice([2048, 16384, 65536])}",
        f"tstart {tstart:x}",
        f"tsize {r.randrange(1 << 12, 1 << 23)}",
        f"cpuspeed {r.choice([300, 433, 667])}",
    ]
    optional = [f"cpucount {r.randint(1, 16)}", f"cpuimplv {r.randint(1, 3)}",
                f"cpuamask {r.randrange(1, 1 << 16):x}",
                f"path /usr/lib/lib{r.choice(['ots', 'cxx', 'pthread'])}.so"]
    lines += r.sample(optional, r.randint(1, len(optional)))
    r.shuffle(lines)
    lines += [" ".join(kv.split("=", 1)) for kv in unknown]
    text = "".join(l + "\n" for l in lines)
    if pad:
        fill = -(len(text) + len("samples\n")) % 4
        text = text[:-1] + "".join(r.choice(" \t") for _ in range(fill)) + "\n"
    text += "samples\n"

    body = []
    at = 0
    addresses = total = 0
    for _ in range(chunks):
        at += 4 * r.choice([0, 0, 1, 2, r.randrange(1, 3000)])
        n = r.randint(1, max_len)
        counts = []
        for _ in range(n):
            k = r.random()
            c = 0 if k < 0.3 else r.randint(1, 9) if k < 0.8 else r.randrange(1 << 10) if k < 0.95 \
                else r.randrange(1 << 22)
            counts.append(c)
        body.append(struct.pack(f"<II{n}I", at, n, *counts))
        addresses += sum(1 for c in counts if c)
        total += sum(counts)
        at += 4 * n
    body.append(struct.pack("<II", addresses, total % (1 << 32)))
    with open(out, "wb") as f:
        f.write(text.encode("ascii") + b"".join(body))


def fail(msg):
    sys.exit(f"dcpi_tool dump: {msg}")


def dump(path):
    data = open(path, "rb").read()
    pos = 0
    header = []
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            fail("no 'samples' line ends the header")
        line = data[pos:nl].decode("ascii")
        pos = nl + 1
        if line.rstrip(" \t") == "samples":
            break
        header.append(line)
    out = [f"header {l.rstrip()}" for l in header]
    end = len(data) - 8
    if end < pos:
        fail("no footer")
    prev_end = None
    addresses = total = 0
    while pos < end:
        if end - pos < 8:
            fail(f"{end - pos} bytes before the footer are no chunk")
        off, n = struct.unpack_from("<II", data, pos)
        pos += 8
        if n == 0 or pos + 4 * n > end:
            fail(f"chunk at offset {off:x} of {n} counts does not fit before the footer")
        if prev_end is not None and off < prev_end:
            fail(f"chunk at offset {off:x} overlaps or precedes the one before")
        for i, c in enumerate(struct.unpack_from(f"<{n}I", data, pos)):
            if c:
                out.append(f"{off + 4 * i:x} {c}")
                addresses += 1
                total += c
        pos += 4 * n
        prev_end = off + 4 * n
    f_addresses, f_total = struct.unpack_from("<II", data, end)
    if (f_addresses, f_total) != (addresses, total % (1 << 32)):
        fail(f"footer {f_addresses} {f_total} but the chunks hold {addresses} addresses with "
             f"{total} samples")
    out.append(f"footer {f_addresses} {f_total}")
    sys.stdout.write("".join(l + "\n" for l in out))


def main(argv):
    if len(argv) == 2 and argv[0] == "dump":
        return dump(argv[1])
    if len(argv) >= 2 and argv[0] == "gen":
        opts = {"seed": 1, "chunks": 50, "max_len": 64, "pad": False, "unknown": []}
        args = argv[2:]
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("--seed", "--chunks", "--max-len") and i + 1 < len(args):
                opts[a[2:].replace("-", "_")] = int(args[i + 1])
                i += 2
            elif a == "--pad":
                opts["pad"] = True
                i += 1
            elif a == "--unknown":
                i += 1
                while i < len(args) and not args[i].startswith("--"):
                    if "=" not in args[i]:
                        sys.exit(f"dcpi_tool gen: --unknown wants KEY=VALUE, not {args[i]!r}")
                    opts["unknown"].append(args[i])
                    i += 1
            else:
                sys.exit(f"dcpi_tool gen: unknown argument {a!r}")
        return gen(argv[1], **opts)
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
