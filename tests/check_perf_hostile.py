#!/usr/bin/env python3
"""perf.data of hostile sizes is refused with the byte offset of what is wrong, quickly and
without a crash: a data section of 2^32 bytes, a record whose size runs past the data, a
callchain whose `nr` is larger than its record, and every truncation of a real recording's
first records. Needs no perf: the inputs are edits of tests/data/perf/spin.data."""
import os, struct, subprocess, sys, tempfile

cli = os.environ["PROFPACK_CLI"]
src = os.path.join(os.environ["PROFPACK_TEST_DATA"], "perf", "spin.data")
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed, failed = passed + bool(ok), failed + (not ok)


def refused(blob, tmp, expect, what):
    path = os.path.join(tmp, "x.data")
    with open(path, "wb") as f:
        f.write(blob)
    r = subprocess.run([cli, "info", path], capture_output=True, text=True, timeout=60)
    ok = r.returncode not in (0,) and r.returncode > 0 and expect in r.stderr
    check(ok, f"{what}: {r.stderr.strip()[:160]!r}")


def main():
    data = bytearray(open(src, "rb").read())
    data_at, data_size = struct.unpack_from("<QQ", data, 40)
    # The first sample record (type 9).
    at, first_sample = data_at, None
    while at < data_at + data_size:
        typ, _, size = struct.unpack_from("<IHH", data, at)
        if typ == 9:
            first_sample = at
            break
        at += size
    with tempfile.TemporaryDirectory() as tmp:
        b = bytearray(data)
        struct.pack_into("<Q", b, 48, 1 << 32)
        refused(bytes(b), tmp, "offset 40", "data section of 2^32 bytes")
        b = bytearray(data)
        struct.pack_into("<H", b, data_at + 6, 0xfff8)
        refused(bytes(b), tmp, f"offset {data_at}", "record size past the data")
        b = bytearray(data)
        struct.pack_into("<H", b, data_at + 6, 4)
        refused(bytes(b), tmp, f"offset {data_at}", "record smaller than its header")
        # The sample's callchain nr: after ip, tid, time, (id), period per sample_type.
        attrs_at = struct.unpack_from("<Q", data, 24)[0]
        sample_type = struct.unpack_from("<Q", data, attrs_at + 24)[0]
        off = first_sample + 8
        for bit in (1 << 16, 1, 2, 4, 8, 64, 512, 128, 256):
            off += 8 if sample_type & bit else 0
        check(sample_type & 32, "the recording has callchains")
        b = bytearray(data)
        struct.pack_into("<Q", b, off, 1 << 32)
        refused(bytes(b), tmp, f"offset {off}", "callchain nr of 2^32")
        for cut in range(data_at + 1, data_at + 600, 37):
            refused(bytes(data[:cut]), tmp, "offset", f"cut at byte {cut}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
