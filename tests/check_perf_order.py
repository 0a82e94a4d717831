#!/usr/bin/env python3
"""The records of a perf.data round come in no time order: perf writes each CPU's buffer in
turn, and the reader sorts a round's records by time (equal times in file order) before it
applies them. Here the committed recordings are rewritten with each round's records dealt into
K buffers, each in time order, written one after another (what K CPUs would give); records of
one time keep their order in the file, in one buffer or across several. Read back, every
rewritten file must give the same trace events and the same .ppk as the original, byte for
byte: for a few buffers (as recorded) and for as many buffers as records (no order at all).
threads.data is read a second time with ties (every second sample of a thread at the time of
the one before), where taking equal times out of order changes a thread's timeline.
Records the kernel did not time (perf's own, type 64 and above) stay where they are and bound
the rounds. Reads perf.data in file mode with sample_id_all, little-endian. Needs no perf."""
import os, random, struct, subprocess, tempfile

from checklib import check, cli, data, finish
from perf_repeat import (SAMPLE, SAMPLE_ID, SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_STREAM_ID,
                         SAMPLE_TID, SAMPLE_TIME, records)

USER_FIRST, SAMPLE_CPU = 64, 128
OTHER_IDS = SAMPLE_ID | SAMPLE_CPU | SAMPLE_STREAM_ID | SAMPLE_IDENTIFIER


def layout(d):
    """The data section's bounds, and where a sample holds its tid and time (from its start)."""
    attr_size, attrs_at, attrs_size, data_at, data_size = struct.unpack_from("<QQQQQ", d, 16)
    if attrs_size != attr_size:
        raise ValueError("more than one attr")
    sample_type = struct.unpack_from("<Q", d, attrs_at + 24)[0]
    if not sample_type & SAMPLE_TIME or not (struct.unpack_from("<Q", d, attrs_at + 40)[0] >> 18) & 1:
        raise ValueError("records without times")
    if sample_type & OTHER_IDS:  # they would move the times this reads
        raise ValueError(f"sample_type {sample_type:#x}: ids or cpu besides tid and time")
    tid_at = 8 + 8 * bool(sample_type & SAMPLE_IP)
    return data_at, data_at + data_size, tid_at, tid_at + 8 * bool(sample_type & SAMPLE_TID)


def rewrite(d, buffers, rng):
    data_at, end, _, time_at = layout(d)
    data_size = end - data_at

    def time_of(at, typ, size):
        if typ == SAMPLE:
            return struct.unpack_from("<Q", d, at + time_at)[0]
        return struct.unpack_from("<Q", d, at + size - 8)[0]  # the sample_id block's last

    out, segment, rounds = bytearray(), [], 0

    def deal():
        nonlocal rounds
        # The segment in time order, ties in file order (Python's sort is stable), dealt to
        # buffers written one after another. The records of one time go to buffers in
        # ascending order, so that the file keeps them in their order, one buffer or several
        # (the sort must then take them from its runs in that order).
        ordered = sorted(segment, key=lambda r: r[0])
        k = len(ordered) if buffers is None else buffers
        dealt = [[] for _ in range(k)]
        i = 0
        while i < len(ordered):
            j = i
            while j < len(ordered) and ordered[j][0] == ordered[i][0]:
                j += 1
            for b, (_, raw) in zip(sorted(rng.randrange(k) for _ in range(j - i)),
                                   ordered[i:j]):
                dealt[b].append(raw)
            i = j
        for buf in dealt:
            for raw in buf:
                out.extend(raw)
        rounds += bool(segment)
        segment.clear()

    for at, typ, _, size in records(d, data_at, end):
        raw = d[at:at + size]
        if typ >= USER_FIRST:
            deal()
            out.extend(raw)
        else:
            segment.append((time_of(at, typ, size), raw))
    deal()
    if len(out) != data_size:
        raise ValueError("rewritten data of another size")
    return d[:data_at] + bytes(out) + d[end:], rounds


def tie(d):
    """The recording with ties: in each round, every second sample of a thread takes the time
    of the thread's sample before it, so that the order of equal times decides the thread's
    timeline."""
    data_at, end, tid_at, time_at = layout(d)
    out = bytearray(d)
    segment, ties = [], 0

    def close():
        nonlocal ties
        last = {}
        for at in sorted(segment, key=lambda a: struct.unpack_from("<Q", out, a + time_at)[0]):
            tid = struct.unpack_from("<I", out, at + tid_at + 4)[0]
            if tid in last:
                t = struct.unpack_from("<Q", out, last.pop(tid) + time_at)[0]
                struct.pack_into("<Q", out, at + time_at, t)
                ties += 1
            else:
                last[tid] = at
        segment.clear()

    for at, typ, _, _ in records(d, data_at, end):
        if typ >= USER_FIRST:
            close()
        elif typ == SAMPLE:
            segment.append(at)
    close()
    return bytes(out), ties


def outputs(path, tmp):
    got = []
    for fmt in ("trace-event", "ppk"):
        o = os.path.join(tmp, "out." + fmt)
        r = subprocess.run([cli, "convert", path, "--no-symbolize", "--to", fmt, "-o", o],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            return f"exit {r.returncode}: {r.stderr.strip()[:300]}"
        got.append(open(o, "rb").read())
    return got


rng = random.Random(20261128)
with tempfile.TemporaryDirectory() as tmp:
    for name, tied in (("threads.data", False), ("procs.data", False), ("spin.data", False),
                       ("threads.data", True)):
        src = os.path.join(data, "perf", name)
        d = open(src, "rb").read()
        if tied:
            d, ties = tie(d)
            src = os.path.join(tmp, "tied.data")
            open(src, "wb").write(d)
            name += f" with {ties} ties"
        want = outputs(src, tmp)
        check(isinstance(want, list), f"{name}: read" + ("" if isinstance(want, list) else
                                                          f" ({want})"))
        for buffers in (2, 7, None):
            shuffled, rounds = rewrite(d, buffers, rng)
            path = os.path.join(tmp, "shuffled.data")
            open(path, "wb").write(shuffled)
            got = outputs(path, tmp)
            what = f"{buffers} buffers" if buffers else "a buffer per record"
            check(shuffled != d, f"{name}, {what}: the rewrite moved records ({rounds} rounds)")
            check(got == want, f"{name}, {what}: trace events and .ppk as the original's "
                  f"({rounds} rounds)")
finish()
