#!/usr/bin/env python3
"""What the viewers read from profpack's outputs, function by function, on every profile of
tests/data and on symbolized gperftools, DCPI and XRay profiles (a total that matches can hide
cost moved between functions):

- Callgrind (what KCachegrind, callgrind_annotate and gprof2dot read): callgrind_annotate reads
  it without a "malformed" line; its self cost per function equals `profpack top`'s, and its
  inclusive cost (--inclusive=yes) `top --inclusive`'s for every function that no stack holds
  twice (callgrind_annotate adds up a function's calls, so a recursive function's nested calls
  count again, where top counts a stack once; so do the calls within a cycle of calls, where
  top gives at most the cycle's cost) and that has no more self than inclusive time (a
  trace cut short can leave that, which no Callgrind file holds); gprof2dot reads every part
  with nothing on stderr.
- pprof (what `go tool pprof` shows): -top's flat per function equals top's self, and its cum
  top's inclusive where the source has whole stacks (without them every sample is one frame).
  Profiles whose functions are unnamed addresses are compared by address in check_convert.py;
  a trace cut short only on flat (the stacks of calls that never returned hold their callees,
  inclusive time counts completed calls).
- folded stacks of the symbolized profiles: per innermost frame, top's self.
"""
import os, re, subprocess, tempfile
from collections import defaultdict

from checklib import callgrind_cycles, check, data, dcpi_of_text, finish, info, run

tmp = tempfile.mkdtemp(prefix="profpack-viewers-")
venv = os.environ.get("PROFPACK_VENV", "")
gprof2dot = os.path.join(venv, "bin", "gprof2dot") if venv else ""


def top_rows(path, *extra):
    """profpack top --tsv: (self, inclusive) per function name, summed over files and objects,
    and the names of the functions that call themselves."""
    rows, recursive = defaultdict(lambda: [0, 0]), set()
    r = run("top", path, "-n", "1000000", "--tsv", *extra)
    for l in r.stdout.splitlines():
        self_, incl, rec, _file, name, _obj = l.split("\t")
        rows[name][0] += int(self_)
        rows[name][1] += int(incl)
        if rec == "1":
            recursive.add(name)
    return {n: tuple(v) for n, v in rows.items()}, recursive


def annotate_costs(path, inclusive):
    """callgrind_annotate's first-event cost per function name, and its stderr/warnings."""
    r = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no",
                        "--inclusive=" + ("yes" if inclusive else "no"), path],
                       capture_output=True, text=True)
    rows, body = defaultdict(int), False
    for l in r.stdout.splitlines():
        if "file:function" in l:
            body = True
        elif body and l.strip() and not l.startswith("-"):
            cost, _, rest = l.strip().partition(" ")
            name = rest.split(")", 1)[1].strip() if rest.startswith("(") else rest.strip()
            name = re.sub(r" \[[^\]]*\]$", "", name)
            name = name.split(":", 1)[1] if ":" in name and not name.startswith(":") else name
            rows[name] += 0 if cost == "." else int(cost.replace(",", ""))
    problems = [l for l in (r.stdout + r.stderr).splitlines() if "malformed" in l]
    return dict(rows), r.returncode, problems


def recursive(path):
    """Functions that some stack of the profile holds more than once (from --to folded)."""
    out = os.path.join(tmp, "r.folded")
    if run("convert", path, "--to", "folded", "-o", out).returncode:
        return set()
    twice = set()
    for l in open(out, encoding="utf-8", errors="replace"):
        frames = l.rpartition(" ")[0].split(";")
        twice |= {f for f in frames if frames.count(f) > 1}
    return twice


def has_stacks(path):
    return run("convert", path, "--to", "folded", "-o", os.path.join(tmp, "s.folded")) \
        .returncode == 0


def unnamed(rows):
    return any(re.search(r"(\+0x[0-9a-f]+|^0x[0-9a-f]+)$", n) for n in rows)


def pprof_top(path, event):
    # -unit=ns: a time pprof scales (XRay ticks at 1 GHz are nanoseconds) printed exactly.
    r = subprocess.run(["go", "tool", "pprof", "-top", "-symbolize=none", "-nodecount=1000000",
                        "-nodefraction=0", "-edgefraction=0", "-unit=ns", "-sample_index=" + event,
                        path],
                       capture_output=True, text=True, env=dict(os.environ, HOME=tmp))
    rows, body = defaultdict(lambda: [0, 0]), False
    for l in r.stdout.splitlines():
        if l.strip().startswith("flat"):
            body = True
            continue
        f = l.split(None, 5)
        if body and len(f) == 6:
            # A unit pprof does not scale is printed after the number ("2319721ticks"); an
            # inlined function's name after " (inline)".
            name = re.sub(r" \(inline\)$", "", f[5].strip())
            rows[name][0] += int(re.match(r"-?\d+", f[0]).group())
            rows[name][1] += int(re.match(r"-?\d+", f[3]).group())
    return {n: tuple(v) for n, v in rows.items()}, r.returncode, r.stderr


def profiles():
    """(label, path) of every profile of tests/data, then symbolized ones made here."""
    for d in ["callgrind", "cachegrind", "gperftools", "xray", "dcpi"]:
        for f in sorted(os.listdir(os.path.join(data, d))):
            if not f.endswith((".txt", ".bin")):
                yield f"{d}/{f}", os.path.join(data, d, f)
    sym = os.path.join(data, "symbolize")
    for name in ["hot", "hot-inline"]:
        out = os.path.join(tmp, name + ".ppk")
        r = run("symbolize", os.path.join(sym, name + ".prof"), "--binary-path", sym, "-o", out)
        check(r.returncode == 0, f"symbolize {name}.prof ({r.stderr.strip()[:200]})")
        yield f"symbolized gperftools {name}.prof", out
    dcpi = os.path.join(tmp, "hot.dcpi")
    dcpi_of_text(os.path.join(sym, "hot"), dcpi)
    out = os.path.join(tmp, "dcpi.ppk")
    r = run("symbolize", dcpi, "--binary-path", sym, "-o", out)
    check(r.returncode == 0, f"symbolize a DCPI profile of hot ({r.stderr.strip()[:200]})")
    yield "symbolized DCPI of hot", out
    xray = os.path.join(data, "xray")
    for trace, binary in [("fdr-v5-mt-manybuf.xray", "mt.bin"), ("fdr-v5-st-g.xray", "st-g.bin")]:
        out = os.path.join(tmp, trace + ".ppk")
        r = run("symbolize", os.path.join(xray, trace), "--binary", os.path.join(xray, binary),
                "-o", out)
        check(r.returncode == 0, f"symbolize {trace} ({r.stderr.strip()[:200]})")
        yield f"symbolized XRay {trace}", out


for label, src in profiles():
    want, calls_itself = top_rows(src)
    want_incl = {n: v[1] for n, v in top_rows(src, "--inclusive")[0].items()}
    event = next(iter(info(src)[0]))
    stacks = has_stacks(src)

    # Callgrind.
    cg = os.path.join(tmp, "out.callgrind")
    r = run("convert", src, "--to", "callgrind", "-o", cg)
    check(r.returncode == 0, f"{label} -> callgrind ({r.stderr.strip()[:200]})")
    if r.returncode == 0:
        selfs, arc, problems = annotate_costs(cg, False)
        # (valgrind's own --combine-dumps=yes files repeat the header per part, which
        # callgrind_annotate calls malformed: a Callgrind source is held to its own count.)
        own = len(annotate_costs(src, False)[2]) if label.startswith("callgrind/") else 0
        check(arc == 0 and len(problems) <= own, f"{label}: callgrind_annotate reads the Callgrind "
              f"output without complaint ({problems[:2]})")
        bad = {n: (selfs.get(n, 0), s) for n, (s, _) in want.items() if selfs.get(n, 0) != s}
        check(not bad, f"{label}: callgrind_annotate self per function = profpack top "
              f"({len(want)} functions; differing: {dict(list(bad.items())[:4])})")
        incls, _, _ = annotate_costs(cg, True)
        skip = calls_itself | (recursive(src) if stacks else set())
        bad = {n: (incls.get(n, 0), i) for n, i in want_incl.items()
               if n not in skip and i >= want[n][0] and n in want and incls.get(n, 0) != i}
        # A function also entered without a call (clone, where each thread starts): the
        # Callgrind written holds its calls and self cost, and profpack reads its inclusive
        # cost back from them; callgrind_annotate gives it only the calls to it (check_top.py
        # checks profpack's figure against callgrind_annotate's own self and call costs).
        back = {n: v[1] for n, v in top_rows(cg, "--inclusive")[0].items()}
        entered = {n for n, (a, i) in bad.items() if a < i and back.get(n) == i}
        # A function in a cycle of calls (even'2 and odd'2 calling each other):
        # callgrind_annotate adds up the nested calls, profpack gives at most the cycle's own
        # cost (check_top.py checks that figure from callgrind_annotate's), and reads it back.
        cycles = {c.split(":", 1)[1] if ":" in c else c for c in callgrind_cycles(cg)} \
            if bad else set()
        cyclic = {n for n, (a, i) in bad.items() if n in cycles and a > i and back.get(n) == i}
        bad = {n: v for n, v in bad.items() if n not in entered | cyclic}
        check(not bad, f"{label}: callgrind_annotate inclusive per function = top --inclusive "
              f"(but {len(skip)} recursive, {len(entered)} also entered without a call, "
              f"{len(cyclic)} in a cycle of calls; differing: {dict(list(bad.items())[:4])})")
        if gprof2dot and os.path.exists(gprof2dot):
            g = subprocess.run([gprof2dot, "-f", "callgrind", cg], capture_output=True, text=True)
            check(g.returncode == 0 and "digraph" in g.stdout and (not g.stderr.strip() or own),
                  f"{label}: gprof2dot reads every part without a warning ({g.stderr[-200:]})")
        else:
            print(f"skip {label}: gprof2dot: PROFPACK_VENV has no bin/gprof2dot "
                  "(scripts/setup.sh installs it)")

    # pprof.
    pb = os.path.join(tmp, "out.pb.gz")
    r = run("convert", src, "--to", "pprof", "-o", pb)
    check(r.returncode == 0, f"{label} -> pprof ({r.stderr.strip()[:200]})")
    if r.returncode == 0 and not unnamed(want):
        got, prc, err = pprof_top(pb, event)
        bad = {n: (got.get(n, (0, 0))[0], s) for n, (s, _) in want.items()
               if got.get(n, (0, 0))[0] != s}
        check(prc == 0 and not bad, f"{label}: go tool pprof -top flat per function = profpack "
              f"top ({len(want)} functions; differing: {dict(list(bad.items())[:4])} {err[-120:]})")
        # A trace cut short leaves calls that never returned: the stacks of the calls they made
        # still hold them, their inclusive time (llvm-xray's: completed calls) does not.
        cut = "warning" in run("info", src).stderr
        if stacks and not cut:
            bad = {n: (got.get(n, (0, 0))[1], i) for n, i in want_incl.items()
                   if got.get(n, (0, 0))[1] != i}
            check(not bad, f"{label}: go tool pprof -top cum per function = top --inclusive "
                  f"(differing: {dict(list(bad.items())[:4])})")

    # Folded stacks of symbolized profiles (the corpus's own: check_convert.py).
    if label.startswith("symbolized") and stacks:
        fo = os.path.join(tmp, "out.folded")
        run("convert", src, "--to", "folded", "-o", fo)
        leaf = defaultdict(int)
        for l in open(fo, encoding="utf-8"):
            frames, _, count = l.rstrip("\n").rpartition(" ")
            leaf[frames.split(";")[-1]] += int(count)
        bad = {n: (leaf.get(n, 0), s) for n, (s, _) in want.items() if leaf.get(n, 0) != s}
        check(not bad, f"{label}: folded counts per innermost frame = top self "
              f"(differing: {dict(list(bad.items())[:4])})")

finish()
