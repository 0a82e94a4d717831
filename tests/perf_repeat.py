#!/usr/bin/env python3
"""Makes a long perf.data from a short real one: its data section K times over, each copy's
times shifted past the one before and (with --new-processes) its pids and tids shifted, so that
every copy's processes are new ones, as in the recording of a build. The copies keep the
recording's FINISHED_ROUND records, so the result has K rounds or more; the header's user
records (id index, thread and cpu maps, time conversion) are kept once. Reads perf.data in
file mode, one attr, sample_id_all, little-endian (what `perf record` writes on x86-64).

  perf_repeat.py IN OUT K [--new-processes]
"""
import struct
import sys

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1, 2, 4, 8
SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_IDENTIFIER = 64, 512, 1 << 16
MMAP, COMM, EXIT, FORK, SAMPLE, MMAP2, FINISHED_ROUND = 1, 3, 4, 7, 9, 10, 68
PID_STEP = 1 << 20  # above any pid of the input (pid_max is at most 2^22: checked below)


def records(d, at, end):
    while at < end:
        typ, misc, size = struct.unpack_from("<IHH", d, at)
        if size < 8:
            raise ValueError(f"record of {size} bytes at {at}")
        yield at, typ, misc, size
        at += size


def repeat(d, k, new_processes):
    if d[:8] != b"PERFILE2" or struct.unpack_from("<Q", d, 8)[0] < 104:
        raise ValueError("not a perf.data in file mode")
    attr_size, attrs_at, attrs_size, data_at, data_size = struct.unpack_from("<QQQQQ", d, 16)
    if attrs_size != attr_size:
        raise ValueError("more than one attr")
    sample_type = struct.unpack_from("<Q", d, attrs_at + 24)[0]
    if not (struct.unpack_from("<Q", d, attrs_at + 40)[0] >> 18) & 1:
        raise ValueError("no sample_id_all")
    if sample_type & (SAMPLE_IDENTIFIER | SAMPLE_ID | SAMPLE_STREAM_ID):
        raise ValueError("sample ids are not shifted here")
    id_block = 8 * sum(1 for b in (SAMPLE_TID, SAMPLE_TIME) if sample_type & b)
    end = data_at + data_size
    # Copy c's times are moved by c * span, span past every time of the recording (its
    # synthesized records may carry time 0): the copies follow each other, in order.
    span = 0
    for at, typ, _, size in records(d, data_at, end):
        if typ == SAMPLE and sample_type & SAMPLE_TIME:
            p = at + 8 + 8 * bool(sample_type & SAMPLE_IP) + 8 * bool(sample_type & SAMPLE_TID)
            span = max(span, struct.unpack_from("<Q", d, p)[0])
        elif typ < 64 and sample_type & SAMPLE_TIME and size >= 8 + id_block:
            span = max(span, struct.unpack_from("<Q", d, at + size - 8)[0])
    span += 1_000_000

    def shift_id(v, c):  # a pid or tid of copy c; 0 (the idle task) and -1 (the kernel) stay
        if not new_processes or v in (0, 0xFFFFFFFF):
            return v
        if v >= PID_STEP:
            raise ValueError(f"pid {v} at or above {PID_STEP}")
        return v + c * PID_STEP

    def shift_tid_time(r, p, c, dt):  # pid/tid then time at p, as sample_type has them
        if sample_type & SAMPLE_TID:
            pid, tid = struct.unpack_from("<II", r, p)
            struct.pack_into("<II", r, p, shift_id(pid, c), shift_id(tid, c))
            p += 8
        if sample_type & SAMPLE_TIME:
            struct.pack_into("<Q", r, p, struct.unpack_from("<Q", r, p)[0] + dt)

    out = bytearray()
    for c in range(k):
        dt = c * span
        for at, typ, _, size in records(d, data_at, end):
            if typ >= 64 and typ != FINISHED_ROUND and c > 0:
                continue  # the header's user records: once
            r = bytearray(d[at:at + size])
            if typ == SAMPLE:
                shift_tid_time(r, 8 + 8 * bool(sample_type & SAMPLE_IP), c, dt)
            elif typ < 64:
                if typ in (MMAP, COMM, MMAP2):
                    pid, tid = struct.unpack_from("<II", r, 8)
                    struct.pack_into("<II", r, 8, shift_id(pid, c), shift_id(tid, c))
                elif typ in (EXIT, FORK):
                    ids = struct.unpack_from("<IIII", r, 8)
                    struct.pack_into("<IIII", r, 8, *(shift_id(v, c) for v in ids))
                    struct.pack_into("<Q", r, 24, struct.unpack_from("<Q", r, 24)[0] + dt)
                if id_block:  # the sample_id block at the end: tid/pid, then time
                    shift_tid_time(r, size - id_block, c, dt)
            out += r
    # The file: header and what precedes the data as they are, the new data, then the feature
    # section table and sections with their offsets moved by the data's growth.
    grow = len(out) - data_size
    head = bytearray(d[:data_at])
    struct.pack_into("<Q", head, 48, len(out))
    tail = bytearray(d[end:])
    nfeat = sum(bin(b).count("1") for b in d[72:104])
    for i in range(nfeat):
        off = struct.unpack_from("<Q", tail, 16 * i)[0]
        struct.pack_into("<Q", tail, 16 * i, off + grow)
    return bytes(head) + bytes(out) + bytes(tail)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    src, dst, k = args[0], args[1], int(args[2])
    with open(src, "rb") as f:
        d = f.read()
    with open(dst, "wb") as f:
        f.write(repeat(d, k, "--new-processes" in sys.argv))


if __name__ == "__main__":
    main()
