#!/usr/bin/env python3
"""Collapsed stacks and V8 CPU profiles as inputs.

- collapsed stacks: `convert --to folded` of a file read as folded gives the same lines (order
  kept, repeated stacks summed, zero counts left out), for files in the forms flamegraph.pl's
  stackcollapse scripts, py-spy and profpack itself write; a .ppk of it too; merge sums stacks.
- .cpuprofile (the committed one, and one `node --cpu-prof` records now when node is
  installed): per function, self samples from `top --event samples` equal the counts this
  script takes from `nodes`/`samples` itself; the total time equals endTime - startTime within
  one sample interval; (garbage collector), (idle) and (program) are functions; annotate gives
  the positionTicks per line; conversions to callgrind, pprof, folded, trace-event and .ppk.
"""
import json, os, shutil, subprocess, sys, tempfile
from collections import defaultdict

from checklib import check, data, finish, info, run

tmp = tempfile.mkdtemp()


def top_json(path, *extra):
    r = run("top", path, "-n", "1000000", "--json", *extra)
    if r.returncode:
        return None, r.stderr.strip()
    return json.loads(r.stdout), ""


def write(name, text):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        f.write(text)
    return p


def folded_lines(text):
    """The stacks of a folded text as profpack writes them back: order of first appearance,
    repeated stacks summed, zero counts left out."""
    sums, order = {}, []
    for l in text.splitlines():
        if not l.strip():
            continue
        stack, _, count = l.rstrip().rpartition(" ")
        stack = stack.rstrip()
        if stack not in sums:
            order.append(stack)
            sums[stack] = 0
        sums[stack] += int(count)
    return [f"{s} {sums[s]}" for s in order if sums[s]]


# ---- collapsed stacks
folded_inputs = {
    "flamegraph": "main;parse;read_line 12\nmain;parse 3\nmain;eval;fib;fib;fib 40\n"
                  "main;eval;fib;fib 7\nmain;parse;read_line 5\nmain 0\n",
    "pyspy": "process 1234:\"python3 x.py\";<module> (x.py:10);work (x.py:4) 25\n"
             "process 1234:\"python3 x.py\";<module> (x.py:10);idle (x.py:7) 9\n",
    "kernel": "swapper;secondary_startup_64_[k];cpu_idle_[k] 100\r\nbash;main;[unknown] 2\r\n",
}
for name, text in folded_inputs.items():
    src = write(name + ".folded", text)
    out = os.path.join(tmp, name + ".out.folded")
    r = run("convert", src, "-o", out, "--to", "folded")
    check(r.returncode == 0, f"folded {name}: read and written back ({r.stderr.strip()})")
    if r.returncode == 0:
        got = open(out).read().splitlines()
        check(got == folded_lines(text), f"folded {name}: the same stacks back")
    ppk = os.path.join(tmp, name + ".ppk")
    r = run("convert", src, "-o", ppk)
    r2 = run("convert", ppk, "-o", out, "--to", "folded")
    check(r.returncode == 0 and r2.returncode == 0 and
          open(out).read().splitlines() == folded_lines(text), f"folded {name}: through .ppk")

src = write("a.folded", folded_inputs["flamegraph"])
t, err = top_json(src, "--inclusive")
fns = {f["name"]: f for f in t["functions"]} if t else {}
check(t is not None and fns["fib"]["self"] == 47 and fns["fib"]["inclusive"] == 47 and
      fns["main"]["inclusive"] == 67 and fns["parse"]["inclusive"] == 20 and t["total"] == 67,
      f"folded: self and inclusive (recursion counted once) {err}")
r = run("calls", src, "eval")
check(r.returncode == 0 and "fib" in r.stdout and "main" in r.stdout, "folded: calls has arcs")
merged = os.path.join(tmp, "merged.folded")
r = run("merge", src, src, "-o", merged)
check(r.returncode == 0 and open(merged).read().splitlines() ==
      [l.rsplit(" ", 1)[0] + " " + str(2 * int(l.rsplit(" ", 1)[1]))
       for l in folded_lines(folded_inputs["flamegraph"])],
      f"folded: merge of two sums each stack, kept as folded ({r.stderr.strip()})")
for to in ["callgrind", "pprof"]:
    r = run("convert", src, "-o", os.path.join(tmp, "a." + to), "--to", to)
    check(r.returncode == 0, f"folded -> {to} ({r.stderr.strip()})")
# Written by profpack from gperftools and XRay: the same lines back.
for rel in ["gperftools/workload.64le.prof", "xray/fdr-v5-mt-manybuf.xray"]:
    a, b = os.path.join(tmp, "x1.folded"), os.path.join(tmp, "x2.folded")
    r1 = run("convert", os.path.join(data, rel), "-o", a, "--to", "folded")
    r2 = run("convert", a, "-o", b, "--to", "folded")
    check(r1.returncode == 0 and r2.returncode == 0 and open(a).read() == open(b).read(),
          f"folded written from {rel} reads back to the same file")
bad = write("bad.folded", "main;a 3\nmain;b x3\n")
r = run("info", bad)
check(r.returncode == 1 and "line 2" in r.stderr and "byte offset" in r.stderr,
      f"folded: a bad count names its line and offset ({r.stderr.strip()})")
cut = write("cut.folded", "main;a 3\nmain;b 4")
r = run("info", cut)
check(r.returncode == 0 and "byte offset 9" in r.stdout + r.stderr, "folded: a cut last line warns")


# ---- V8 CPU profiles
def v8_expected(path):
    """Per (function name, url, 1-based line): self samples, from nodes and samples alone."""
    d = json.load(open(path))
    key = {}
    for n in d["nodes"]:
        cf = n["callFrame"]
        key[n["id"]] = (cf["functionName"] or "(anonymous)", cf["url"], cf["lineNumber"] + 1)
    samples = defaultdict(int)
    for s in d["samples"]:
        samples[key[s]] += 1
    ticks = defaultdict(int)  # (url, line) -> ticks
    for n in d["nodes"]:
        for pt in n.get("positionTicks", []):
            ticks[(n["callFrame"]["url"], pt["line"])] += pt["ticks"]
    return d, samples, ticks


def check_cpuprofile(path, label):
    d, want, ticks = v8_expected(path)
    t, err = top_json(path, "--event", "samples")
    check(t is not None, f"{label}: top --event samples {err}")
    if not t:
        return
    got = defaultdict(int)
    for f in t["functions"]:
        got[(f["name"], f["file"], f["line"])] += f["self"]
    got = {k: v for k, v in got.items() if v}
    check(got == dict(want), f"{label}: self samples per function equal the counts from "
                             f"nodes/samples ({len(want)} functions, {sum(want.values())} samples)")
    names = {k[0] for k in want}
    for special in ["(garbage collector)", "(program)", "(idle)"]:
        if special in names:
            check(any(f["name"] == special for f in t["functions"]), f"{label}: {special} kept")
    tt, _ = top_json(path)
    deltas = d["timeDeltas"]
    span = d["endTime"] - d["startTime"]
    interval = max(deltas[1:] or [0]) if deltas else 0
    check(tt is not None and tt["event"] == "time" and abs(tt["total"] - span) <= interval,
          f"{label}: total time {tt and tt['total']} us = endTime - startTime {span} us within "
          f"one sample interval ({interval} us)")
    # positionTicks per line of one file, as annotate gives them
    files = defaultdict(int)
    for (url, line), n in ticks.items():
        files[url] += n
    if files:
        url = max(files, key=files.get)
        r = run("annotate", path, "--source", url, "--event", "samples", "--json")
        lines = {l["line"]: l["cost"] for l in json.loads(r.stdout)["lines"]} if r.returncode == 0 else {}
        want_lines = {line: n for (u, line), n in ticks.items() if u == url}
        check(all(lines.get(k) == v for k, v in want_lines.items()),
              f"{label}: annotate gives positionTicks per line of {url}")
    for to in ["callgrind", "pprof", "folded", "trace-event", "ppk"]:
        out = os.path.join(tmp, "v8." + to)
        r = run("convert", path, "-o", out, "--to", to)
        check(r.returncode == 0, f"{label} -> {to} ({r.stderr.strip()})")
    t2, _ = top_json(os.path.join(tmp, "v8.ppk"), "--event", "samples")
    check(t2 == {**t, "file": t2["file"]} if t2 else False, f"{label}: the .ppk's top is the same")
    cg = os.path.join(tmp, "v8.callgrind")
    t3, _ = top_json(cg, "--event", "samples")
    check(t3 is not None and t3["total"] == t["total"], f"{label}: the Callgrind conversion's total")


check_cpuprofile(os.path.join(data, "cpuprofile/work.cpuprofile"), "cpuprofile (committed)")
node = shutil.which("node")
if node:
    subprocess.run([node, "--cpu-prof", "--cpu-prof-dir", tmp, "--cpu-prof-name", "fresh.cpuprofile",
                    os.path.join(data, "cpuprofile/work.js")], capture_output=True)
    check_cpuprofile(os.path.join(tmp, "fresh.cpuprofile"), "cpuprofile (node --cpu-prof now)")
else:
    print("note: node is not installed: only the committed .cpuprofile is checked")

finish()
