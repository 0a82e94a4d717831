#!/usr/bin/env python3
"""pprof as an input, checked against go tool pprof on real profiles (tests/data/pprof):
- `profpack top --event T` self and inclusive per function equal `go tool pprof -top
  -sample_index=T` flat and cum, for every sample type of every file;
- pprof -> .ppk -> pprof gives a message equal field by field (decoded here, independently of
  profpack, with every id resolved to what it names), and the same `-raw` and `-traces`;
- pprof -> Callgrind: callgrind_annotate's self per function equals pprof's flat (first type);
- a profile's labels survive, as pprof's `-tagfocus` sees them, and `profpack top --tag K=V`
  equals `go tool pprof -top -tagfocus=K=V` flat and cum per function;
- `--tag` on a profile whose samples carry no labels is refused as unsupported."""
import collections, glob, gzip, os, re, shutil, subprocess, sys, tempfile

import checklib
from checklib import check, finish, run, data
from protowire import fields, varint

# pprof is run with -symbolize=none, so profpack keeps addresses too: a binary a profile names
# may be on this machine, and would name functions as the profile is read.
checklib.read_options = ["--no-symbolize"]

if not shutil.which("go") or not shutil.which("callgrind_annotate"):
    print("SKIP: go or callgrind_annotate not installed")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="profpack-pprof-in-")
files = sorted(glob.glob(os.path.join(data, "pprof", "*.pb*")))


def pprof(*args):
    env = dict(os.environ, PPROF_TMPDIR=tmp, HOME=tmp)
    return subprocess.run(["go", "tool", "pprof", "-symbolize=none", *args], capture_output=True,
                          text=True, env=env, timeout=300)


# --- profile.proto decoded independently -----------------------------------------------------
# (varint and fields: tests/protowire.py)


def ints(w, v):
    """A repeated integer field: packed or one value."""
    if w != 2:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def canonical(path):
    """Every field of the message, ids resolved to what they name, strings to their text."""
    raw = open(path, "rb").read()
    msg = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    top = collections.defaultdict(list)
    for f, w, v in fields(msg):
        top[f].append((w, v))
    s = [v.decode("utf-8", "replace") for _, v in top[6]]

    def sub(v):
        d = collections.defaultdict(list)
        for f, w, x in fields(v):
            d[f].append((w, x))
        return d

    def one(d, k):
        return d[k][-1][1] if d[k] else 0

    def vt(v):
        d = sub(v)
        return (s[one(d, 1)], s[one(d, 2)])

    mappings = {}
    for _, v in top[3]:
        d = sub(v)
        mappings[one(d, 1)] = (one(d, 2), one(d, 3), one(d, 4), s[one(d, 5)], s[one(d, 6)],
                               tuple(bool(one(d, k)) for k in (7, 8, 9, 10)))
    functions = {}
    for _, v in top[5]:
        d = sub(v)
        functions[one(d, 1)] = (s[one(d, 2)], s[one(d, 3)], s[one(d, 4)], signed(one(d, 5)))
    locations = {}
    for _, v in top[4]:
        d = sub(v)
        lines = []
        for _, lv in d[4]:
            ld = sub(lv)
            lines.append((functions[one(ld, 1)], signed(one(ld, 2)), signed(one(ld, 3))))
        locations[one(d, 1)] = (mappings.get(one(d, 2)), one(d, 3), tuple(lines), bool(one(d, 5)))
    samples = []
    for _, v in top[2]:
        d = sub(v)
        locs = [locations[x] for w, y in d[1] for x in ints(w, y)]
        vals = [signed(x) for w, y in d[2] for x in ints(w, y)]
        labels = []
        for _, lv in d[3]:
            ld = sub(lv)
            labels.append((s[one(ld, 1)], s[one(ld, 2)], signed(one(ld, 3)), s[one(ld, 4)]))
        samples.append((tuple(locs), tuple(vals), tuple(labels)))
    comments = [s[x] for w, y in top[13] for x in ints(w, y)]
    scalar = lambda k: top[k][-1][1] if top[k] else 0
    return {
        "sample_type": [vt(v) for _, v in top[1]],
        "samples": sorted(samples, key=repr),
        "mappings": sorted(mappings.values(), key=repr),
        "locations": sorted(locations.values(), key=repr),
        "functions": sorted(functions.values(), key=repr),
        "drop_frames": s[scalar(7)], "keep_frames": s[scalar(8)],
        "time_nanos": signed(scalar(9)), "duration_nanos": signed(scalar(10)),
        "period_type": vt(top[11][-1][1]) if top[11] else None, "period": signed(scalar(12)),
        "comments": comments, "default_sample_type": s[scalar(14)], "doc_url": s[scalar(15)],
    }


def call_sites(c):
    """(caller, callee, line of the call in the caller) -> the first value of the samples with
    that call, from the decoded message: frames outermost first (each location's lines, which
    pprof lists innermost first, are its inline chain), a sample counted once per (caller,
    callee) at its outermost call. Only where every frame has a line."""
    out = collections.Counter()
    for locs, vals, _ in c["samples"]:
        frames = [(fn[0], line) for loc in reversed(locs) for fn, line, _ in reversed(loc[2])]
        if not vals or len(frames) != sum(len(loc[2]) for loc in locs) or not all(
                line > 0 for _, line in frames) or any(not loc[2] for loc in locs):
            continue
        seen = set()
        for (caller, line), (callee, _) in zip(frames, frames[1:]):
            if (caller, callee) in seen:
                continue
            seen.add((caller, callee))
            out[(caller, callee, line)] += vals[0]
    return {k: v for k, v in out.items() if v}


def callgrind_call_sites(text):
    """The same from a Callgrind file written by profpack (positions: instr line): per fn=,
    each cfn= and the line of the cost line after its calls=."""
    out = collections.Counter()
    fn = cfn = None
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.startswith("fn="):
            fn = l[3:]
        elif l.startswith("cfn="):
            cfn = l[4:]
        elif l.startswith("calls=") and i + 1 < len(lines):
            cost = lines[i + 1].split()
            out[(fn, cfn, int(cost[1]))] += int(cost[2])
    return {k: v for k, v in out.items() if v}


UNITS = {"nanoseconds": "-unit=ns", "bytes": "-unit=B", "count": "-unit=count"}


def pprof_top(path, index, unit, *more):
    per = {}
    extra = [UNITS[unit]] if unit in UNITS else []
    g = pprof("-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0",
              f"-sample_index={index}", *extra, *more, path)
    for l in g.stdout.splitlines():
        m = re.match(r"\s*(-?\d+)[a-zA-Z]*\s+\S+%\s+\S+%\s+(-?\d+)[a-zA-Z]*\s+\S+%\s+(.+)$", l)
        if m:
            name = re.sub(r" \((partial-)?inline\)$", "", m.group(3).strip())
            per[name] = (int(m.group(1)), int(m.group(2)))
    return per


def profpack_top(path, event, *more):
    per = collections.defaultdict(lambda: [0, 0])
    for l in run("top", path, "--event", event, "-n", "1000000", "--tsv",
                 *more).stdout.splitlines():
        self_, incl, _rec, _file, name, _obj = l.split("\t")
        per[name][0] += int(self_)
        per[name][1] += int(incl)
    return {n: tuple(v) for n, v in per.items() if v != [0, 0]}


check(len(files) >= 8, f"{len(files)} pprof files in tests/data/pprof")
for path in files:
    rel = os.path.relpath(path, data)
    c = canonical(path)
    # Every sample type: flat and cum per function.
    for index, (typ, unit) in enumerate(c["sample_type"]):
        ref = {n: v for n, v in pprof_top(path, index, unit).items() if v != (0, 0)}
        ours = profpack_top(path, typ)
        bad = [(n, ref.get(n), ours.get(n)) for n in set(ref) | set(ours)
               if ref.get(n) != ours.get(n)]
        check(ref and not bad, f"{rel} {typ}: top = pprof -top flat/cum for {len(ref)} "
              f"functions ({sorted(bad)[:4]})")
    # Time where pprof shows time: a sample type in a time unit has seconds (pprof's total),
    # a count or bytes none.
    for index, (typ, unit) in enumerate(c["sample_type"]):
        head = pprof("-top", f"-sample_index={index}", path).stdout
        m = re.search(r"of (-?[\d.]+)([a-zA-Zµ]*) total", head)
        scale = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "mins": 60, "hrs": 3600}
        want = m and m.group(2) in scale and float(m.group(1)) * scale[m.group(2)]
        first = run("top", *checklib.read_options, path, "--event", typ, "-n", "1").stdout
        # A difference's percentages (and pprof's total) are of its base.
        got = re.search(r"(?:base total|^\S+ total): -?[\d,]+ \((-?[\d.]+)s\)(?!.*base total)",
                        first.splitlines()[0] if first else "")
        ok = (got is not None and want is not None and abs(float(got.group(1)) - want) <=
              max(abs(want) * 0.01, 1e-6)) if want else (m is not None and got is None)
        check(ok, f"{rel} {typ} ({unit}): top's total in seconds "
              f"{got.group(1) if got else None} = pprof's {m.group(0) if m else None}")
    # Round trip through .ppk.
    ppk = os.path.join(tmp, os.path.basename(path) + ".ppk")
    back = os.path.join(tmp, os.path.basename(path) + ".back.pb.gz")
    r1 = run("convert", path, "-o", ppk)
    r2 = run("convert", ppk, "-o", back, "--to", "pprof")
    check(r1.returncode == 0 and r2.returncode == 0, f"{rel} -> .ppk -> pprof "
          f"({(r1.stderr + r2.stderr).strip()[:200]})")
    if r2.returncode == 0:
        b = canonical(back)
        diff = [k for k in c if c[k] != b[k]]
        check(not diff, f"{rel}: the round trip is equal field by field (differ: {diff})")
        for what in ("-raw", "-traces"):
            x, y = pprof(what, path).stdout, pprof(what, back).stdout
            check(x == y and x, f"{rel}: go tool pprof {what} prints the same for the round trip")
        size = os.path.getsize(ppk) / os.path.getsize(path)
        print(f"     {rel}: .ppk {os.path.getsize(ppk)} bytes, {size:.2f}x the file")
    # Callgrind for KCachegrind: self per function.
    cg = os.path.join(tmp, os.path.basename(path) + ".callgrind")
    r = run("convert", path, "-o", cg)
    check(r.returncode == 0, f"{rel} -> callgrind ({r.stderr.strip()[:200]})")
    negative = any(v < 0 for s in c["samples"] for v in s[1])
    if negative:
        # callgrind_annotate, written for counts, mis-sums negative ones (docs/formats.md).
        print(f"     {rel}: negative values, callgrind_annotate not compared")
    if r.returncode == 0 and c["sample_type"] and not negative:
        per = checklib.callgrind_annotate_self(cg)
        ref = {n: f for n, (f, _) in pprof_top(path, 0, c["sample_type"][0][1]).items() if f}
        per = {n: v for n, v in per.items() if v}
        bad = [(n, ref.get(n), per.get(n)) for n in set(ref) | set(per) if ref.get(n) != per.get(n)]
        check(not bad, f"{rel}: callgrind_annotate self = pprof flat ({sorted(bad)[:4]})")
        text = open(cg).read()
        check("cfi=" in text or "cob=" in text or not re.search(r"^cfn=", text, re.M),
              f"{rel}: the Callgrind file names callees' files or objects")
        want, got = call_sites(c), callgrind_call_sites(text)
        if want:
            bad = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
            check(not bad, f"{rel}: Callgrind calls stand on their call sites' lines, each with "
                           f"its samples' first value ({len(want)} sites; differ: "
                           f"{[(k, want.get(k), got.get(k)) for k in bad[:3]]})")

# Merge and difference of pprof inputs: as go tool pprof -proto A B and -diff_base.
def run_pprof_to(path, *args):
    with open(path, "wb") as fh:
        return subprocess.run(["go", "tool", "pprof", "-proto", *args], stdout=fh,
                              stderr=subprocess.DEVNULL, env=dict(os.environ, PPROF_TMPDIR=tmp,
                                                                   HOME=tmp)).returncode


a, b = (os.path.join(data, "pprof", f) for f in ("go-cpu.pb.gz", "flate-cpu.pb.gz"))
ours, ref = os.path.join(tmp, "merged.pb.gz"), os.path.join(tmp, "merged.ref.pb.gz")
r = run("merge", a, b, "-o", ours)
check(r.returncode == 0 and run_pprof_to(ref, a, b) == 0, f"merge of two Go CPU profiles "
      f"({r.stderr.strip()[:200]})")
for index, unit in ((0, "count"), (1, "nanoseconds")):
    x, y = pprof_top(ours, index, unit), pprof_top(ref, index, unit)
    check(x == y and x, f"merge: pprof -top of the merge = of go tool pprof -proto A B "
          f"(type {index}; {sorted(set(x.items()) ^ set(y.items()))[:4]})")
for pair in (("go-cpu.pb.gz", "flate-cpu.pb.gz"), ("go-heap.pb.gz", "flate-mem.pb.gz"),
             ("go-cpu.pb.gz", "go-cpu.pb.gz")):
    a, b = (os.path.join(data, "pprof", f) for f in pair)
    ours, ref = os.path.join(tmp, "m2.pb.gz"), os.path.join(tmp, "m2.ref.pb.gz")
    r = run("merge", a, b, "-o", ours)
    check(r.returncode == 0 and run_pprof_to(ref, a, b) == 0, f"merge {pair}")
    for what in ("-raw", "-traces"):
        x, y = pprof(what, ours).stdout, pprof(what, ref).stdout
        check(x == y and x, f"merge {pair}: go tool pprof {what} = of go tool pprof -proto A B")
    check(canonical(ours) == canonical(ref), f"merge {pair}: equal field by field to Go's merge")
base, new = (os.path.join(data, "pprof", f) for f in ("go-heap.pb.gz", "flate-mem.pb.gz"))
ours = os.path.join(tmp, "diff.pb.gz")
r = run("diff", base, new, "-o", ours)
check(r.returncode == 0, f"diff of two heap profiles ({r.stderr.strip()[:200]})")
for index, unit in enumerate(("count", "bytes", "count", "bytes")):
    x = pprof_top(ours, index, unit)
    g = pprof("-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0",
              f"-sample_index={index}", UNITS[unit], "-diff_base", base, new)
    y = {}
    for l in g.stdout.splitlines():
        m = re.match(r"\s*(-?\d+)[a-zA-Z]*\s+\S+%\s+\S+%\s+(-?\d+)[a-zA-Z]*\s+\S+%\s+(.+)$", l)
        if m:
            y[re.sub(r" \((partial-)?inline\)$", "", m.group(3).strip())] = (int(m.group(1)),
                                                                            int(m.group(2)))
    x = {n: v for n, v in x.items() if v != (0, 0)}
    y = {n: v for n, v in y.items() if v != (0, 0)}
    check(x == y and x, f"diff: pprof -top of NEW - BASE = -diff_base (type {index}; "
          f"{sorted(set(x.items()) ^ set(y.items()))[:4]})")

# Labels: the CPU profile's two workers, as -tagfocus sees them.
cpu = os.path.join(data, "pprof", "go-cpu.pb.gz")
c = canonical(cpu)
tags = {l[1] for s in c["samples"] for l in s[2] if l[0] == "worker"}
check(tags == {"hash", "squares"}, f"go-cpu.pb.gz carries its workers' labels ({tags})")
# -tagfocus=KEY=REGEX: samples with a label KEY whose value REGEX matches anywhere.
whole = {n: v for n, v in pprof_top(cpu, 0, c["sample_type"][0][1]).items() if v != (0, 0)}
for sel in ("worker=hash", "worker=squares", "worker=^sq", "worker=a", "worker=^(hash)$",
            "worker=nothing"):
    for index, (typ, unit) in enumerate(c["sample_type"]):
        ref = {n: v for n, v in pprof_top(cpu, index, unit, f"-tagfocus={sel}").items()
               if v != (0, 0)}
        ours = profpack_top(cpu, typ, "--tag", sel)
        bad = [(n, ref.get(n), ours.get(n)) for n in set(ref) | set(ours)
               if ref.get(n) != ours.get(n)]
        check(not bad, f"top --tag {sel} ({typ}) = pprof -top -tagfocus={sel} for {len(ref)} "
              f"functions ({sorted(bad)[:4]})")
        if index == 0 and sel in ("worker=hash", "worker=squares"):
            check(ref and ref != whole, f"-tagfocus={sel} keeps some samples, not all")
            tops = sorted(ref.items(), key=lambda kv: -kv[1][0])[:3]
            print(f"     -tagfocus={sel} {typ}: pprof {tops}; profpack "
                  f"{[(n, ours.get(n)) for n, _ in tops]}")
# Both selectors: a sample must match each, so two workers leave nothing.
both = profpack_top(cpu, c["sample_type"][0][0], "--tag", "worker=hash", "--tag", "worker=sq")
check(both == {}, f"two --tag selectors must both match ({sorted(both.items())[:3]})")
# A profile whose samples carry no labels: refused, not an empty or whole answer.
r = run("top", os.path.join(data, "gperftools", "workload.64le.prof"), "--tag", "k=v")
check(r.returncode == 1 and "label" in r.stderr,
      f"--tag on gperftools samples, which carry no labels, fails clearly ({r.stderr.strip()})")
r = run("top", cpu, "--tag", "worker")
check(r.returncode != 0 and "KEY=REGEX" in r.stderr, f"--tag without '=' fails ({r.stderr.strip()})")
# --- many samples: the model sums them in two halves on two threads --------------------------
# 100,000 samples made from flate-cpu (bench/gen_pprof_large.py: its stacks with the leaf half
# redrawn), past the 65,536 at which the halves are summed apart and added up: flat and cum per
# function as pprof -top, and the arcs of the functions of largest cum, callers' and callees'
# figures each, as pprof -peek shows them (pprof leaves out a function's arc to itself).
import json
big = os.path.join(tmp, "flate-100k.pb.gz")
subprocess.run([sys.executable, os.path.join(os.path.dirname(data), "..", "bench",
                                             "gen_pprof_large.py"),
                os.path.join(data, "pprof", "flate-cpu.pb.gz"), big, "--samples", "100000"],
               check=True, capture_output=True)
c = canonical(big)
check(len(c["samples"]) >= 65536, f"the large profile has {len(c['samples'])} samples")
typ, unit = c["sample_type"][0]
ref = {n: v for n, v in pprof_top(big, 0, unit).items() if v != (0, 0)}
ours = profpack_top(big, typ)
bad = [(n, ref.get(n), ours.get(n)) for n in set(ref) | set(ours) if ref.get(n) != ours.get(n)]
check(len(ref) > 100 and not bad,
      f"100,000 samples: top = pprof -top flat/cum for {len(ref)} functions ({sorted(bad)[:4]})")


def peek(name):
    """pprof -peek of one function: its callers' and its callees' values."""
    out = pprof("-peek", "^" + re.escape(name) + "$", "-sample_index=0", big).stdout
    callers, callees, at = {}, {}, None
    for l in out.splitlines():
        m = re.match(r"\s+(\d+)\s+\S+%\s+\|\s+(\S.*)$", l)
        if m:  # an arc pprof splits by whether the call was inlined: one figure per name
            n = re.sub(r" \((partial-)?inline\)$", "", m.group(2).strip())
            side = callees if at else callers
            side[n] = side.get(n, 0) + int(m.group(1))
        elif re.match(r"\s*\d+\s+\S+%\s+\S+%\s+\d+\s+\S+%\s+\|\s+" + re.escape(name) + r"\s*$", l):
            at = name
    return callers, callees


for name, _ in sorted(ref.items(), key=lambda kv: -kv[1][1])[:6]:
    r = run("calls", big, name, "--json")
    m = json.loads(r.stdout)["matches"][0] if r.returncode == 0 else {}
    ours = ({x["name"]: x["inclusive"] for x in m.get("callers", []) if x["name"] != name},
            {x["name"]: x["inclusive"] for x in m.get("callees", []) if x["name"] != name})
    theirs = peek(name)
    check(ours == theirs and (theirs[0] or theirs[1]),
          f"100,000 samples: the arcs of {name} = pprof -peek ({len(theirs[0])} callers, "
          f"{len(theirs[1])} callees; differ: "
          f"{[k for k in set(ours[0]) | set(theirs[0]) if ours[0].get(k) != theirs[0].get(k)][:3]}"
          f" {[k for k in set(ours[1]) | set(theirs[1]) if ours[1].get(k) != theirs[1].get(k)][:3]})")
finish()
