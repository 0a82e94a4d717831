#!/usr/bin/env python3
"""profpack's pprof output against go tool pprof, callgrind_annotate and a small independent
profile.proto decoder:

- Every format's test data converted to pprof: `go tool pprof -raw`, `-top` and `-traces` read
  it; every location names a mapping the profile has (pprof's own profiles never leave
  mapping_id 0, and consumers expect one); no location at address 0xffffffffffffffff. DCPI:
  period_type is the file's event and period its `period` header value. Callgrind: the first
  mapping, pprof's main binary, is the program the `cmd:` line names.
- Callgrind with --dump-instr=yes, where recursion contexts (`fib'2`) and their functions share
  addresses: per function, `go tool pprof -top` flat equals callgrind_annotate's self cost and
  `profpack top`'s.
- Symbolized gperftools profiles (hot.prof, hot-inline.prof, chain.prof of tests/data/symbolize:
  chain's `outer` is only ever the outer frame of an inline chain at a call site), whose
  stacks keep each frame's location: folded output has one line per stack of functions, and
  `go tool pprof -list` of the pprof conversion gives each line of hot.c the flat and cumulative
  samples pprof's own symbolization of the original gives (hot-inline: pprof names no inline
  frames for C binaries, so there the flat samples per line, and the cumulative ones of lines
  without an inlined call); `-top` flat and cum equal `profpack top`'s self and inclusive.
"""
import collections, glob, gzip, os, re, shutil, subprocess, sys, tempfile

import checklib
from checklib import check, comp_dir, finish, run, data
from protowire import fields, varint

if not shutil.which("go") or not shutil.which("callgrind_annotate"):
    print("SKIP: go or callgrind_annotate not installed")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="profpack-pprof-")
sym = os.path.join(data, "symbolize")


def pprof(*args, binary_path=None):
    env = dict(os.environ, PPROF_TMPDIR=tmp, HOME=tmp)
    if binary_path:
        env["PPROF_BINARY_PATH"] = binary_path
    return subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True,
                          env=env, timeout=300)


# --- profile.proto, decoded independently ---------------------------------------------------
# (varint and fields: tests/protowire.py)


def decode(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    msg = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    p = {"mappings": set(), "locations": [], "strings": [], "period": 0, "period_type": None}
    for f, w, v in fields(msg):
        if f == 3:
            p["mappings"].add(dict((k, x) for k, _, x in fields(v)).get(1, 0))
        elif f == 4:
            loc = {"id": 0, "mapping": 0, "address": 0, "lines": 0}
            for k, _, x in fields(v):
                if k == 1:
                    loc["id"] = x
                elif k == 2:
                    loc["mapping"] = x
                elif k == 3:
                    loc["address"] = x
                elif k == 4:
                    loc["lines"] += 1
            p["locations"].append(loc)
        elif f == 6:
            p["strings"].append(v.decode("utf-8", "replace"))
        elif f == 11:
            p["period_type"] = dict((k, x) for k, _, x in fields(v))
        elif f == 12:
            p["period"] = v
    if p["period_type"] is not None:
        pt = p["period_type"]
        p["period_type"] = (p["strings"][pt.get(1, 0)], p["strings"][pt.get(2, 0)])
    return p


def convert(src, name):
    out = os.path.join(tmp, name + ".pb.gz")
    r = run("convert", src, "--to", "pprof", "-o", out)
    return r, out


# --- every format's test data: readable, every location mapped -------------------------------
symbolized = {}
for name in ("hot", "hot-inline", "chain"):
    ppk = os.path.join(tmp, name + ".ppk")
    r = run("symbolize", os.path.join(sym, name + ".prof"), "--binary-path", sym, "-o", ppk)
    check(r.returncode == 0, f"symbolize {name}.prof ({r.stderr.strip()[:200]})")
    symbolized[name] = ppk

inputs = []
for d in ("callgrind", "cachegrind", "gperftools", "xray", "dcpi"):
    for f in sorted(glob.glob(os.path.join(data, d, "*"))):
        if f.endswith((".bin", ".txt", ".c", ".md")):
            continue
        inputs.append((os.path.relpath(f, data), f))
inputs += [(f"symbolized {n}", p) for n, p in symbolized.items()]

for rel, src in inputs:
    name = re.sub(r"[^A-Za-z0-9.-]", "_", rel)
    r, out = convert(src, name)
    check(r.returncode == 0, f"{rel} -> pprof ({r.stderr.strip()[:200]})")
    if r.returncode != 0:
        continue
    for flag in ("-raw", "-top", "-traces"):
        g = pprof(flag, "-symbolize=none", out)
        check(g.returncode == 0 and g.stdout.strip(),
              f"{rel}: go tool pprof {flag} reads it ({g.stderr.strip()[:200]})")
    p = decode(out)
    unmapped = [l["id"] for l in p["locations"] if l["mapping"] == 0]
    check((p["locations"] or rel.startswith("dcpi/empty")) and not unmapped,
          f"{rel}: every location has a mapping ({len(unmapped)} of {len(p['locations'])} "
          f"without)")
    dangling = [l["id"] for l in p["locations"] if l["mapping"] and l["mapping"] not in
                p["mappings"]]
    check(not dangling, f"{rel}: every location's mapping exists ({len(dangling)} do not)")
    wild = [l["id"] for l in p["locations"] if l["address"] == 0xFFFFFFFFFFFFFFFF]
    check(not wild, f"{rel}: no location at address 0xffffffffffffffff ({len(wild)})")
    if rel.startswith("callgrind/"):
        # pprof takes the first mapping for the main binary (`File:`): the program the `cmd:`
        # line names, not the object of the first location written (libc.so.6, libm.so.6).
        with open(src, encoding="latin-1") as fh:
            cmd = next(l for l in fh if l.startswith("cmd:")).split()[1]
        raw = pprof("-raw", "-symbolize=none", out).stdout.splitlines()
        first = raw[raw.index("Mappings") + 1].split() if "Mappings" in raw else []
        check(len(first) >= 3 and os.path.basename(first[2]) == os.path.basename(cmd),
              f"{rel}: the first mapping is the program {cmd} ({' '.join(first)})")
    if rel.startswith("dcpi/"):
        with open(src, "rb") as fh:
            header = fh.read(4096).split(b"\nsamples\n")[0].decode("latin-1")
        hv = dict(l.split(None, 1) for l in header.splitlines() if len(l.split(None, 1)) == 2)
        want = (hv["event"].strip(), "count"), int(hv["period"])
        check((p["period_type"], p["period"]) == want,
              f"{rel}: period_type/period {p['period_type']}/{p['period']}, header {want}")


# --- Callgrind with instruction addresses: flat per function ---------------------------------
annotate_self = checklib.callgrind_annotate_self


def pprof_top(path, *extra, binary_path=None):
    """go tool pprof -top: name -> (flat, cum), as plain numbers."""
    per = {}
    g = pprof("-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0", *extra, path,
              binary_path=binary_path)
    for l in g.stdout.splitlines():
        m = re.match(r"\s*(\d+)\s+\S+%\s+\S+%\s+(\d+)\s+\S+%\s+(.+)$", l)
        if m:
            name = re.sub(r" \(inline\)$", "", m.group(3).strip())
            per[name] = (int(m.group(1)), int(m.group(2)))
    return per


def profpack_top(path):
    per = collections.defaultdict(lambda: [0, 0])
    for l in run("top", path, "-n", "1000000", "--tsv").stdout.splitlines():
        self_, incl, _rec, _file, name, _obj = l.split("\t")
        per[name][0] += int(self_)
        per[name][1] += int(incl)
    return per


for rel in ("callgrind/callgrind.rec.instr.out", "callgrind/callgrind.workload.instr-jumps.out"):
    src = os.path.join(data, rel)
    r, out = convert(src, os.path.basename(rel) + ".flat")
    check(r.returncode == 0, f"{rel} -> pprof ({r.stderr.strip()[:200]})")
    ref = annotate_self(src)
    ours = pprof_top(out, "-sample_index=0", "-unit=count")
    top = profpack_top(src)
    check(len(ref) >= 5, f"{rel}: callgrind_annotate names {len(ref)} functions")
    if rel.endswith("rec.instr.out"):
        check(ref.get("fib'2", 0) > 0, f"{rel}: a recursion context has cost")
    bad = [(n, c, ours.get(n, (0, 0))[0]) for n, c in ref.items() if ours.get(n, (0, 0))[0] != c]
    bad += [(n, None, f) for n, (f, _) in ours.items() if f and n not in ref]
    check(not bad, f"{rel}: pprof flat = callgrind_annotate self per function ({bad[:6]})")
    bad = [(n, c, top.get(n, (0, 0))[0]) for n, c in ref.items() if top.get(n, (0, 0))[0] != c]
    check(not bad, f"{rel}: profpack top self = callgrind_annotate self ({bad[:6]})")


# --- symbolized gperftools: per line and per function ----------------------------------------
def pprof_list(source, *args, binary_path=None):
    """(routine, line) -> (flat, cum) of the routines in source, and the flat per line."""
    per, flat = {}, collections.Counter()
    routine = None
    # The sources, found in tests/data/symbolize whatever directory the binaries were built in
    # (the compilation directory their DWARF records).
    built = comp_dir(os.path.join(sym, "chain" if source == "chain.c" else "hot"))
    g = pprof("-list", ".", "-sample_index=samples", "-source_path=" + sym, "-trim_path=" + built,
              *args, binary_path=binary_path)
    for l in g.stdout.splitlines():
        m = re.match(r"ROUTINE =+ (\S+) in (.*)$", l)
        if m:
            routine = m.group(1) if m.group(2).rstrip().split("/")[-1] == source else None
            continue
        m = re.match(r"\s*(\S+)\s+(\S+)\s+(\d+):", l)
        if routine and m and (m.group(1), m.group(2)) != (".", "."):
            v = tuple(0 if x == "." else int(x) for x in m.group(1, 2))
            per[(routine, int(m.group(3)))] = v
            flat[int(m.group(3))] += v[0]
    return per, flat


for name, ppk in symbolized.items():
    r, out = convert(ppk, "symbolized-" + name)
    check(r.returncode == 0, f"symbolized {name} -> pprof ({r.stderr.strip()[:200]})")
    source = "chain.c" if name == "chain" else "hot.c"
    ref, ref_flat = pprof_list(source, os.path.join(sym, name),
                               os.path.join(sym, name + ".prof"), binary_path=sym)
    ours, our_flat = pprof_list(source, out)
    check(len(ref) >= (1 if name == "chain" else 4),
          f"{name}: pprof -list of the original names {len(ref)} lines of {source}")
    our_flat = {k: v for k, v in our_flat.items() if v}
    ref_flat = {k: v for k, v in ref_flat.items() if v}
    check(our_flat == ref_flat and len(our_flat) >= (1 if name == "chain" else 2),
          f"{name}: flat samples per line of {source}: ours {dict(our_flat)}, pprof's "
          f"{dict(ref_flat)}")
    if name == "chain":
        # The frame of outer is the chain [outer, helper] at its call of spin: a location with
        # two lines (pprof names no inline frames: its -list has outer at helper's line).
        check(ours.get(("outer", 17)) == ours.get(("helper", 14)) == (0, sum(ref_flat.values())),
              f"{name}: outer's call of spin is in the inlined helper ({ours})")
    elif name == "hot":
        check(ours == ref, f"{name}: -list per (function, line): ours {ours}, pprof's {ref}")
    else:
        # The lines pprof gives another function's flat samples (it names no inline frames)
        # are left out; every other (function, line) is the same.
        inlined = {line for (rt, line), (f, _) in ours.items() if f and (rt, line) not in ref}
        same = {k: v for k, v in ref.items() if k[1] not in inlined}
        mine = {k: v for k, v in ours.items() if k in same}
        check(inlined and mine == same,
              f"{name}: -list per (function, line) outside inlined code: ours {mine}, "
              f"pprof's {same}")
    # Folded stacks name functions only: stacks told apart by their lines are one line.
    folded = os.path.join(tmp, name + ".folded")
    r = run("convert", ppk, "--to", "folded", "-o", folded)
    with open(folded) as fh:
        stacks = [l.rsplit(" ", 1)[0] for l in fh.read().splitlines()]
    dup = [k for k, n in collections.Counter(stacks).items() if n > 1]
    check(r.returncode == 0 and stacks and not dup,
          f"{name}: folded has one line per stack of functions ({len(dup)} repeated)")
    top = profpack_top(ppk)
    got = pprof_top(out, "-sample_index=samples")
    bad = [(n, v, tuple(top.get(n, (None, None)))) for n, v in got.items()
           if tuple(top.get(n, (None, None))) != v]
    check(len(got) >= 5 and not bad, f"{name}: pprof -top flat/cum = profpack top ({bad[:6]})")

shutil.rmtree(tmp, ignore_errors=True)
finish()
