#!/usr/bin/env python3
"""What each candidate change of the .ppk container or IR would make of a profile's .ppk size
(issue 31: at most 0.6x the .pb.gz of real pprof profiles). Measured with the tools, not
implemented: the .ppk's Cap'n Proto message is taken out of the file (zstd -d of its frame)
and compressed again as each candidate would store it, all at zstd level 3 (the default).

  now       the .ppk as profpack writes it: 32-byte header + zstd frame of the message
  packed    (a) Cap'n Proto packed encoding of the message before zstd
  compact   (b) no Cap'n Proto structure at all: every struct, list and blob of the message
            (capnp convert binary:json) written as a tag byte per field and LEB128 lengths and
            values -- a lower bound for any compact form of small columns
  header8   (d) the same frame behind an 8-byte header (24 bytes less)
  dict      (c) zstd with a dictionary: the messages of the --train profiles, concatenated
            (a raw-content dictionary)
  all       (b) + (c) + (d): the compact form compressed with a dictionary of the compact
            forms of the --train profiles, behind an 8-byte header
  dict32    (c) with a 32 KB dictionary that zstd --train makes of the same messages
  all32     (b) + (d) + a 32 KB dictionary zstd --train makes of the compact forms

Usage: ppk_size_candidates.py PROFPACK SCHEMA [--train DIR] FILE...
Needs capnp, zstd and PROFPACK (the CLI). Prints one line per file: its size, then
each candidate's bytes and, for .pb.gz files, the ratio to the file."""
import json, os, subprocess, sys, tempfile


def leb(n, out):
    n = int(n)
    n = 2 * n if n >= 0 else -2 * n - 1
    while True:
        b, n = n & 127, n >> 7
        out.append(b | 128 if n else b)
        if not n:
            return


def compact(v, out, tags):
    if isinstance(v, dict):
        for k, x in v.items():
            out.append(tags.setdefault(k, len(tags) % 250))
            compact(x, out, tags)
        out.append(255)
    elif isinstance(v, list):
        leb(len(v), out)
        if v and all(isinstance(e, int) and 0 <= e < 256 for e in v):
            out.extend(v)  # a Data blob
        else:
            for e in v:
                compact(e, out, tags)
    elif isinstance(v, bool):
        out.append(int(v))
    elif isinstance(v, int):
        leb(v, out)
    elif isinstance(v, str):
        try:
            leb(int(v), out)  # UInt64 fields are strings in capnp's JSON
        except ValueError:
            b = v.encode()
            leb(len(b), out)
            out.extend(b)


def sh(args, data=None):
    return subprocess.run(args, input=data, capture_output=True, check=True).stdout


class Tool:
    def __init__(self, cli, schema, tmp):
        self.cli, self.schema, self.tmp, self.tags = cli, schema, tmp, {}

    def message(self, path):
        out = os.path.join(self.tmp, "m.ppk")
        r = subprocess.run([self.cli, "convert", path, "-o", out, "--to", "ppk"],
                           capture_output=True)
        if r.returncode != 0:
            return None
        with open(out, "rb") as f:
            return sh(["zstd", "-dq", "-c"], f.read()[32:])

    def compact(self, msg):
        j = sh(["capnp", "convert", "binary:json", self.schema, "Profile"], msg)
        out = bytearray()
        compact(json.loads(j), out, self.tags)
        return bytes(out)

    def zstd(self, data, dictionary=None):
        # From a file, as the library compresses: zstd sizes its tables to the known input.
        path = os.path.join(self.tmp, "in")
        with open(path, "wb") as f:
            f.write(data)
        args = ["zstd", "-3", "-q", "-c", path]
        if dictionary:
            args += ["-D", dictionary]
        return len(sh(args))


def main():
    args = sys.argv[1:]
    cli, schema = args[0], args[1]
    train = None
    if args[2] == "--train":
        train, files = args[3], args[4:]
    else:
        files = args[2:]
    tmp = tempfile.mkdtemp(prefix="ppk-candidates-")
    t = Tool(cli, schema, tmp)
    raw = cmp = None
    if train:
        msgs = [t.message(os.path.join(train, n)) for n in sorted(os.listdir(train))]
        msgs = [m for m in msgs if m]
        raw, cmp = os.path.join(tmp, "raw.dict"), os.path.join(tmp, "compact.dict")
        with open(raw, "wb") as f:
            f.write(b"".join(msgs))
        with open(cmp, "wb") as f:
            f.write(b"".join(t.compact(m) for m in msgs))
        print(f"dictionaries of {len(msgs)} profiles: {os.path.getsize(raw)} B raw, "
              f"{os.path.getsize(cmp)} B compact")
        trained = {}
        for kind, pieces in (("msg", msgs), ("compact", [t.compact(m) for m in msgs])):
            names = []
            for i, m in enumerate(pieces):
                names.append(os.path.join(tmp, f"{kind}{i}"))
                with open(names[-1], "wb") as f:
                    f.write(m)
            trained[kind] = os.path.join(tmp, kind + ".trained")
            sh(["zstd", "--train", "-q", "--maxdict=32768", "-o", trained[kind], *names])
    cols = ["now", "packed", "compact", "header8"]
    if train:
        cols += ["dict", "all", "dict32", "all32"]
    print("file | size | " + " | ".join(cols))
    for path in files:
        msg = t.message(path)
        if msg is None:
            continue
        size = os.path.getsize(path)
        frame = t.zstd(msg)
        c = t.compact(msg)
        got = {"now": 32 + frame,
               "packed": 32 + t.zstd(sh(["capnp", "convert", "binary:packed"], msg)),
               "compact": 32 + t.zstd(c), "header8": 8 + frame}
        if train:
            got["dict"] = 32 + t.zstd(msg, raw)
            got["all"] = 8 + t.zstd(c, cmp)
            got["dict32"] = 32 + t.zstd(msg, trained["msg"])
            got["all32"] = 8 + t.zstd(c, trained["compact"])
        gz = path.endswith(".pb.gz")
        cells = [f"{got[k]}" + (f" {got[k] / size:.3f}x" if gz else "") for k in cols]
        print(f"{os.path.relpath(path)} | {size} | " + " | ".join(cells), flush=True)


main()
