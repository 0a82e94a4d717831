#!/usr/bin/env python3
"""Conversions into the written-only formats, checked against profpack's own queries.

- folded: every line is `frame;...;frame COUNT`; the counts add up to the source's total
  (`profpack info`), and per innermost frame to its self cost (`profpack top --tsv`).
- trace-event: parses as JSON; per thread, the complete events nest; per function, the
  summed durations of its outermost calls equal its inclusive ticks (`top --thread N`) in
  microseconds at the trace's cycle frequency, its event count its completed calls; a perf
  profile's, read back, gives self time to the functions its samples end in.
- callgrind (every corpus file): callgrind_annotate's PROGRAM TOTALS equal the source's total
  and its per-function self costs top's; read back by profpack, every function's self and
  inclusive cost equal the source's; XRay calls= add up to the source's completed calls;
  gprof2dot ($PROFPACK_VENV/bin/gprof2dot, installed by scripts/setup.sh) reads every one;
  without it the test is skipped (exit 77).
- pprof (every corpus file): `go tool pprof -raw` reads it with sample totals per type equal to
  the source's totals, `-top` reads it; Callgrind and Cachegrind per-line figures under
  `-lines` equal `profpack annotate`'s; for gperftools the flat top by address
  (-symbolize=none) equals pprof's on the original file.
- every pair the source cannot fill is refused with one line naming what it lacks.
"""
import json, os, re, subprocess, sys, tempfile
from collections import defaultdict

import checklib
from checklib import check, data, finish, info, run, top_tsv

# The conversions are checked on the profiles as recorded, by address: a binary a profile
# names may exist on this machine (it would then name functions as they are read). Naming on
# read has its own check, check_name_on_read.py.
checklib.read_options = ["--no-symbolize"]

tmp = tempfile.mkdtemp()
for rel in ["gperftools/workload.64le.prof", "gperftools/perl-words.prof",
            "xray/fdr-v5-st.xray", "xray/fdr-v5-mt-manybuf.xray", "xray/basic-v3-st.xray"]:
    src = os.path.join(data, rel)
    out = os.path.join(tmp, "out.folded")
    r = run("convert", src, "-o", out, "--to", "folded")
    check(r.returncode == 0, f"{rel} -> folded ({r.stderr.strip()})")
    if r.returncode:
        continue
    totals, _, _ = info(src)
    first = next(iter(totals.values()))
    lines = open(out).read().splitlines()
    per_leaf = defaultdict(int)
    well_formed = True
    for l in lines:
        stack, _, count = l.rpartition(" ")
        well_formed &= bool(stack) and count.isdigit() and int(count) > 0
        per_leaf[stack.split(";")[-1]] += int(count)
    check(well_formed, f"{rel}: every folded line is 'frames COUNT'")
    check(sum(per_leaf.values()) == first, f"{rel}: folded counts add up to the total {first}")
    selfs = top_tsv(src)
    check(all(per_leaf.get(n, 0) == s for n, (s, _) in selfs.items()),
          f"{rel}: folded counts per innermost frame equal top's self cost")

for rel in ["xray/fdr-v5-st.xray", "xray/fdr-v5-mt-manybuf.xray", "xray/basic-v3-st.xray",
            "xray/fdr-v5-tailexit.xray"]:
    src = os.path.join(data, rel)
    out = os.path.join(tmp, "out.json")
    r = run("convert", src, "-o", out, "--to", "trace-event")
    check(r.returncode == 0, f"{rel} -> trace-event ({r.stderr.strip()})")
    if r.returncode:
        continue
    try:
        events, why = json.load(open(out))["traceEvents"], ""
    except (ValueError, KeyError, TypeError) as e:
        events, why = [], f" ({e!r})"
    check(isinstance(events, list) and any(e.get("ph") == "X" for e in events),
          f"{rel}: trace-event output parses as JSON with complete events{why}")
    if why:
        continue
    _, threads, freq = info(src)
    names = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M"}
    by_thread = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_thread[(e["pid"], e["tid"])].append(e)
    check(set(by_thread) <= names and len(names) == len(threads),
          f"{rel}: one thread_name per thread, every event on a named thread")
    # Viewers order the events by time, and so does this check: by begin, the longer (the
    # caller) first, and of equal ones the earlier in the file.
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
    nest = True
    for evs in by_thread.values():
        stack = []
        for e in evs:  # in order of begin, callers first
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"] and \
                    not (stack[-1]["ts"] == e["ts"]):
                stack.pop()
            while stack and stack[-1]["ts"] + stack[-1]["dur"] < e["ts"] + e["dur"] - 0.002:
                stack.pop()
                nest = False
            stack.append(e)
    check(nest, f"{rel}: each thread's events nest")
    for t, (pid, tid) in enumerate(sorted(by_thread)):
        rows = top_tsv(src, "--thread", str(t))
        durations, counts = defaultdict(float), defaultdict(int)
        evs = by_thread[(pid, tid)]
        open_ = []
        for e in evs:
            while open_ and open_[-1]["ts"] + open_[-1]["dur"] < e["ts"] + e["dur"] - 0.002:
                open_.pop()
            if all(o["name"] != e["name"] for o in open_):
                durations[e["name"]] += e["dur"]
            counts[e["name"]] += 1
            open_.append(e)
        ok = True
        for name, (_, incl) in rows.items():
            want = incl / freq * 1e6
            if abs(durations.get(name, 0.0) - want) > 0.001 * (counts.get(name, 0) + 1) + 1e-9 * want:
                ok = False
                print(f"     {name}: durations {durations.get(name, 0.0):.3f} us, top {want:.3f} us")
        check(ok, f"{rel} thread {t}: per-function outermost durations equal top's inclusive")

# A sample's frames span the same time: written caller first, the trace read back gives self
# time to the functions the samples end in, as the profile does (to none of their callers).
for rel in ["perf/spin.data", "perf/threads.data"]:
    src = os.path.join(data, rel)
    out = os.path.join(tmp, "perf.json")
    r = run("convert", src, "-o", out, "--to", "trace-event")
    want = {n for n, (s, _) in top_tsv(src).items() if s > 0}
    got = {n for n, (s, _) in top_tsv(out).items() if s > 0} if r.returncode == 0 else set()
    check(r.returncode == 0 and want and got == want,
          f"{rel} -> trace-event: self time read back in the functions samples end in "
          f"({sorted(got ^ want)[:4]} {r.stderr.strip()})")
    procs = {e["args"]["name"] for e in json.load(open(out))["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"} if r.returncode == 0 else set()
    check(procs and not any(p.startswith("thread ") for p in procs),
          f"{rel} -> trace-event: perf's comm names the processes ({procs})")



def gprof2dot():
    """gprof2dot of the test-only virtual environment scripts/setup.sh makes ($PROFPACK_VENV)."""
    exe = os.path.join(os.environ.get("PROFPACK_VENV", ""), "bin", "gprof2dot")
    if not os.access(exe, os.X_OK):
        print(f"skip: no gprof2dot at {exe} (run scripts/setup.sh, which installs "
              "tests/requirements.txt into .venv)")
        sys.exit(77)
    return exe


def annotate_self(path):
    """callgrind_annotate's PROGRAM TOTALS and self cost per function name (first event)."""
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True).stdout.splitlines()
    total, rows, body = None, defaultdict(int), False
    for l in out:
        if "PROGRAM TOTALS" in l:
            f = l.split()[0]
            total = 0 if f == "." else int(f.replace(",", ""))  # "." is zero
        elif "file:function" in l:
            body = True
        elif body and l.strip() and not l.startswith("-"):
            cost, _, rest = l.strip().partition(" ")
            name = rest.split(")", 1)[1].strip() if ")" in rest else rest
            name = name.rsplit(" [", 1)[0]
            name = name.split(":", 1)[1] if name.startswith("???:") else name
            rows[name] += 0 if cost == "." else int(cost.replace(",", ""))
    return total, rows


def calls_per_function(path):
    """`top`'s completed calls per function of a timed profile (XRay)."""
    calls = {}
    for l in run("top", path, "-n", "100000").stdout.splitlines()[2:]:
        left, _, name = l.partition(" calls  ")
        calls[name.strip()] = int(left.split()[-1].replace(",", ""))
    return calls


def corpus():
    """Every profile of tests/data (the shared corpus and the files made for the tests)."""
    for d in ["callgrind", "cachegrind", "gperftools", "xray", "dcpi"]:
        for f in sorted(os.listdir(os.path.join(data, d))):
            if not f.endswith((".txt", ".bin")):
                yield f"{d}/{f}"


dot = gprof2dot()
for rel in corpus():
    src = os.path.join(data, rel)
    out = os.path.join(tmp, "out.callgrind")
    r = run("convert", src, "-o", out, "--to", "callgrind")
    check(r.returncode == 0, f"{rel} -> callgrind ({r.stderr.strip()})")
    if r.returncode:
        continue
    totals, _, _ = info(src)
    first = next(iter(totals.values()))
    want = top_tsv(src)
    if rel.startswith(("callgrind", "cachegrind")):
        # The Callgrind family's own writers (their figures: check_callgrind/check_cachegrind);
        # here: the whole file reads back with the source's figures.
        check(info(out)[0] == totals, f"{rel}: read back, the totals are the source's")
        check(top_tsv(out) == want, f"{rel}: read back, every function's figures are the source's")
        g = subprocess.run([dot, "-f", "callgrind", out], capture_output=True, text=True)
        check(g.returncode == 0 and "digraph" in g.stdout,
              f"{rel}: gprof2dot reads it ({g.stderr[-200:]})")
        continue
    total, selfs = annotate_self(out)
    check(total == first, f"{rel}: callgrind_annotate PROGRAM TOTALS {total} = {first}")
    check(all(selfs.get(n, 0) == s for n, (s, _) in want.items() if s),
          f"{rel}: callgrind_annotate's self cost per function equals top's")
    back = top_tsv(out)
    back.pop("(root)", None)  # the caller of the calls at the bottom of a stack (XRay)
    if rel.startswith("gperftools"):
        # Callgrind's inclusive cost of a function is what its calls cost its callers, a sampled
        # profile's the samples with the function anywhere on the stack: only self carries over.
        check({n: s for n, (s, _) in back.items()} == {n: s for n, (s, _) in want.items()},
              f"{rel}: read back, every function's self cost is the source's")
    else:
        # Where a trace cut short leaves a call's inner entry unmatched, llvm-xray's accounting
        # (and profpack's) can give a function less inclusive time than self time, which a
        # Callgrind file cannot hold: there only self time carries over.
        sound = {n: v for n, v in want.items() if v[1] >= v[0]}
        # A call still open where the trace ends has no figures of its own, but the calls it
        # made that returned do (llvm-xray counts them so): read back from Callgrind, where
        # they are its function's calls, that function costs its self cost plus its calls to
        # others, more than the source's completed calls (docs/formats.md, Callgrind queries).
        def own(n):
            r = run("calls", src, n, "--json")
            m = json.loads(r.stdout)["matches"] if r.returncode == 0 else []
            return (want[n][0], want[n][0] + sum(c["inclusive"] for c in m[0]["callees"]
                                                 if c["name"] != n)) if len(m) == 1 else None
        differ = {n: back.get(n) for n, v in sound.items() if back.get(n) != v}
        opened = {n for n, v in differ.items() if v and v[1] > want[n][1] and v == own(n)}
        check({n: back.get(n, (0, 0))[0] for n in want} == {n: v[0] for n, v in want.items()}
              and set(differ) == opened and (not opened or rel.startswith("xray")),
              f"{rel}: read back, every function's self and inclusive cost is the source's "
              f"(but {sorted(opened)}: also calls made from calls the trace leaves open; "
              f"differing: {sorted(set(differ) - opened)[:4]})")
    if rel.startswith("xray"):
        calls = defaultdict(int)
        callee = None
        for l in open(out):
            if l.startswith("cfn="):
                callee = l[4:].strip()
            elif l.startswith("calls="):
                calls[callee] += int(l[6:].split()[0])
        # Every completed call has a calls= line (those at the bottom of a stack from
        # "(root)"), so they add up to the source's calls, which are llvm-xray account's
        # (llvm_xray test).
        src_calls = calls_per_function(src)
        check(src_calls and all(calls[n] == c for n, c in src_calls.items()),
              f"{rel}: calls= counts add up to the source's completed calls")
    g = subprocess.run([dot, "-f", "callgrind", out], capture_output=True, text=True)
    check(g.returncode == 0 and "digraph" in g.stdout, f"{rel}: gprof2dot reads it ({g.stderr[-200:]})")



def pprof_raw_totals(path):
    """go tool pprof -raw: the sample types and the sum of each over all samples."""
    out = subprocess.run(["go", "tool", "pprof", "-raw", path], capture_output=True,
                         text=True).stdout.splitlines()
    types, sums = None, None
    for l in out:
        if types is None and "/" in l and ":" not in l:
            types = [t.split("/")[0] for t in l.split()]
            sums = [0] * len(types)
        elif types is not None and ":" in l and l.strip()[0].isdigit():
            values = l.split(":")[0].split()
            if len(values) == len(types):
                sums = [a + int(b) for a, b in zip(sums, values)]
        elif types is not None and l.startswith("Locations"):
            break
    return dict(zip(types or [], sums or []))


def pprof_top(path):
    r = subprocess.run(["go", "tool", "pprof", "-top", "-symbolize=none", "-addresses",
                        "-nodecount=100000", "-nodefraction=0", path], capture_output=True,
                       text=True)
    lines = r.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip().startswith("flat")), len(lines))
    return r.returncode, lines[start + 1:]


for rel in corpus():
    src = os.path.join(data, rel)
    out = os.path.join(tmp, "out.pb.gz")
    r = run("convert", src, "-o", out, "--to", "pprof")
    check(r.returncode == 0, f"{rel} -> pprof ({r.stderr.strip()})")
    if r.returncode:
        continue
    totals, _, _ = info(src)
    got = pprof_raw_totals(out)
    check(all(got.get(e) == t for e, t in totals.items()),
          f"{rel}: go tool pprof -raw sample totals per type equal the source's")
    rc, top = pprof_top(out)
    check(rc == 0 and (top or not any(totals.values())), f"{rel}: go tool pprof -top reads it")
    if rel.startswith("cachegrind") or rel == "callgrind/callgrind.workload.out":
        # Lines: pprof's per-line flat figures of workload.c equal profpack annotate's.
        event = next(iter(totals))
        r = subprocess.run(["go", "tool", "pprof", "-top", "-lines", "-nodecount=100000",
                            "-nodefraction=0", "-sample_index=" + event, out],
                           capture_output=True, text=True)
        per_line = defaultdict(int)
        for l in r.stdout.splitlines():
            f = l.split()
            if len(f) >= 7 and f[-1].split(":")[0].endswith("/workload.c"):
                per_line[int(f[-1].split(":")[1])] += int(f[0])
        ann = {}
        for l in run("annotate", src, "--source", "workload.c").stdout.splitlines()[1:]:
            f = l.split()
            if int(f[1].replace(",", "")):
                ann[int(f[0])] = int(f[1].replace(",", ""))
        check(r.returncode == 0 and ann and dict(per_line) == ann,
              f"{rel}: go tool pprof -lines puts each line's {event} where annotate does")
    if rel.startswith("gperftools"):
        raw = subprocess.run(["go", "tool", "pprof", "-raw", src], capture_output=True,
                             text=True).stdout
        period = int(next(l for l in raw.splitlines() if l.startswith("Period:")).split()[1])
        check(got.get("cpu") == got.get("samples", 0) * period,
              f"{rel}: cpu nanoseconds are the samples times pprof's period ({period} ns)")
        rc0, top0 = pprof_top(src)
        check(rc0 == 0 and top == top0,
              f"{rel}: the flat top by address equals go tool pprof's on the original")

# -> Cachegrind from sources with lines for some addresses only (a perf recording: its kernel
# frames, and libraries without line tables; a pprof): every cost is in a row (line 0 where no
# line is known, as Cachegrind writes it), so the rows add up to the summary, and cg_annotate
# reads the file (it refuses one without a cmd: line) with the same program total.
for rel in ["perf/spin.data", "perf/threads.data", "pprof/go-cpu.pb.gz"]:
    src = os.path.join(data, rel)
    if rel.startswith("perf/"):  # named first, as these checks read by address
        src = os.path.join(tmp, "named.ppk")
        run("symbolize", os.path.join(data, rel), "--binary-path", os.path.join(data, "perf"),
            "-o", src)
    out = os.path.join(tmp, "partial.cachegrind")
    r = run("convert", src, "--to", "cachegrind", "-o", out)
    text = open(out).read() if r.returncode == 0 else ""
    rows = [l.split() for l in text.splitlines() if l[:1].isdigit()]
    summary = [int(v) for v in text.split("summary:")[1].split()] if "summary:" in text else []
    sums = [sum(int(row[1 + e]) for row in rows) for e in range(len(summary))]
    ann = subprocess.run(["cg_annotate", out], capture_output=True, text=True)
    total = next((l.split()[0].replace(",", "") for l in ann.stdout.splitlines()
                  if "PROGRAM TOTALS" in l), None)
    check(summary and sums == summary and ann.returncode == 0 and total == str(summary[0]),
          f"{rel} -> cachegrind: the rows add up to the summary {summary} ({sums}), and "
          f"cg_annotate reads it: PROGRAM TOTALS {total} ({ann.stderr.strip()[:200]})")
    # Per function: cg_annotate's first event equals profpack top's self cost of the source.
    theirs = defaultdict(int)
    body = subprocess.run(["cg_annotate", "--threshold=0", "--auto=no", out],
                          capture_output=True, text=True).stdout.split("file:function", 1)[-1]
    for l in body.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\).*?\)\s+(\S.*)$", l)
        if m:
            theirs[m.group(2)] += int(m.group(1).replace(",", ""))
    ours = defaultdict(int)
    for l in run("top", src, "--tsv", "-n", "1000000").stdout.splitlines():
        self_, _, _, file, name, _ = l.split("\t")
        if int(self_):
            ours[f"{file or '???'}:{name}"] += int(self_)
    check(theirs and dict(theirs) == dict(ours),
          f"{rel} -> cachegrind: cg_annotate's cost per function is top's self cost "
          f"({len(theirs)} functions; differing: "
          f"{sorted(set(theirs.items()) ^ set(ours.items()))[:4]})")

# Callgrind -> Cachegrind: Callgrind leaves out a row's trailing zeros, Cachegrind writes every
# event's count, and cg_annotate warns of each function whose rows all leave one out.
src = os.path.join(data, "callgrind", "callgrind.workload.cachesim.out")
out = os.path.join(tmp, "cachesim.cachegrind")
r = run("convert", src, "--to", "cachegrind", "-o", out)
text = open(out).read() if r.returncode == 0 else ""
events = next((l.split()[1:] for l in text.splitlines() if l.startswith("events:")), [])
short = [l for l in text.splitlines() if l[:1].isdigit() and len(l.split()) != 1 + len(events)]
ann = subprocess.run(["cg_annotate", "--auto=no", out], capture_output=True, text=True)
check(r.returncode == 0 and events and not short and ann.returncode == 0 and not ann.stderr,
      f"callgrind -> cachegrind: every row has the {len(events)} events' counts ({len(short)} "
      f"rows short, e.g. {short[:1]}), cg_annotate reads it without a warning "
      f"({ann.stderr.strip()[:120]})")

# perf -> pprof: the program's mapping first, where pprof looks for the main binary (`File:`);
# it was perf's first mapping, ld.so.
for rel, program in [("perf/spin.data", "spin"), ("perf/threads.data", "threads")]:
    out = os.path.join(tmp, "perf.pb.gz")
    r = run("convert", os.path.join(data, rel), "--to", "pprof", "-o", out)
    top = subprocess.run(["go", "tool", "pprof", "-top", "-symbolize=none", out],
                         capture_output=True, text=True, env=dict(os.environ, HOME=tmp))
    first = top.stdout.splitlines()[0] if top.stdout else top.stderr.strip()[:200]
    check(r.returncode == 0 and first == f"File: {program}",
          f"{rel} -> pprof: go tool pprof names the program ({first})")

refusals = [
    ("xray/fdr-v5-st.xray", "cachegrind", "xray holds no source lines"),
    ("gperftools/workload.64le.prof", "cachegrind", "gperftools holds no source lines"),
    ("callgrind/callgrind.workload.out", "folded", "callgrind holds no call stacks"),
    ("callgrind/callgrind.workload.out", "trace-event", "callgrind holds no timeline"),
    ("cachegrind/cachegrind.workload.out", "folded", "cachegrind holds no call stacks"),
    ("dcpi/small.dcpi", "folded", "dcpi holds no call stacks"),
    ("gperftools/workload.64le.prof", "trace-event", "gperftools holds no timeline"),
    ("dcpi/small.dcpi", "trace-event", "dcpi holds no timeline"),
    ("callgrind/callgrind.workload.out", "xray", "callgrind holds no timeline"),
    ("cachegrind/cachegrind.workload.out", "xray", "cachegrind holds no timeline"),
    ("gperftools/workload.64le.prof", "xray", "gperftools holds no timeline"),
    ("dcpi/small.dcpi", "xray", "dcpi holds no timeline"),
    ("callgrind/callgrind.workload.out", "gperftools", "callgrind holds no stack samples"),
    ("cachegrind/cachegrind.workload.out", "gperftools", "cachegrind holds no stack samples"),
    ("xray/fdr-v5-st.xray", "gperftools", "xray holds no stack samples"),
    ("dcpi/small.dcpi", "gperftools", "dcpi holds no stack samples"),
    ("callgrind/callgrind.workload.out", "dcpi", "callgrind holds no costs per instruction"),
    ("cachegrind/cachegrind.workload.out", "dcpi", "cachegrind holds no costs per instruction"),
    ("xray/fdr-v5-st.xray", "dcpi", "xray holds no costs per instruction"),
    ("dcpi/small.dcpi", "cachegrind", "dcpi holds no source lines"),
]
for rel, to, needle in refusals:
    out = os.path.join(tmp, "refused")
    r = run("convert", os.path.join(data, rel), "-o", out, "--to", to)
    check(r.returncode == 1 and needle in r.stderr and len(r.stderr.splitlines()) == 1
          and not os.path.exists(out), f"{rel} -> {to} refused: {r.stderr.strip()}")
r = run("convert", os.path.join(data, "gperftools/workload.64le.prof"), "-o",
        os.path.join(tmp, "x"), "--to", "folded")
r2 = run("info", os.path.join(tmp, "x"))
check(r2.returncode == 0 and "format: folded" in r2.stdout,
      "a folded file is read back as collapsed stacks")

finish()
