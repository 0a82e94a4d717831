#!/usr/bin/env python3
"""Callgrind written from the format-neutral model (lib/formats/callgrind/from_model.cpp),
read by callgrind_annotate and gprof2dot, for an XRay trace of several threads (one part per
thread), the same trace symbolized (functions with names, the symbolized source's lines), and a
symbolized gperftools profile of a PIE (addresses and lines):

- callgrind_annotate prints no "malformed" line; its PROGRAM TOTALS are the profile's total;
  its self cost per function equals `profpack top`, and with --inclusive=yes its inclusive cost
  equals `top --inclusive` (but for a function that calls itself: callgrind_annotate adds those
  calls to its inclusive cost again, docs/formats.md).
- The symbolized profile of a PIE: `positions: instr line`; each address is the binary's own
  (addr2line names the function written there); callgrind_annotate --auto=yes gives per line the
  self cost that `profpack annotate` gives.
- With `gprof2dot` (argument): gprof2dot ($PROFPACK_VENV/bin/gprof2dot) reads each file without
  a warning, every part of it: each function's self share is top's.
"""
import os, re, shutil, subprocess, sys, tempfile
from collections import defaultdict

from checklib import check, finish, run, data

with_dot = sys.argv[1:] == ["gprof2dot"]
dot = os.path.join(os.environ.get("PROFPACK_VENV", ""), "bin", "gprof2dot")
if with_dot and not (os.environ.get("PROFPACK_VENV") and os.access(dot, os.X_OK)):
    print(f"gprof2dot not found at $PROFPACK_VENV/bin/gprof2dot "
          f"(PROFPACK_VENV={os.environ.get('PROFPACK_VENV', '')!r}): skipped")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="profpack-cg-model-")
os.chdir(tmp)  # callgrind_annotate shortens file names below its working directory
sym = os.path.join(data, "symbolize")


def top(path, *extra):
    """`top --tsv`: (self, inclusive) per "file:function" as callgrind_annotate names it."""
    rows = {}
    for l in run("top", path, "-n", "100000", "--tsv", *extra).stdout.splitlines():
        self_, incl, _rec, file, name, _obj = l.split("\t")
        rows[(file or "???") + ":" + name] = (int(self_), int(incl))
    return rows


def annotate(path, *extra):
    """callgrind_annotate: PROGRAM TOTALS, cost per "file:function", stderr, stdout."""
    r = subprocess.run(["callgrind_annotate", "--threshold=100", *extra, path],
                       capture_output=True, text=True)
    total, rows, section = None, defaultdict(int), None
    for l in r.stdout.splitlines():
        if "PROGRAM TOTALS" in l:
            total = int(l.split()[0].replace(",", ""))
        elif "file:function" in l:
            section = "functions"
        elif l.startswith("-"):
            continue
        elif section == "functions" and l.strip():
            m = re.match(r"\s*([\d,]+) \([\d. ]+%\)\s+(.*?)(?: \[[^\]]*\])?$", l)
            if m:
                rows[m.group(2)] += int(m.group(1).replace(",", ""))
            else:
                section = None
    return total, rows, r.stderr, r.stdout


def annotated_lines(stdout):
    """Per source line number, the cost callgrind_annotate --auto=yes prints beside it."""
    out, line = {}, None
    for l in stdout.splitlines():
        m = re.match(r"-- line (\d+) -+", l)
        if m:
            line = int(m.group(1))
            continue
        if line is None or "=>" in l:  # a call's cost, below the line of the call
            continue
        m = re.match(r"\s*([\d,]+|\.) (?:\([\d. ]+%\))?\s", l)
        if not m or l.startswith("--"):
            line = None if l.startswith("--") else line
            continue
        if m.group(1) not in (".", "0"):
            out[line] = int(m.group(1).replace(",", ""))
        line += 1
    return out


def recursive(path):
    """Functions with a call to themselves in a Callgrind file (by fn=/cfn= name)."""
    out, fn = set(), None
    for l in open(path):
        if l.startswith("fn="):
            fn = l[3:].strip()
        elif l.startswith("cfn=") and l[4:].strip() == fn:
            out.add(fn)
    return out


def symbolize(src, out, *args):
    r = run("symbolize", src, "-o", out, *args)
    check(r.returncode == 0, f"symbolize {os.path.basename(src)} ({r.stderr.strip()[:200]})")
    return out


mt = os.path.join(data, "xray", "fdr-v5-mt-manybuf.xray")
profiles = {
    "xray mt": mt,
    "xray mt symbolized": symbolize(mt, os.path.join(tmp, "mt.ppk"), "--binary",
                                    os.path.join(data, "xray", "mt.bin")),
    "hot symbolized": symbolize(os.path.join(sym, "hot.prof"), os.path.join(tmp, "hot.ppk"),
                                "--binary-path", sym),
}

for what, src in profiles.items():
    out = os.path.join(tmp, re.sub(r"\W", "_", what) + ".callgrind")
    r = run("convert", src, "--to", "callgrind", "-o", out)
    check(r.returncode == 0, f"{what}: -> callgrind ({r.stderr.strip()[:200]})")
    if r.returncode:
        continue
    want, want_incl = top(src), top(src, "--inclusive")
    total_want = sum(s for s, _ in want.values())
    if with_dot:
        g = subprocess.run([dot, "-f", "callgrind", "-n", "0", "-e", "0", out],
                           capture_output=True, text=True)
        check(g.returncode == 0 and "digraph" in g.stdout and not g.stderr.strip(),
              f"{what}: gprof2dot reads it without a warning ({g.stderr.strip()[-300:]})")
        # Each node's label: name, total %, (self %), calls. Every part read: each function's
        # self share of the whole profile is top's.
        shares = {}
        for m in re.finditer(r'label="((?:[^"\\]|\\.)*)"', g.stdout):
            seg = m.group(1).replace('\\"', '"').split("\\n")  # [object,] name, %, (self %)
            k = next((i for i, x in enumerate(seg) if re.fullmatch(r"[\d.]+%", x)), 0)
            if k and k + 1 < len(seg) and re.fullmatch(r"\([\d.]+%\)", seg[k + 1]):
                shares[seg[k - 1]] = float(seg[k + 1][1:-2])
        bad = [f"{k}: gprof2dot {shares.get(k.split(':', 1)[1])}%, top {s} of {total_want}"
               for k, (s, _) in want.items()
               if s and abs(shares.get(k.split(":", 1)[1], -1) - 100.0 * s / total_want) > 0.01]
        check(not bad, f"{what}: gprof2dot's self share of every function is top's {bad[:3]}")
        continue
    header = open(out).read().split("\n\n", 1)[0]
    check(header.count("# callgrind format") == 1 and header.count("version:") == 1,
          f"{what}: one file header")
    total, selfs, err, _ = annotate(out, "--auto=no")
    check("malformed" not in err, f"{what}: callgrind_annotate reads every line ({err[:300]})")
    check(total == total_want, f"{what}: PROGRAM TOTALS {total} = top's total {total_want}")
    bad = [f"{k}: {selfs.get(k)} vs {s}" for k, (s, _) in want.items() if selfs.get(k, 0) != s]
    check(not bad, f"{what}: callgrind_annotate's self cost per function is top's {bad[:3]}")
    total_i, incl, err, _ = annotate(out, "--auto=no", "--inclusive=yes")
    check("malformed" not in err and total_i == total_want,
          f"{what}: --inclusive=yes: PROGRAM TOTALS {total_i} = {total_want}")
    skip = recursive(out)
    bad = [f"{k}: {incl.get(k)} vs {i}" for k, (_, i) in want_incl.items()
           if i and k.split(":", 1)[1] not in skip and incl.get(k, 0) != i]
    check(not bad and len(want_incl) > len(skip),
          f"{what}: callgrind_annotate's inclusive cost per function is top --inclusive's "
          f"(but {sorted(skip)}) {bad[:3]}")

    if what == "hot symbolized":
        text = open(out).read()
        check("positions: instr line\n" in text, f"{what}: positions: instr line")
        # Each function's addresses are the binary's own: addr2line names the function there.
        fn, ob, addrs = None, "", defaultdict(set)
        for l in text.splitlines():
            if l.startswith("fn="):
                fn = l[3:]
            elif l.startswith("ob="):
                ob = l[3:]
            elif re.match(r"0x[0-9a-f]+ \d+ \d+$", l) and ob.endswith("/hot") and fn != "_start":
                addrs[fn].add(l.split()[0])
        named = {}
        for f, a in addrs.items():
            r = subprocess.run(["addr2line", "-f", "-e", os.path.join(sym, "hot"), *sorted(a)],
                               capture_output=True, text=True).stdout.splitlines()[0::2]
            named[f] = set(r)
        check(len(named) >= 4 and all(v == {f} for f, v in named.items()),
              f"{what}: addr2line names each function at its written addresses {named}")
        # Per-line costs of hot.c as `profpack annotate` gives them.
        a = run("annotate", src, "--source", "hot.c").stdout.splitlines()
        want_lines = {int(l.split()[0]): int(l.split()[1]) for l in a[1:] if l.strip()}
        # The profile names hot.c where the binary was built: give callgrind_annotate a copy
        # at that path below an include directory.
        source = next(l[3:] for l in text.splitlines() if l.startswith("fl=") and "hot.c" in l)
        os.makedirs(os.path.join(tmp, "src", os.path.dirname(source).lstrip("/")), exist_ok=True)
        shutil.copy(os.path.join(sym, "hot.c"), os.path.join(tmp, "src", source.lstrip("/")))
        _, _, err, stdout = annotate(out, "--auto=yes", "--include=" + os.path.join(tmp, "src"))
        got_lines = annotated_lines(stdout)
        check(want_lines and got_lines == want_lines,
              f"{what}: callgrind_annotate's per-line costs of hot.c {got_lines} are "
              f"profpack annotate's {want_lines}")

finish()
