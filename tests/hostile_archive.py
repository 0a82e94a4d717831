#!/usr/bin/env python3
"""Hostile variants of a one-member .ppka archive whose member is a coded gperftools file
(archive revision 2, form 2), for tests/check_archive.sh and fuzz/regressions/archive:
  coded-slots.ppka    the coding's slot count is not the number of slots its records make
  coded-object.ppka   a PC coded in an object that no mapping of the member holds
  coded-records.ppka  a record's depth reaches past the member's end
  coded-r1.ppka       the header says revision 1, which has no coded members
Each is a whole, checksummed archive: only the member's content (or the revision) is wrong.
  python3 tests/hostile_archive.py ARCHIVE OUTDIR
"""
import struct
import subprocess
import sys
import tempfile

src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
t = len(data) - 32
frame_size, msg_size, _ = struct.unpack_from("<QQQ", data, t)
assert data[t + 24:] == b"PPKACMIT"
mstart = t - frame_size


def zstd(b, *args):
    # (from a file, so that the frame records its content size as the archive's frames do)
    with tempfile.NamedTemporaryFile() as f:
        f.write(b)
        f.flush()
        return subprocess.run(["zstd", "-q", "-c", *args, f.name], capture_output=True,
                              check=True).stdout


manifest = zstd(data[mstart:t], "-d")
member = data[16:mstart]  # the one segment: no dictionary, one member frame
coded = zstd(member, "-d")
assert coded[0] == 2, "not a coded gperftools member (coding version 2)"


def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h


def words(msg, value):
    return [i for i in range(0, len(msg), 8) if struct.unpack_from("<Q", msg, i)[0] == value]


def rebuild(new_coded, revision=2):
    frame = zstd(new_coded, "-19", "--check")
    msg = bytearray(manifest)
    for old, new in ((len(member), len(frame)), (len(coded), len(new_coded))):
        at = words(msg, old)
        assert len(at) == 1, (old, at)
        struct.pack_into("<Q", msg, at[0], new)
    mframe = zstd(bytes(msg), "-19", "--check")
    head = bytearray(data[:16])
    struct.pack_into("<I", head, 8, revision)
    return (bytes(head) + frame + mframe +
            struct.pack("<QQQ", len(mframe), len(msg), fnv(mframe)) + b"PPKACMIT")


def varint_end(b, at):
    while b[at] & 0x80:
        at += 1
    return at + 1


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))


# coding version 2 (lib/formats/gperftools/archive_coding.h): version, slot count, header
# slots, record count, then the first record's depth and frames
slots = struct.unpack_from("<Q", coded, 1)[0]
depth_at = varint_end(coded, 9 + 8 * (2 + struct.unpack_from("<Q", coded, 9 + 8)[0]))
first_frame = varint_end(coded, depth_at)
c = bytearray(coded)
struct.pack_into("<Q", c, 1, slots + 1000)
variants = {"coded-slots": bytes(c)}
c = bytearray(coded)  # the first PC of the first record: object 0xfd
struct.pack_into("<I", c, first_frame, (0xfe << 24) | 0x1000)
variants["coded-object"] = bytes(c)
# the first record's depth: past the end of the member
variants["coded-records"] = coded[:depth_at] + varint(1 << 40) + coded[first_frame:]
for name, b in variants.items():
    open(f"{out}/{name}.ppka", "wb").write(rebuild(b))
open(f"{out}/coded-r1.ppka", "wb").write(rebuild(coded, revision=1))
