#!/usr/bin/env python3
"""Conversions into the written-only formats, checked against profpack's own queries.

- folded: every line is `frame;...;frame COUNT`; the counts add up to the source's total
  (`profpack info`), and per innermost frame to its self cost (`profpack top --tsv`).
- trace-event: parses as JSON; per thread, the complete events nest; per function, the
  summed durations of its outermost calls equal its inclusive ticks (`top --thread N`) in
  microseconds at the trace's cycle frequency, its event count its completed calls.
- every pair the source cannot fill is refused with one line naming what it lacks.
"""
import json, os, subprocess, sys, tempfile
from collections import defaultdict

cli = os.environ["PROFPACK_CLI"]
data = os.environ["PROFPACK_TEST_DATA"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok  ", what)
    else:
        failed += 1
        print("FAIL", what)


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def info(path):
    out = run("info", path).stdout.splitlines()
    totals, threads, freq = {}, [], 0.0
    section = None
    for l in out:
        if l.startswith("events:"):
            section = "events"
            continue
        if l.startswith("threads:"):
            section = "threads"
            continue
        if l.startswith("  ") and section == "events":
            f = l.split()
            totals[f[0]] = int(f[1])
            if "per second" in l:
                freq = float(l.split("(")[1].split()[0])
        elif l.startswith("  ") and section == "threads":
            threads.append(l.split(":")[0].strip())
        else:
            section = None
    return totals, threads, freq


def top_tsv(path, *extra):
    rows = {}
    for l in run("top", path, "-n", "100000", "--tsv", *extra).stdout.splitlines():
        self_, incl, _rec, _file, name, _obj = l.split("\t")
        rows[name] = (int(self_), int(incl))
    return rows


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
        events = json.load(open(out))["traceEvents"]
    except ValueError as e:
        check(False, f"{rel}: trace-event output parses as JSON ({e})")
        continue
    check(True, f"{rel}: trace-event output parses as JSON")
    _, threads, freq = info(src)
    names = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M"}
    by_thread = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_thread[(e["pid"], e["tid"])].append(e)
    check(set(by_thread) <= names and len(names) == len(threads),
          f"{rel}: one thread_name per thread, every event on a named thread")
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

refusals = [
    ("callgrind/callgrind.workload.out", "folded", "callgrind holds no call stacks"),
    ("callgrind/callgrind.workload.out", "trace-event", "callgrind holds no timeline"),
    ("cachegrind/cachegrind.workload.out", "folded", "cachegrind holds no call stacks"),
    ("dcpi/small.dcpi", "folded", "dcpi holds no call stacks"),
    ("gperftools/workload.64le.prof", "trace-event", "gperftools holds no timeline"),
    ("dcpi/small.dcpi", "trace-event", "dcpi holds no timeline"),
]
for rel, to, needle in refusals:
    out = os.path.join(tmp, "refused")
    r = run("convert", os.path.join(data, rel), "-o", out, "--to", to)
    check(r.returncode == 1 and needle in r.stderr and len(r.stderr.splitlines()) == 1
          and not os.path.exists(out), f"{rel} -> {to} refused: {r.stderr.strip()}")
r = run("convert", os.path.join(data, "gperftools/workload.64le.prof"), "-o",
        os.path.join(tmp, "x"), "--to", "folded")
r2 = run("info", os.path.join(tmp, "x"))
check(r2.returncode != 0, "a folded file is not read back as a profile")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
