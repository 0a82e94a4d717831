#!/usr/bin/env python3
"""perf.data of hostile sizes is refused with the byte offset of what is wrong, quickly and
without a crash: a data section of 2^32 bytes, a record whose size runs past the data, a
callchain whose `nr` is larger than its record, and every truncation of a real recording's
first records; of a perf record -z recording (tests/data/perf/compressed), compressed records
the header does not announce, a zstd payload with its bytes changed, and truncations. Needs no
perf: the inputs are edits of the committed recordings."""
import json, os, struct, subprocess, sys, tempfile

cli = os.environ["PROFPACK_CLI"]
src = os.path.join(os.environ["PROFPACK_TEST_DATA"], "perf", "spin.data")
compressed = os.path.join(os.environ["PROFPACK_TEST_DATA"], "perf", "compressed", "threads.data")
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


def directory(tmp):
    """A perf record --threads directory (tests/data/perf/dir) whose thread file ends inside a
    record: refused, naming that file and the offset in it."""
    src_dir = os.path.join(os.environ["PROFPACK_TEST_DATA"], "perf", "dir", "threads.data")
    d = os.path.join(tmp, "cut.data")
    os.mkdir(d)
    biggest = max((n for n in os.listdir(src_dir) if n != "data"),
                  key=lambda n: os.path.getsize(os.path.join(src_dir, n)))
    for name in os.listdir(src_dir):
        blob = open(os.path.join(src_dir, name), "rb").read()
        if name == biggest:
            blob = blob[:len(blob) - 5]
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob)
    r = subprocess.run([cli, "info", d], capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and f"{biggest}, byte offset" in r.stderr,
          f"a --threads directory whose {biggest} is cut short: {r.stderr.strip()[:200]!r}")
    # Its header file, data, with a data section past its end: refused, naming data.
    head = bytearray(open(os.path.join(src_dir, "data"), "rb").read())
    struct.pack_into("<Q", head, 48, len(head))
    with open(os.path.join(d, "data"), "wb") as f:
        f.write(head)
    r = subprocess.run([cli, "info", d], capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and "data: data section" in r.stderr and "offset 40" in r.stderr,
          f"a --threads directory whose data says a data section past its end: "
          f"{r.stderr.strip()[:200]!r}")


def unfinished(data, tmp):
    """A recording perf record did not finish (killed): a data size of 0 in the header, no
    feature sections, the last record cut short. Its whole records are read, with a warning,
    as many samples as they hold."""
    data_at, data_size = struct.unpack_from("<QQ", data, 40)
    at, records = data_at, []
    while at < data_at + data_size:
        typ, _, size = struct.unpack_from("<IHH", data, at)
        records.append((at, typ, size))
        at += size
    sample_at = [r[0] for r in records if r[1] == 9]
    cut = sample_at[len(sample_at) // 2] + 20  # inside a sample record
    b = bytearray(data[:cut])
    struct.pack_into("<Q", b, 48, 0)
    path = os.path.join(tmp, "unfinished.data")
    with open(path, "wb") as f:
        f.write(b)
    r = subprocess.run([cli, "info", path, "--json"], capture_output=True, text=True, timeout=60)
    got, said = None, ""
    if r.returncode == 0:
        info = json.loads(r.stdout)
        got = {e["name"]: e["total"] for e in info["events"]}.get("samples")
        said = " ".join(w if isinstance(w, str) else json.dumps(w) for w in info["warnings"])
    want = len(sample_at) // 2
    check(got == want and "data size is 0" in said and f"byte {sample_at[want]}" in said,
          f"unfinished recording (data size 0, cut inside a record): {got} samples read of the "
          f"{want} whole ones, and said so: {said[:300]!r}")
    # Damage is not a cut: a record smaller than its header, in an unfinished recording too.
    b = bytearray(data[:cut])
    struct.pack_into("<Q", b, 48, 0)
    struct.pack_into("<H", b, sample_at[1] + 6, 4)
    refused(bytes(b), tmp, f"offset {sample_at[1]}", "unfinished recording with a record of 4 bytes")
    # A finished recording of no records: data size 0, its feature table right after: not
    # taken for an unfinished one.
    tail = bytes(data[data_at + data_size:])
    b = bytearray(data[:data_at]) + tail
    struct.pack_into("<Q", b, 48, 0)
    count = bin(int.from_bytes(data[72:104], "little")).count("1")
    for i in range(count):
        off = data_at + 16 * i
        struct.pack_into("<Q", b, off, struct.unpack_from("<Q", b, off)[0] - data_size)
    with open(path, "wb") as f:
        f.write(b)
    r = subprocess.run([cli, "info", path], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "data size is 0" not in r.stderr,
          f"a finished recording of no records: read, not as unfinished: {r.stderr.strip()[:160]!r}")
    # An AUXTRACE payload size that wraps the offset round to the record itself: refused, not
    # read forever.
    first = data_at
    b = bytearray(data[:first]) + struct.pack("<IHHQ", 71, 0, 48, (1 << 64) - 48) + bytes(32) + \
        data[first:]
    struct.pack_into("<Q", b, 48, data_size + 48)
    for i in range(count):
        off = data_at + data_size + 48 + 16 * i
        struct.pack_into("<Q", b, off, struct.unpack_from("<Q", b, off)[0] + 48)
    refused(bytes(b), tmp, f"offset {first}", "an AUXTRACE payload size of 2^64 - 48")


def hostile_compressed(tmp):
    z = bytearray(open(compressed, "rb").read())
    data_at, data_size = struct.unpack_from("<QQ", z, 40)
    at, records = data_at, []  # (offset, type, size)
    while at < data_at + data_size:
        typ, _, size = struct.unpack_from("<IHH", z, at)
        records.append((at, typ, size))
        at += size
    first = next(r for r in records if r[1] == 81)
    check(z[72 + 27 // 8] & (1 << 27 % 8) and len([r for r in records if r[1] == 81]) >= 2,
          "perf record -z: HEADER_COMPRESSED and compressed records")
    b = bytearray(z)
    b[72 + 27 // 8] &= ~(1 << 27 % 8) & 0xFF
    refused(bytes(b), tmp, f"offset {first[0]}", "compressed records the header does not announce")
    b = bytearray(z)
    b[first[0] + 8:first[0] + 12] = b"\0\0\0\0"  # the zstd frame's magic number
    refused(bytes(b), tmp, f"offset {first[0]}", "a compressed record that is not zstd")
    b = bytearray(z)
    for i in range(first[0] + 16, first[0] + first[2]):  # the frame's blocks, not its header
        b[i] ^= 0x5A
    r = subprocess.run([cli, "info", "-"], input=bytes(b), capture_output=True, timeout=60)
    check(r.returncode in (0, 3) or b"perf" in r.stderr,  # read, or refused with its reason
          f"a compressed record with its blocks changed: rc {r.returncode}, "
          f"{r.stderr.decode(errors='replace').strip()[:160]!r}")
    tail_at = data_at + data_size
    features = bin(int.from_bytes(z[72:104], "little")).count("1")

    def with_data(section):
        """The file with its data section replaced by `section`, the features moved after it."""
        b = bytearray(z[:data_at]) + section
        end = len(b)
        b += z[tail_at:]
        struct.pack_into("<Q", b, 48, end - data_at)
        for i in range(features):
            off = end + 16 * i
            struct.pack_into("<Q", b, off, struct.unpack_from("<Q", b, off)[0] + end - tail_at)
        return bytes(b)

    def ending_with(rec, payload):
        """The file with its data section ending in record `rec`, whose payload is `payload`
        (the records after it gone), the feature sections moved to follow it."""
        head = struct.pack("<IHH", *struct.unpack_from("<IH", z, rec[0]), 8 + len(payload))
        return with_data(bytes(z[data_at:rec[0]]) + head + payload)

    # The stream cut short: the data section ends inside the last compressed record.
    last = [r for r in records if r[1] == 81][-1]
    for keep in range(1, last[2] - 8, max(1, last[2] // 10)):
        refused(ending_with(last, z[last[0] + 8:last[0] + 8 + keep]), tmp, f"offset {last[0]}",
                f"perf record -z with its stream cut {last[2] - 8 - keep} bytes short")
    def samples(blob):
        path = os.path.join(tmp, "z.data")
        with open(path, "wb") as f:
            f.write(blob)
        r = subprocess.run([cli, "info", path, "--json"], capture_output=True, text=True,
                           timeout=60)
        if r.returncode != 0:
            return r.stderr.strip()[:200]
        return {e["name"]: e["total"] for e in json.loads(r.stdout)["events"]}["samples"]

    whole = samples(bytes(z))
    # Later perf's PERF_RECORD_COMPRESSED2: a u64 of the payload's size, padded to 8 bytes.
    section = bytearray()
    for at, typ, size in records:
        if typ == 81:
            payload = z[at + 8:at + size]
            padded = (16 + len(payload) + 7) // 8 * 8
            section += struct.pack("<IHHQ", 83, 0, padded, len(payload)) + payload
            section += bytes(padded - 16 - len(payload))
        else:
            section += z[at:at + size]
    got = samples(with_data(bytes(section)))
    check(got == whole and isinstance(whole, int) and whole > 0,
          f"PERF_RECORD_COMPRESSED2 records: {got} samples, as the same stream in "
          f"PERF_RECORD_COMPRESSED ones ({whole})")
    # A COMPRESSED2 whose data size runs past its record: refused at that record.
    first83 = data_at + sum(size for at, typ, size in records if at < first[0])
    b = bytearray(with_data(bytes(section)))
    struct.pack_into("<Q", b, first83 + 8, 1 << 20)
    refused(bytes(b), tmp, f"offset {first83}", "a COMPRESSED2 whose data size runs past it")
    # 3.2 MB of records perf wrote uncompressed before the compressed ones: the bound on what
    # the compressed bytes decompress to counts theirs alone.
    prefix = struct.pack("<IHH", 82, 0, 8) * 400_000
    got = samples(with_data(prefix + bytes(z[data_at:tail_at])))
    check(got == whole, f"3.2 MB of uncompressed records before the compressed ones: {got} "
          f"samples ({whole} without them)")
    # perf record -z killed: data size 0, no features, the last compressed record cut.
    b = bytearray(z[:last[0] + last[2] // 2])
    struct.pack_into("<Q", b, 48, 0)
    got = samples(bytes(b))
    check(isinstance(got, int) and 0 < got < whole,
          f"perf record -z stopped inside a compressed record: {got} of {whole} samples read")
    # ... and stopped with its last compressed record whole but its zstd block cut (the record
    # perf wrote last held part of a block).
    keep = (last[2] - 8) // 2
    b = bytearray(ending_with(last, z[last[0] + 8:last[0] + 8 + keep])[:last[0] + 8 + keep])
    struct.pack_into("<Q", b, 48, 0)
    got = samples(bytes(b))
    check(isinstance(got, int) and 0 < got < whole,
          f"perf record -z stopped inside a zstd block: {got} of {whole} samples read")
    # A stream that grows ten thousand times (16 MB of zeros in a 510-byte frame).
    bomb = subprocess.run(["zstd", "-19", "-q", "-c"], input=bytes(16_000_000),
                          capture_output=True, check=True).stdout
    refused(ending_with(first, bomb), tmp, f"offset {first[0]}",
            f"a compressed record of {len(bomb)} bytes that decompresses to 16 MB")


def pipe_cut(tmp):
    """A pipe-mode stream (perf record -o -) cut short, as by a killed perf or a cut file: no
    size says where it ends, so its whole records are read and the cut one is said, as perf
    report reads them; a record smaller than its header is still damage."""
    pipe = open(os.path.join(os.path.dirname(src), "pipe.data"), "rb").read()
    at, samples = 16, []
    while at + 8 <= len(pipe):
        typ, _, size = struct.unpack_from("<IHH", pipe, at)
        if typ == 9:
            samples.append(at)
        at += size
    path = os.path.join(tmp, "pipe-cut.data")
    for k in (1, len(samples) // 2, len(samples) - 1):
        cut = samples[k] + 13  # inside sample k
        with open(path, "wb") as f:
            f.write(pipe[:cut])
        r = subprocess.run([cli, "info", path, "--json"], capture_output=True, text=True,
                           timeout=60)
        got, said = None, ""
        if r.returncode == 0:
            info = json.loads(r.stdout)
            got = {e["name"]: e["total"] for e in info["events"]}.get("samples")
            said = " ".join(w if isinstance(w, str) else json.dumps(w) for w in info["warnings"])
        check(got == k and f"byte {samples[k]}" in said,
              f"a pipe-mode stream cut inside sample {k}: {got} samples read, and the cut said: "
              f"{(said or r.stderr)[:200]!r}")
    b = bytearray(pipe[:samples[-1]])
    struct.pack_into("<H", b, samples[1] + 6, 4)
    refused(bytes(b), tmp, f"offset {samples[1]}", "a pipe-mode record of 4 bytes")


def many_kernel_mappings(tmp):
    """A perf.data of 20,000 kernel mappings and 400,000 distinct kernel addresses none holds:
    each such frame is looked for once, not in every kernel mapping (a reviewer's file took
    45 s where it takes under one): read well within the limit."""
    attr_size = 112
    attr = struct.pack("<IIQQQQQ", 1, attr_size, 0, 1, 0x1 | 0x2 | 0x20, 0, 0).ljust(attr_size, b"\0")
    recs = []
    for i in range(20000):
        name = (b"/m%d.ko\0" % i).ljust(((len(b"/m%d.ko\0" % i) + 7) // 8) * 8, b"\0")
        body = struct.pack("<IIQQQ", 0xffffffff, 0, 0xffff800000000000 + i * 0x1000, 0x1000, 0)
        recs.append(struct.pack("<IHH", 1, 1, 8 + len(body) + len(name)) + body + name)
    for n in range(0, 400000, 500):
        ips = [0xffffffffffffff80] + [0xffffffff00000000 + (n + j) * 16 for j in range(500)]
        body = struct.pack("<QIIQ", ips[1], 1, 1, len(ips)) + b"".join(struct.pack("<Q", x) for x in ips)
        recs.append(struct.pack("<IHH", 9, 1, 8 + len(body)) + body)
    records = b"".join(recs)
    data_at = 104 + attr_size + 16
    head = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, attr_size + 16, 104, attr_size + 16, data_at,
                                     len(records), 0, 0) + b"\0" * 32
    path = os.path.join(tmp, "many-kernel-mappings.data")
    with open(path, "wb") as f:
        f.write(head + attr + struct.pack("<QQ", 0, 0) + records)
    try:
        r = subprocess.run([cli, "info", "--no-symbolize", path], capture_output=True, text=True,
                           timeout=20)
        check(r.returncode == 0, f"20,000 kernel mappings, 400,000 kernel addresses outside them: "
                                 f"read ({r.stderr.strip()[:160]!r})")
    except subprocess.TimeoutExpired:
        check(False, "20,000 kernel mappings, 400,000 kernel addresses outside them: over 20 s")


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
        hostile_compressed(tmp)
        unfinished(data, tmp)
        pipe_cut(tmp)
        many_kernel_mappings(tmp)
        directory(tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
