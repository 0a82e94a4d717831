#!/usr/bin/env python3
"""A large profile's .ppk stores its function layer beside the IR (lib/model/stored.h): check
that it does, and that every query and writer answers from that .ppk as from the profile it
was converted from (info, top of every event self and inclusive, calls, the Callgrind it writes)
and as from a .ppk without the layer (a copy with the skippable frame cut off).
  PROFPACK_CLI=build/tools/profpack PROFPACK_TEST_DATA=tests/data python3 tests/check_stored_model.py
"""
import json
import os
import random
import struct
import tempfile

from checklib import check, finish, run

MODEL_FRAME = struct.pack("<I", 0x184D2A5B)


def generate(path, functions=6000, rows=60, seed=7):
    """A Callgrind profile of two events whose IR passes 1 MiB: `functions` functions in 40
    files of 8 objects, each with `rows` cost lines (lines and addresses) and calls to 3 others."""
    rnd = random.Random(seed)
    with open(path, "w") as f:
        f.write("version: 1\ncreator: tests/check_stored_model.py\npositions: instr line\n")
        f.write("events: Ir Dr\n\n")
        for i in range(functions):
            f.write(f"ob=/usr/lib/obj{i % 8}.so\nfl=src/file{i % 40}.c\nfn=func_{i}\n")
            addr = 0x1000 + i * 0x400
            for r in range(rows):
                f.write(f"{hex(addr + 4 * r)} {10 + r} {rnd.randrange(1, 5000)} {rnd.randrange(0, 900)}\n")
            for c in range(3):
                callee = rnd.randrange(functions)
                f.write(f"cob=/usr/lib/obj{callee % 8}.so\ncfi=src/file{callee % 40}.c\n"
                        f"cfn=func_{callee}\ncalls={rnd.randrange(1, 50)} {hex(0x1000 + callee * 0x400)} 10\n"
                        f"{hex(addr + 4 * rows + c)} {20 + c} {rnd.randrange(1, 90000)} {rnd.randrange(0, 9000)}\n")
            f.write("\n")
        f.write("totals: 1 1\n")


def without_model(src, dst):
    """The .ppk with its stored-model frame cut off and bytes 24-31 mended: what a build that
    writes no layer writes."""
    data = open(src, "rb").read()
    at = data.rfind(MODEL_FRAME)
    size = struct.unpack_from("<I", data, at + 4)[0]
    assert at + 8 + size == len(data) and data[at + 8:at + 12] == b"PPKM"
    cut = bytearray(data[:at])
    struct.pack_into("<Q", cut, 24, len(cut) - 32)
    open(dst, "wb").write(bytes(cut))


def out(*args):
    r = run(*args)
    return r.stdout if r.returncode == 0 else "ERROR " + r.stderr


def main():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "big.callgrind")
        generate(src)
        ppk, bare = os.path.join(tmp, "big.ppk"), os.path.join(tmp, "bare.ppk")
        r = run("convert", src, "-o", ppk)
        check(r.returncode == 0, f"convert to .ppk {r.stderr.strip()}")
        ir_size = int(json.loads(out("info", ppk, "--json"))["ir_bytes"])
        check(ir_size >= 1 << 20, f"the generated IR passes 1 MiB ({ir_size} bytes)")
        data = open(ppk, "rb").read()
        at = data.rfind(MODEL_FRAME)
        check(at > 32 and data[at + 8:at + 12] == b"PPKM",
              "the .ppk ends in the stored model's skippable frame")
        without_model(ppk, bare)
        check(os.path.getsize(bare) < os.path.getsize(ppk), "the copy without it is smaller")

        top = json.loads(out("top", src, "--json", "-n", "3"))
        hot = [f["name"] for f in top["functions"]]
        queries = [("info", "--json")]
        for event in ("Ir", "Dr"):
            for incl in ([], ["--inclusive"]):
                queries.append(("top", "--json", "-n", "200", "--event", event, *incl))
        for name in hot:
            queries.append(("calls", name, "--json"))
        for q in queries:
            want = out(q[0], src, *q[1:])
            for path, what in ((ppk, "with the stored layer"), (bare, "without it")):
                got = out(q[0], path, *q[1:])
                same = not got.startswith("ERROR") and not want.startswith("ERROR")
                if same:  # all but the file's name
                    want_j, got_j = json.loads(want), json.loads(got)
                    want_j.pop("file")
                    got_j.pop("file")
                    same = want_j == got_j
                check(same, f"{' '.join(q)}: the .ppk {what} as the original")
        # Writers read the other layers from the IR, in the stored layer's function order.
        for path, what in ((ppk, "with"), (bare, "without")):
            cg = os.path.join(tmp, f"back-{what}.callgrind")
            r = run("convert", path, "-o", cg, "--to", "callgrind")
            first = os.path.join(tmp, "from-src.callgrind")
            run("convert", src, "-o", first, "--to", "callgrind")
            check(r.returncode == 0 and open(cg).read() == open(first).read(),
                  f"Callgrind written from the .ppk {what} the layer equals the original's")

        # The IR is decompressed only when a query needs more than the stored layer: a damaged
        # IR behind an intact layer still answers `top`, and is reported, with its offset, by
        # the first query that reads it.
        damaged = os.path.join(tmp, "damaged.ppk")
        img = bytearray(data)
        img[32 + (at - 32) // 2] ^= 0x5A
        open(damaged, "wb").write(bytes(img))
        q = ("top", "-n", "200", "--event", "Dr", "--inclusive")
        want, got = out(q[0], ppk, *q[1:]), out(q[0], damaged, *q[1:])
        check(not want.startswith("ERROR") and got == want and "func_" in got,
              "top of a .ppk whose IR is damaged behind an intact stored layer")
        # top --json says which functions call themselves, which the call arcs tell.
        r = run("top", damaged, "--json")
        check(r.returncode != 0 and "byte offset 32" in r.stdout + r.stderr,
              f"top --json reports the damaged IR ({(r.stdout + r.stderr).strip()[:200]})")
        r = run("convert", damaged, "-o", os.path.join(tmp, "d.callgrind"), "--to", "callgrind")
        check(r.returncode != 0 and "byte offset 32" in r.stderr and "corrupt" in r.stderr,
              f"writing it reports the damaged IR and its offset ({r.stderr.strip()[:200]})")
        # Reported long after the read, the error still names the file.
        r = run("diff", damaged, ppk, "-o", os.path.join(tmp, "d.ppk"))
        check(r.returncode != 0 and "damaged.ppk: ppk: byte offset 32" in r.stderr,
              f"diff names the file whose IR is damaged ({r.stderr.strip()[:200]})")
        r = run("calls", damaged, hot[0])
        check(r.returncode != 0 and "byte offset 32" in r.stderr,
              f"calls (the arcs come from the IR) reports it too ({r.stderr.strip()[:200]})")
    finish()


if __name__ == "__main__":
    main()
