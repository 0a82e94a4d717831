#!/usr/bin/env python3
"""Collapsed stacks, V8 CPU profiles and Chrome trace events as inputs.

- collapsed stacks: `convert --to folded` of a file read as folded gives the same lines (order
  kept, repeated stacks summed, zero counts left out), for files in the forms flamegraph.pl's
  stackcollapse scripts, py-spy and profpack itself write; a .ppk of it too; merge sums stacks.
- .cpuprofile (the committed one, and one `node --cpu-prof` records now when node is
  installed): per function, self samples from `top --event samples` equal the counts this
  script takes from `nodes`/`samples` itself; the total time equals endTime - startTime within
  one sample interval; (garbage collector), (idle) and (program) are functions; annotate gives
  the positionTicks per line; conversions to callgrind, pprof, folded, trace-event and .ppk.
- trace events: an XRay trace written by profpack as trace-event reads back, and converting it
  again gives the identical file; per function, self and inclusive time and calls equal
  `profpack top` on the XRay trace (ticks at its cycle frequency, within the writer's rounding
  to nanoseconds); the array form, B/E events, thread names, skipped kinds with one warning
  each, a trace cut short; JSON that is neither format is refused; a trace llvm-xray-14 writes
  of the same XRay trace (times and ids as strings) gives XRay's figures too.
"""
import json, os, shutil, subprocess, sys, tempfile, threading
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
# Blanks before the stack and before the count are not part of it, as inferno reads a line.
pad = write("pad.folded", "main;foo 3\n  main;foo  4\n\tmain;bar\t2\n")
r = run("convert", pad, "-o", "-", "--to", "folded")
check(r.returncode == 0 and r.stdout == "main;foo 7\nmain;bar 2\n",
      f"folded: blanks around the stack are not part of it ({r.stdout!r} {r.stderr.strip()})")
cut = write("cut.folded", "main;a 3\nmain;b 4")
r = run("info", cut)
check(r.returncode == 0 and "byte offset 9" in r.stdout + r.stderr, "folded: a cut last line warns")
# Counts whose sum does not fit in 64 bits: refused at the line that overflows (a sum wrapped
# around gave `a` an inclusive count below its callees').
big = write("big.folded", "a;b 18446744073709551615\na;c 1\n")
r = run("top", big, "--inclusive")
check(r.returncode == 1 and "line 2, byte offset 29" in r.stderr and "2^64 - 1" in r.stderr,
      f"folded: counts adding up beyond 2^64 - 1 are refused ({r.stderr.strip()})")


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
    check(t.get("units_per_second") == 0,
          f"{label}: samples are a count, not time (units_per_second {t.get('units_per_second')})")
    tt, _ = top_json(path)
    check(tt is not None and tt.get("units_per_second") == 1e6,
          f"{label}: time is in microseconds (units_per_second {tt and tt.get('units_per_second')})")
    deltas = d["timeDeltas"]
    span = d["endTime"] - d["startTime"]
    interval = sorted(deltas)[len(deltas) // 2] if deltas else 0  # the usual interval
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
    # Functions of one name and script stay apart (Callgrind knows a function by object, file
    # and name): the same self figures, none made recursive. (Not inclusive: Callgrind's sums
    # of call costs count a stack twice where a function calls another through a third.)
    figures = lambda top: sorted((f["self"], f.get("recursive", 0))
                                 for f in top["functions"] if f["self"] or f["inclusive"])
    check(t3 is not None and figures(t3) == figures(t),
          f"{label}: the Callgrind conversion read back has the same functions and figures "
          f"({len(figures(t3)) if t3 else None} rows vs {len(figures(t))})")
    # Read back from pprof, each function is still its own: V8's functions of one name and
    # script ("(anonymous)") differ by their first line, which pprof's Function keeps.
    t4, _ = top_json(os.path.join(tmp, "v8.pprof"), "--event", "samples")
    rows = lambda top: sorted((f["name"], f["file"], f["self"], f["inclusive"]) for f in
                              top["functions"] if f["self"] or f["inclusive"])
    check(t4 is not None and rows(t4) == rows(t),
          f"{label}: the pprof conversion read back has the same functions and figures "
          f"({len(rows(t4)) if t4 else None} rows vs {len(rows(t))})")
    # The pprof conversion's sample types: the time in microseconds, as pprof scales it (a
    # unit "time" left go tool pprof -sample_index=time printing "259956time").
    if shutil.which("go"):
        raw = subprocess.run(["go", "tool", "pprof", "-raw", os.path.join(tmp, "v8.pprof")],
                             capture_output=True, text=True).stdout.splitlines()
        types = raw[raw.index("Samples:") + 1].split() if "Samples:" in raw else []
        check(types[:2] == ["time/microseconds", "samples/count"],
              f"{label}: pprof sample types {types}")
    # V8 counts no calls: each calls= is the arc's samples (its cost line's samples column),
    # not its first event's microseconds.
    lines = open(cg).read().splitlines()
    events = next(l.split()[1:] for l in lines if l.startswith("events:"))
    arcs = [(int(l.split()[0][len("calls="):]), int(lines[i + 1].split()[1 + events.index("samples")]))
            for i, l in enumerate(lines) if l.startswith("calls=")]
    check(arcs and all(c == n for c, n in arcs),
          f"{label}: calls= in the Callgrind conversion are the arcs' samples "
          f"({[a for a in arcs if a[0] != a[1]][:3]} differ of {len(arcs)})")


check_cpuprofile(os.path.join(data, "cpuprofile/work.cpuprofile"), "cpuprofile (committed)")
node = shutil.which("node")
if node:
    subprocess.run([node, "--cpu-prof", "--cpu-prof-dir", tmp, "--cpu-prof-name", "fresh.cpuprofile",
                    os.path.join(data, "cpuprofile/work.js")], capture_output=True)
    check_cpuprofile(os.path.join(tmp, "fresh.cpuprofile"), "cpuprofile (node --cpu-prof now)")
else:
    print("note: node is not installed: only the committed .cpuprofile is checked")

# Parent links instead of children, and a sample recorded out of time order (a negative
# delta): samples at 110 (f), 107 (anon), 147 (f), start 100, end 200. In time order anon
# lasts from the start, 10 us, then f 37 and 53 us.
# Two anonymous functions on one line of minified code, told apart by their columns: they stay
# two through pprof (which has no column: the writer gives them system names of their own).
minified = write("minified.cpuprofile", json.dumps({
    "nodes": [
        {"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "",
                                "lineNumber": -1, "columnNumber": -1}, "hitCount": 0, "children": [2]},
        {"id": 2, "callFrame": {"functionName": "", "scriptId": "3", "url": "file:///app/b.min.js",
                                "lineNumber": 0, "columnNumber": 10}, "hitCount": 5, "children": [3]},
        {"id": 3, "callFrame": {"functionName": "", "scriptId": "3", "url": "file:///app/b.min.js",
                                "lineNumber": 0, "columnNumber": 200}, "hitCount": 7, "children": []}],
    "startTime": 0, "endTime": 12000, "samples": [2] * 5 + [3] * 7, "timeDeltas": [1000] * 12}))
mp = os.path.join(tmp, "minified.pb.gz")
r = run("convert", minified, "-o", mp, "--to", "pprof")
got, _ = top_json(mp, "--event", "samples")
want, _ = top_json(minified, "--event", "samples")
rows = lambda t: sorted((f["name"], f["self"], f["inclusive"], f["recursive"]) for f in t["functions"])
check(r.returncode == 0 and got and want and rows(got) == rows(want) and len(rows(want)) == 2,
      f"cpuprofile: two functions of one line, by column, stay two through pprof "
      f"({got and rows(got)} vs {want and rows(want)})")

v8 = write("parent.cpuprofile", json.dumps({
    "nodes": [{"id": 9, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "",
                                      "lineNumber": -1, "columnNumber": -1}},
              {"id": 4, "parent": 9, "callFrame": {"functionName": "f", "scriptId": "3",
               "url": "file:///a.js", "lineNumber": 4, "columnNumber": 2}},
              {"id": 7, "parent": 4, "callFrame": {"functionName": "", "scriptId": "3",
               "url": "file:///a.js", "lineNumber": 9, "columnNumber": 0}}],
    "startTime": 100, "endTime": 200, "samples": [4, 7, 4], "timeDeltas": [10, -3, 40]}))
t, err = top_json(v8, "--inclusive")
fns = {f["name"]: (f["self"], f["inclusive"], f["line"]) for f in t["functions"]} if t else {}
check(fns == {"f": (90, 100, 5), "(anonymous)": (10, 10, 10)} and t["total"] == 100,
      f"cpuprofile: parent links, samples taken in time order, 1-based lines ({fns} {err})")
ev = os.path.join(tmp, "parent.json")
r = run("convert", v8, "-o", ev, "--to", "trace-event")
spans = sorted((e["name"], e["ts"], e["dur"]) for e in json.load(open(ev))["traceEvents"]
               if e["ph"] == "X") if r.returncode == 0 else []
check(spans == [("(anonymous)", 0.0, 10.0), ("f", 0.0, 100.0)],
      f"cpuprofile: the timeline's spans are the runs of samples ({spans})")

# A caller and its only callee span the same time: the caller must come first in the file, as
# viewers (and profpack) take the earlier of two equal spans for the outer one; the callee keeps
# the self time, as in the profile.
v8 = write("nest.cpuprofile", json.dumps({
    "nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "",
                                      "lineNumber": -1, "columnNumber": -1}, "children": [2]},
              {"id": 2, "callFrame": {"functionName": "main", "scriptId": "1", "url": "file:///a.js",
                                      "lineNumber": 0, "columnNumber": 0}, "children": [3]},
              {"id": 3, "callFrame": {"functionName": "leaf", "scriptId": "1", "url": "file:///a.js",
                                      "lineNumber": 3, "columnNumber": 0}}],
    "startTime": 0, "endTime": 3000, "samples": [3, 3, 3], "timeDeltas": [0, 1000, 1000]}))
ev = os.path.join(tmp, "nest.json")
r = run("convert", v8, "-o", ev, "--to", "trace-event")
order = [e["name"] for e in json.load(open(ev))["traceEvents"] if e["ph"] == "X"] \
    if r.returncode == 0 else []
r = run("top", ev, "--tsv")
rows = {l.split("\t")[4]: l.split("\t")[0] for l in r.stdout.splitlines()}
check(order == ["main", "leaf"] and rows == {"leaf": "3000000", "main": "0"},
      f"cpuprofile -> trace-event: of equal spans the caller first ({order}; read back: {rows})")
# The same on a recorded profile: per function, the self time read back from the trace is the
# profile's (microseconds as nanoseconds).
work = os.path.join(data, "cpuprofile", "work.cpuprofile")
ev = os.path.join(tmp, "work.json")
r = run("convert", work, "-o", ev, "--to", "trace-event")
t1, err1 = top_json(work)
t2, err2 = top_json(ev)
want, got = defaultdict(int), defaultdict(int)
for f in t1["functions"] if t1 else []:
    want[f["name"]] += f["self"] * 1000
for f in t2["functions"] if t2 else []:
    got[f["name"]] += f["self"]
check(r.returncode == 0 and want and got == want,
      f"cpuprofile -> trace-event: per function self time read back equal "
      f"({sorted(set(got.items()) ^ set(want.items()))[:4]} {err1} {err2})")
# A real profile cut inside "timeDeltas": the samples before the cut are loaded, and the last of
# them gets no time (not the time to the profile's endTime): the total is what the loaded deltas
# cover.
work = open(os.path.join(data, "cpuprofile/work.cpuprofile")).read()
deltas_at = work.index('"timeDeltas"')
cut_at = work.index(",", work.index(",", deltas_at) + 1 + len(work) // 200) + 1
loaded = [int(x) for x in work[work.index("[", deltas_at) + 1:cut_at].split(",") if x.strip()]
cutp = write("cut.cpuprofile", work[:cut_at])
t, err = top_json(cutp)
check(t is not None and len(loaded) > 10 and t["total"] == sum(loaded) and
      any("no time" in w for w in t["warnings"]),
      f"cpuprofile cut inside timeDeltas: the total is the loaded deltas' {sum(loaded)} "
      f"({t and t['total']}, {t and t['warnings']} {err})")
# Times beyond 2^63 nanoseconds (as for trace events) are refused where they stand, not wrapped
# around (every entry INT64_MAX gave a total of 9.2e18).
huge = write("huge.cpuprofile", json.dumps({
    "nodes": [{"id": 1, "callFrame": {"functionName": "f", "url": "", "scriptId": "0"}}],
    "startTime": 0, "endTime": 1, "samples": [1, 1, 1], "timeDeltas": [2**52, 2**52, 2**52]}))
r = run("top", huge)
at = open(huge).read().index("[", open(huge).read().index('"timeDeltas"'))
check(r.returncode == 1 and f"byte offset {at}" in r.stderr and "entry 2" in r.stderr and
      "beyond 2^63" in r.stderr, f"cpuprofile: a time beyond 2^63 is refused ({r.stderr.strip()})")
hits = write("hits.cpuprofile", json.dumps({
    "nodes": [{"id": 1, "callFrame": {"functionName": "f", "url": "", "scriptId": "0"},
               "hitCount": 2**63 - 1, "children": [2]},
              {"id": 2, "callFrame": {"functionName": "g", "url": "", "scriptId": "0"},
               "hitCount": 2**63 - 1, "children": [3]},
              {"id": 3, "callFrame": {"functionName": "h", "url": "", "scriptId": "0"},
               "hitCount": 2**63 - 1}]}))
r = run("top", hits)
check(r.returncode == 1 and "node 3" in r.stderr and "2^64 - 1" in r.stderr,
      f"cpuprofile: hit counts adding up beyond 2^64 - 1 are refused ({r.stderr.strip()})")

# A name with a line break (trace events can name a call anything) written to Callgrind stays on
# its line: it once ended the fn= line, and the rest became a cost line the reader refused.
nl = write("newline.json", json.dumps({"traceEvents": [
    {"name": "outer\nfake 99", "ph": "X", "ts": 0, "dur": 10, "pid": 1, "tid": 1},
    {"name": "inner\r\nsummary: 5", "ph": "X", "ts": 2, "dur": 3, "pid": 1, "tid": 1}]}))
cg = os.path.join(tmp, "newline.callgrind")
r = run("convert", nl, "-o", cg, "--to", "callgrind")
back = run("top", cg, "--tsv")
names = {l.split("\t")[4]: l.split("\t")[0] for l in back.stdout.splitlines()}
check(r.returncode == 0 and back.returncode == 0 and
      names == {"outer fake 99": "7000", "inner  summary: 5": "3000", "(root)": "0"},
      f"-> callgrind: a name's line breaks are blanks ({names} {back.stderr.strip()[:200]})")

# A NUL byte between two events (no JSON text holds one) is an error where it stands; it was
# taken for the end of the input, and every event after it was dropped with a warning.
events = [{"name": f"f{i}", "ph": "X", "ts": 10 * i, "dur": 5, "pid": 1, "tid": 1}
          for i in range(20)]
text = json.dumps({"traceEvents": events})
at = text.index('{"name": "f10"')
nul = write("nul.json", text[:at] + "\0" + text[at:])
r = run("info", nul)
check(r.returncode == 1 and f"byte offset {at}:" in r.stderr and "NUL byte" in r.stderr,
      f"trace events: a NUL byte is refused at its offset {at} ({r.stderr.strip()})")

# 1 GiB of zeros (a sparse file) is unrecognised from its first bytes: detection read through
# all of it (the Callgrind header's search for a line's end), 1 GB of memory and 2 s.
zeros = os.path.join(tmp, "zeros")
with open(zeros, "wb") as f:
    f.truncate(1 << 30)
proc = subprocess.Popen([os.environ["PROFPACK_CLI"], "info", zeros], stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True)
err = proc.stderr.read()
_, status, usage = os.wait4(proc.pid, 0)
check(os.waitstatus_to_exitcode(status) == 1 and "unrecognised input" in err and
      usage.ru_maxrss < 300 * 1024,
      f"1 GiB of zeros: unrecognised without reading it ({usage.ru_maxrss} KB; {err.strip()})")
os.remove(zeros)

# Endless streams that start as no profile: refused from their first 4 MiB, in bounded memory,
# where they were read until memory ran out (a pipe or a device is read whole before it is
# read as a profile). A real profile through a pipe is read as from its file.
for device in ("/dev/zero", "/dev/urandom"):
    proc = subprocess.Popen([os.environ["PROFPACK_CLI"], "info", device],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(20, proc.kill)  # a build that reads on would fill the memory
    watchdog.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    watchdog.cancel()
    check(os.waitstatus_to_exitcode(status) == 1 and "unrecognised input" in err and
          device in err and usage.ru_maxrss < 200 * 1024,
          f"{device}: refused from its first bytes ({usage.ru_maxrss} KB; {err.strip()[:200]})")
cg = open(os.path.join(data, "cachegrind", "cachegrind.workload.out")).read()
r = subprocess.run([os.environ["PROFPACK_CLI"], "info", "-"], capture_output=True, text=True,
                   timeout=300, input=cg.replace("cmd:", "cmd: " + "x" * (5 << 20), 1))
check(r.returncode == 0 and "format: cachegrind" in r.stdout,
      f"a Cachegrind file whose cmd: line is 5 MiB long is read from a pipe "
      f"({r.stderr.strip()[:200]})")

# A Cachegrind file with a header line longer than the first 4 MiB (a long cmd:) is still one.
cg = open(os.path.join(data, "cachegrind", "cachegrind.workload.out")).read()
at = cg.index("cmd:")
long_cmd = write("long-cmd.cachegrind", cg[:at] + "cmd: " + "x" * (5 << 20) + cg[cg.index("\n", at):])
r = run("info", long_cmd)
check(r.returncode == 0 and "format: cachegrind" in r.stdout,
      f"a Cachegrind file whose cmd: line is 5 MiB long is read ({r.stderr.strip()[:200]})")

# A difference of Callgrind profiles: a called function's inclusive cost is the difference of
# the calls to it (X: main's calls to it cost 100, then 110: +10), also where its own costs and
# calls went down (-10); its costs compared as unsigned numbers gave it -10.
def callgrind_text(x_in, x_self, x_y):
    return (f"# callgrind format\nversion: 1\ncreator: t\ncmd: t\nevents: Ir\n\nfn=main\n1 5\n"
            f"cfn=X\ncalls=1 0\n2 {x_in}\n\nfn=X\n1 {x_self}\ncfn=Y\ncalls=1 0\n2 {x_y}\n\n"
            f"fn=Y\n1 {x_y}\n")
base = write("diff-base.callgrind", callgrind_text(100, 10, 90))
new = write("diff-new.callgrind", callgrind_text(110, 30, 60))
d = os.path.join(tmp, "diff.callgrind")
r = run("diff", base, new, "-o", d)
rows = {l.split("\t")[4]: (l.split("\t")[0], l.split("\t")[1])
        for l in run("top", d, "--tsv").stdout.splitlines()}
check(r.returncode == 0 and rows.get("X") == ("20", "10"),
      f"a Callgrind difference: X's inclusive cost is the difference of the calls to it ({rows})")
# main, which nothing calls, costs its self cost and its calls: +10.
check(rows.get("main") == ("0", "10"),
      f"a Callgrind difference: main's inclusive cost is its own self cost and calls ({rows})")

# ---- trace events
def direct_callees(trace_path):
    """Per thread index and function: calls made directly from its calls (nesting the X
    events by time), which bounds the rounding of its self time."""
    ev = json.load(open(trace_path))["traceEvents"]
    order = [(e["pid"], e["tid"]) for e in ev if e["ph"] == "M"]
    per = defaultdict(list)
    for e in ev:
        if e["ph"] == "X":
            per[(e["pid"], e["tid"])].append((e["ts"], -e["dur"], e["name"]))
    out = {}
    for t, key in enumerate(order):
        n = defaultdict(int)
        stack = []
        for ts, negdur, name in sorted(per[key]):
            while stack and ts >= stack[-1][0]:
                stack.pop()
            if stack:
                n[stack[-1][1]] += 1
            stack.append((ts - negdur, name))
        out[t] = n
    return out


def check_from_xray(xray, label):
    """An XRay trace written as trace-event, read back, written again and queried."""
    tr1, tr2 = os.path.join(tmp, "t1.json"), os.path.join(tmp, "t2.json")
    r1 = run("convert", xray, "-o", tr1, "--to", "trace-event")
    r2 = run("convert", tr1, "-o", tr2, "--to", "trace-event")
    check(r1.returncode == 0 and r2.returncode == 0 and open(tr1).read() == open(tr2).read(),
          f"{label}: trace-event written from XRay reads back to the identical file ({r2.stderr.strip()})")
    _, threads, freq = info(xray)
    callees = direct_callees(tr1)
    for th in [None] + list(range(len(threads))):
        extra = [] if th is None else ["--thread", str(th)]
        tx, _ = top_json(xray, "--inclusive", *extra)
        tj, err = top_json(tr1, "--inclusive", *extra)
        if not tx or not tj:
            check(False, f"trace-event top {err}")
            continue
        jx = {f["name"]: f for f in tj["functions"]}
        ok, worst = True, 0.0
        for f in tx["functions"]:
            g = jx.get(f["name"])
            if g is None:
                ok = False
                break
            # Each event's ts and dur are rounded to the nanosecond: a duration is off by at most
            # half a nanosecond, a self time by half one per call and per direct callee.
            kids = sum(c[f["name"]] for t, c in callees.items() if th is None or t == th)
            for k, bound in [("self", 0.5 * (f["calls"] + kids) + 1), ("inclusive", 0.5 * f["calls"] + 1)]:
                d = abs(g[k] - f[k] * 1e9 / freq)
                worst = max(worst, d)
                ok &= d <= bound
            ok &= g["calls"] == f["calls"]
        check(ok, f"{label}: trace-event thread {th}: per function self, inclusive and calls equal XRay's "
                  f"({len(tx['functions'])} functions; largest difference {worst:.1f} ns)")


xray = os.path.join(data, "xray/fdr-v5-mt-manybuf.xray")
check_from_xray(xray, "1 GHz")
# The same trace as if recorded at 2.9 GHz (header bytes 8-15: the cycle frequency), so that
# ticks do not fall on whole nanoseconds and the writer's rounding shows.
fast = bytearray(open(xray, "rb").read())
fast[8:16] = (2900000017).to_bytes(8, "little")
xray29 = os.path.join(tmp, "x29.xray")
open(xray29, "wb").write(fast)
check_from_xray(xray29, "2.9 GHz")
tr1 = os.path.join(tmp, "t1.json")
run("convert", xray, "-o", tr1, "--to", "trace-event")

# A trace another tool wrote: llvm-xray-14's of the same XRay trace (B/E events; "ts", "pid" and
# "tid" as strings of numbers; its stack frames table). Per function, calls equal profpack's
# reading of the XRay trace itself, and self and inclusive time agree within llvm-xray's rounding
# (its times are microseconds in doubles: at this trace's 1.8e15 us, a quarter microsecond).
llvm_xray = shutil.which("llvm-xray-14")
if llvm_xray:
    lx = os.path.join(tmp, "llvm-xray.json")
    subprocess.run([llvm_xray, "convert", "--symbolize", "--output-format=trace_event",
                    "--instr_map=" + os.path.join(data, "xray/mt.bin"), "--output=" + lx, xray],
                   check=True, capture_output=True)
    tx, _ = top_json(xray, "--inclusive", "--binary", os.path.join(data, "xray/mt.bin"))
    tl, err = top_json(lx, "--inclusive")
    callees = direct_callees(tr1)
    freq = info(xray)[2]  # XRay's figures are cycles
    ok, worst, n = tl is not None and tx is not None, 0.0, 0
    byname = {f["name"]: f for f in (tl or {}).get("functions", [])}
    for f in (tx or {}).get("functions", []) if ok else []:
        g = byname.get(f["name"])
        if g is None or g["calls"] != f["calls"]:
            ok = False
            break
        kids = sum(c[f["name"]] for c in callees.values())
        for k, bound in [("self", 250 * (f["calls"] + kids) + 1), ("inclusive", 250 * f["calls"] + 1)]:
            d = abs(g[k] - f[k] * 1e9 / freq)
            worst = max(worst, d)
            ok &= d <= bound
        n += 1
    check(ok and n > 3, f"llvm-xray-14's trace events of the XRay trace: per function calls, self "
          f"and inclusive equal profpack's reading of the XRay trace ({n} functions; largest "
          f"difference {worst:.0f} ns) {err}")
else:
    print("note: llvm-xray-14 is not installed: no trace written by another tool is read")

arr = write("arr.json", json.dumps([
    {"name": "thread_name", "ph": "M", "pid": 1, "tid": 7, "args": {"name": "main"}},
    {"name": "outer", "ph": "B", "ts": 10, "pid": 1, "tid": 7},
    {"name": "inner", "ph": "X", "ts": 12.5, "dur": 3.25, "pid": 1, "tid": 7, "cat": "c"},
    {"name": "tick", "ph": "i", "ts": 13, "pid": 1, "tid": 7, "s": "t"},
    {"name": "tick", "ph": "i", "ts": 14, "pid": 1, "tid": 7, "s": "t"},
    {"name": "mem", "ph": "C", "ts": 14, "pid": 1, "args": {"v": 3}},
    {"name": "a", "ph": "b", "ts": 14, "pid": 1, "tid": 7, "id": 1},
    {"ph": "E", "ts": 20, "pid": 1, "tid": 7},
    {"name": "other", "ph": "X", "ts": 0, "dur": 1, "pid": 2, "tid": 9},
]))
r = run("top", arr, "--inclusive", "--tsv")
rows = {l.split("\t")[4]: l.split("\t")[:2] for l in r.stdout.splitlines()}
check(r.returncode == 0 and rows.get("outer") == ["6750", "10000"] and
      rows.get("inner") == ["3250", "3250"], f"trace array form: B/E and X nest ({rows})")
# B/E events out of time order pair in time order; at one time an E ends a span before a B
# begins one (unless it names that B: a span of no duration); equal B/E spans nest in the
# order of their B.
for name, events, want in [
        ("unsorted", [("B", "a", 0), ("B", "b", 1), ("B", "c", 5), ("E", "b", 4), ("E", "c", 6),
                      ("E", "a", 10)], {"a": "6000", "b": "3000", "c": "1000"}),
        ("endfirst", [("B", "a", 0), ("B", "b", 10), ("E", None, 10), ("E", None, 20)],
         {"a": "10000", "b": "10000"}),
        ("zero", [("B", "a", 0), ("B", "z", 5), ("E", "z", 5), ("E", "a", 10)],
         {"a": "10000", "z": "0"}),
        ("equal", [("B", "main", 0), ("B", "leaf", 0), ("E", "leaf", 3), ("E", "main", 3)],
         {"main": "0", "leaf": "3000"})]:
    f = write(name + "_be.json", json.dumps(
        [dict({"ph": ph, "ts": ts, "pid": 1, "tid": 1}, **({"name": n} if n else {}))
         for ph, n, ts in events]))
    rb = run("top", f, "--tsv")
    got = {l.split("\t")[4]: l.split("\t")[0] for l in rb.stdout.splitlines()}
    check(rb.returncode == 0 and got == want and not rb.stderr,
          f"trace B/E {name}: self times {got} ({rb.stderr.strip()})")
warn = r.stderr
check(warn.count("instant") == 1 and warn.count("counter") == 1 and warn.count("async") == 1,
      f"trace: one warning per skipped kind ({warn.strip()})")
r = run("info", arr)
check(r.returncode == 0 and "threads" in r.stdout, "trace: info lists threads")
obj = write("obj.json", '{"displayTimeUnit": "ns", "traceEvents": [' +
            '{"name":"f","ph":"X","ts":1,"dur":2,"pid":3,"tid":4}]}')
r = run("top", obj, "--tsv")
check(r.returncode == 0 and r.stdout.startswith("2000\t"), "trace object form")
cutj = write("cut.json", open(tr1).read()[:4000])
r = run("info", cutj)
check(r.returncode == 0 and "ends early" in r.stdout + r.stderr, "trace cut short: a warning")
empty = write("empty.json", "[]")
r = run("convert", empty, "-o", "-", "--to", "trace-event")
check(r.returncode == 0 and '"traceEvents":[' in r.stdout and '"ph"' not in r.stdout,
      f"an empty trace is a trace without spans ({r.stderr.strip()})")
for name, text, what in [("neither.json", '{"a": 1}', "neither"),
                         ("arr2.json", '[{"a": 1}]', "ph"),
                         ("bad.json", '{"traceEvents": [{"ph": "X", "ts": 1,}]}', "line 1"),
                         # a time in a string that is no number: where it stands, and what
                         ("badts.json", '[{"ph": "X", "ts": "12x", "dur": 1, "pid": 1}]',
                          'byte offset 19: expected a time (a number, or a string of one), found "12x"'),
                         ("badpid.json", '[{"ph": "X", "ts": 1, "pid": "99999999999999999999"}]',
                          "a pid or tid out of range")]:
    r = run("info", write(name, text))
    check(r.returncode == 1 and what in r.stderr, f"refused: {name} ({r.stderr.strip()})")
# Thread and process names (thread_name, process_name, a tid given as a string) are written
# back, also through a .ppk.
named = write("named.json", json.dumps({"traceEvents": [
    {"name": "process_name", "ph": "M", "pid": 7, "tid": 0, "args": {"name": "MyProc"}},
    {"name": "thread_name", "ph": "M", "pid": 7, "tid": 3, "args": {"name": "Renderer"}},
    {"name": "f", "ph": "X", "ts": 0, "dur": 10, "pid": 7, "tid": 3},
    {"name": "g", "ph": "X", "ts": 0, "dur": 5, "pid": 7, "tid": 4},
    {"name": "thread_name", "ph": "M", "pid": "1", "tid": "main", "args": {"name": "Main"}},
    {"name": "h", "ph": "X", "ts": 0, "dur": 5, "pid": "1", "tid": "main"},
    {"name": "h", "ph": "X", "ts": 0, "dur": 5, "pid": "1", "tid": "worker"}]}))
for via in ["json", "ppk"]:
    src = named
    if via == "ppk":
        src = os.path.join(tmp, "named.ppk")
        run("convert", named, "-o", src)
    out = os.path.join(tmp, "named.out.json")
    r = run("convert", src, "-o", out, "--to", "trace-event")
    meta = sorted((e["name"], e["pid"], e["args"]["name"]) for e in
                  json.load(open(out))["traceEvents"] if e["ph"] == "M") if r.returncode == 0 else []
    check([m for m in meta if m[0] == "process_name"] == [("process_name", 7, "MyProc")] and
          sorted(m[2] for m in meta if m[0] == "thread_name") == ["Main", "Renderer", "thread 4",
                                                                 "worker"],
          f"trace-event -> trace-event ({via}): thread and process names kept ({meta})")
for to in ["callgrind", "pprof", "folded", "ppk"]:
    r = run("convert", tr1, "-o", os.path.join(tmp, "t." + to), "--to", to)
    check(r.returncode == 0, f"trace-event -> {to} ({r.stderr.strip()})")
r = run("merge", tr1, tr1, "-o", os.path.join(tmp, "tm.callgrind"))
check(r.returncode == 0, f"trace-event: merge ({r.stderr.strip()})")

finish()
