#!/usr/bin/env python3
"""`profpack merge` checked against the reference tools.

- Cachegrind: cg_annotate prints the same for profpack's merge as for cg_merge's (but the
  "Data file:" line), also after the merge went through .ppk.
- gperftools: two runs of one PIE (loaded at different addresses): `go tool pprof -raw` of the
  merged profile has the same samples per stack of addresses, and the same total, as pprof's
  own merge of the two (`go tool pprof -proto BINARY A B`).
- XRay: two traces of one program merged and written as Callgrind: every function's self and
  inclusive ticks and its calls are the sums of each trace's (`profpack top`).
- A mix of formats with the same events merges (into Callgrind), totals summed; --event
  renames events so that others do.
- diff: cg_annotate prints the same summary and function table as for cg_diff's output (with
  and without --mod-filename); a difference keeps negative costs through .ppk and is refused
  as gperftools; XRay differences per function.
- Refusals: different events (the message names them), no inputs, a bad input (the message
  names the file).
"""
import json, os, re, subprocess, sys, tempfile
from collections import Counter

import checklib
from checklib import check, data, finish, info, run, top_tsv

tmp = tempfile.mkdtemp()


def d(rel):
    return os.path.join(data, rel)


def t(name):
    return os.path.join(tmp, name)


def cg_annotate(path):
    out = subprocess.run(["cg_annotate", path], capture_output=True, text=True)
    return out.returncode, [l for l in out.stdout.splitlines() if not l.startswith("Data file:")]


def top(path, *extra):
    return top_tsv(path, *extra)


def totals(path):
    return info(path)[0]


# Cachegrind against cg_merge.
a, b = d("merge/cachegrind.workload.run1.out"), d("merge/cachegrind.workload.run2.out")
subprocess.run(["cg_merge", "-o", t("cg_merge.out"), a, b], check=True, capture_output=True)
rc0, want = cg_annotate(t("cg_merge.out"))
r = run("merge", a, b, "-o", t("merged.out"), "--to", "cachegrind")
check(r.returncode == 0, f"merge of two Cachegrind files ({r.stderr.strip()})")
rc, got = cg_annotate(t("merged.out"))
check(rc0 == 0 and rc == 0 and got == want and len(want) > 20,
      "cg_annotate prints the same for profpack merge as for cg_merge")
r = run("merge", a, b, "-o", t("merged.ppk"))
r2 = run("convert", t("merged.ppk"), "--to", "cachegrind", "-o", t("merged2.out"))
rc, got = cg_annotate(t("merged2.out"))
check(r.returncode == 0 and r2.returncode == 0 and got == want,
      "the merge stored as .ppk writes the same Cachegrind file")
check(run("merge", a, "-o", t("one.out"), "--to", "cachegrind").returncode == 0 and
      cg_annotate(t("one.out"))[1] == cg_annotate(a)[1], "a merge of one file is that file")


# cg_merge's output (padded counts) goes through .ppk byte for byte.
r = run("convert", t("cg_merge.out"), "-o", t("cg_merge.ppk"))
r2 = run("convert", t("cg_merge.ppk"), "--to", "cachegrind", "-o", t("cg_merge.back"))
check(r.returncode == 0 and r2.returncode == 0 and
      open(t("cg_merge.out"), "rb").read() == open(t("cg_merge.back"), "rb").read(),
      "cg_merge's output is rewritten byte for byte from .ppk")


# gperftools against pprof's merge.
def pprof_stacks(path, *sources):
    out = subprocess.run(["go", "tool", "pprof", "-raw", "-symbolize=none", path, *sources],
                         capture_output=True, text=True).stdout
    sec, samples, locs = None, [], {}
    for l in out.splitlines():
        if l.startswith("Samples:"):
            sec = "s"
        elif l.startswith("Locations"):
            sec = "l"
        elif l.startswith("Mappings"):
            sec = "m"
        elif sec == "s":
            m = re.match(r"\s+(\d+)\s+(\d+):((?:\s+\d+)+)\s*$", l)
            if m:
                samples.append((int(m.group(1)), [int(x) for x in m.group(3).split()]))
        elif sec == "l":
            m = re.match(r"\s+(\d+):\s+(0x[0-9a-f]+)", l)
            if m:
                locs[int(m.group(1))] = int(m.group(2), 16)
    c = Counter()
    for n, ids in samples:
        c[tuple(locs[i] for i in ids)] += n
    return c


a, b = d("merge/workload.run1.prof"), d("merge/workload.run2.prof")
# With two arguments pprof takes the first for the binary: name one, so both are sources.
subprocess.run(["go", "tool", "pprof", "-proto", "-symbolize=none", "-output", t("pprof.pb.gz"),
                "/bin/true", a, b], check=True, capture_output=True)
want = pprof_stacks(t("pprof.pb.gz"))
r = run("merge", a, b, "-o", t("merged.prof"), "--to", "gperftools")
check(r.returncode == 0, f"merge of two gperftools profiles ({r.stderr.strip()})")
got = pprof_stacks(t("merged.prof"))
check(sum(got.values()) == sum(want.values()) == sum(pprof_stacks(a).values()) +
      sum(pprof_stacks(b).values()), f"merged samples: {sum(got.values())} = pprof's")
check(got == want and len(want) > 100,
      f"per stack of addresses, the samples equal pprof's merge ({len(want)} stacks)")

# XRay: sums per function, written as Callgrind.
a, b = d("xray/fdr-v5-st.xray"), d("xray/fdr-v5-manybuf.xray")
r = run("merge", a, b, "-o", t("xray.callgrind"), "--to", "callgrind")
check(r.returncode == 0, f"merge of two XRay traces ({r.stderr.strip()})")
ta, tb, tm = top(a), top(b), top(t("xray.callgrind"))
tm.pop("(root)", None)
want = {n: (ta.get(n, (0, 0))[0] + tb.get(n, (0, 0))[0], ta.get(n, (0, 0))[1] +
            tb.get(n, (0, 0))[1]) for n in set(ta) | set(tb)}
check(tm == want and len(want) > 3, "every function's self and inclusive ticks are the sums")


def calls(path):
    out = {}
    for l in run("top", path, "-n", "100000").stdout.splitlines()[2:]:
        left, _, name = l.partition(" calls  ")
        out[name.strip()] = int(left.split()[-1].replace(",", ""))
    return out


calls_in, ids = Counter(), {}
for l in open(t("xray.callgrind")):
    m = re.match(r"(c?fn)=(?:\((\d+)\))? ?(.*)$", l.rstrip("\n"))
    if m:  # compressed names: "(id) name" defines the id, "(id)" refers to it
        name = m.group(3) or ids.get(m.group(2))
        if m.group(2) and m.group(3):
            ids[m.group(2)] = m.group(3)
        if m.group(1) == "cfn":
            callee = name
    elif l.startswith("calls="):
        calls_in[callee] += int(l[6:].split()[0])
ca, cb = calls(a), calls(b)
check(all(calls_in[n] == ca.get(n, 0) + cb.get(n, 0) for n in set(ca) | set(cb)) and ca,
      "every function's calls are the sums")

# A mix of formats with the same events.
a, b = d("cachegrind/cachegrind.workload.ir-only.out"), d("callgrind/callgrind.workload.out")
r = run("merge", a, b, "-o", t("mix.ppk"))
check(r.returncode == 0 and totals(t("mix.ppk"))["Ir"] == totals(a)["Ir"] + totals(b)["Ir"],
      f"Cachegrind + Callgrind: the Ir totals add up ({r.stderr.strip()})")

# diff against cg_diff: cg_annotate's summary and function table are the same (cg_diff 3.19
# sums every function at line 0, so only profpack's difference has per-line figures for the
# auto-annotated source that follows), both ways round and with --mod-filename. profpack's
# header has one line more, the base's totals (checked below).
def annotate_tables(path):
    rc, lines = cg_annotate(path)
    end = next((i for i, l in enumerate(lines) if "Auto-annotated source" in l), len(lines))
    return rc, [l for l in lines[:end] if not l.startswith("Base totals:")]


a, b = d("merge/cachegrind.workload.run1.out"), d("merge/cachegrind.workload.run2.out")
moved = t("run2.moved.out")
# The recorded path of workload.c, whatever checkout the runs were made in.
recorded = next(l[3:].strip() for l in open(b) if l.startswith("fl=") and
                l.strip().endswith("/workload.c"))
with open(b) as src, open(moved, "w") as dst:
    for l in src:
        dst.write("fl=/other/checkout/workload.c\n" if l.strip() == "fl=" + recorded else l)
rewrite = "s/\\/other\\/checkout\\/workload\\.c/" + recorded.replace("/", "\\/") + "/"
for base, new, extra in [(a, b, []), (b, a, []), (a, moved, []),
                         (a, moved, ["--mod-filename", rewrite])]:
    what = f"diff {os.path.basename(base)} {os.path.basename(new)} {' '.join(extra)}".strip()
    cg = subprocess.run(["cg_diff", *[f"{x}={y}" for x, y in zip(extra[::2], extra[1::2])],
                         base, new], capture_output=True, text=True)
    open(t("cg_diff.out"), "w").write(cg.stdout)
    r = run("diff", base, new, "-o", t("diff.out"), "--to", "cachegrind", *extra)
    rc0, want = annotate_tables(t("cg_diff.out"))
    rc, got = annotate_tables(t("diff.out"))
    check(cg.returncode == 0 and r.returncode == 0 and rc0 == 0 and rc == 0 and got == want and
          len(want) > 20, f"{what}: cg_annotate prints the same as for cg_diff's ({r.stderr.strip()})")
    r = run("convert", t("cg_diff.out"), "-o", t("cg_diff.ppk"))
    r2 = run("convert", t("cg_diff.ppk"), "--to", "cachegrind", "-o", t("cg_diff.back"))
    check(r.returncode == 0 and r2.returncode == 0 and
          open(t("cg_diff.out"), "rb").read() == open(t("cg_diff.back"), "rb").read(),
          f"{what}: cg_diff's output (negative counts, repeated fl=) round-trips byte for byte")
r = run("diff", b, a, "-o", t("diff.ppk"))
top_lines = run("top", t("diff.ppk"), "-n", "2", "--event", "Ir").stdout.splitlines()
check(r.returncode == 0 and top_lines[0].startswith("Ir total: -") and "-" in top_lines[2],
      "a difference stored as .ppk answers top with negative costs, largest change first")
i = totals(t("diff.ppk"))["Ir"]
check(i == totals(a)["Ir"] - totals(b)["Ir"], f"its Ir total is the difference ({i})")


def program_totals(tool, path):
    """Per event, the PROGRAM TOTALS line of cg_annotate or callgrind_annotate."""
    out = subprocess.run([tool, path], capture_output=True, text=True).stdout.splitlines()
    events = next(l.split(":", 1)[1].split() for l in out if l.startswith("Events shown:"))
    nums = next(l for l in out if l.rstrip().endswith("PROGRAM TOTALS"))
    nums = re.sub(r"\([^)]*\)", "", nums.replace("PROGRAM TOTALS", "")).replace(",", "").split()
    return dict(zip(events, (int(n) for n in nums)))


# A Callgrind-family difference keeps its base's totals (a `desc:` line both annotators print),
# and shares are of them, as for pprof's -diff_base: not of the net total.
cg_a, cg_b = d("callgrind/callgrind.workload.out"), d("callgrind/callgrind.workload.instr-jumps.out")
for what, base, new, tool, to in [("Cachegrind", b, a, "cg_annotate", "cachegrind"),
                                  ("Callgrind", cg_a, cg_b, "callgrind_annotate", "callgrind")]:
    want = program_totals(tool, base)
    for out in [t("base." + to), t("base.ppk")]:
        r = run("diff", base, new, "-o", out, "--to", to if out.endswith(to) else "ppk")
        js = [json.loads(run("top", out, "--json", "-n", "1", "--event", e).stdout)
              for e in want]
        got = {e: j.get("base_total") for e, j in zip(want, js)}
        check(r.returncode == 0 and got == want and len(want) >= 1,
              f"{what} diff as {os.path.basename(out)}: base_total per event = {tool}'s PROGRAM "
              f"TOTALS of the base ({got} | {want})")
        lines = run("top", out, "-n", "1", "--event", "Ir").stdout.splitlines()
        m = re.match(r"\s*(-?[\d,]+) \(\s*(-?[\d.]+)%\)", lines[2] if len(lines) > 2 else "")
        share = m and float(m.group(2))
        expect = m and round(int(m.group(1).replace(",", "")) * 100 / want["Ir"], 2)
        check(m is not None and "base total" in lines[0] and share == expect,
              f"{what} diff as {os.path.basename(out)}: the top row's share is of the base "
              f"({share}% = {expect}%)")
    rc = subprocess.run([tool, t("base." + to)], capture_output=True, text=True)
    check(rc.returncode == 0 and "Base totals:" in rc.stdout,
          f"{what} diff: {tool} reads it and shows the base totals ({rc.stderr.strip()[:200]})")
r = run("convert", t("diff.ppk"), "--to", "gperftools", "-o", t("d.prof"))
check(r.returncode == 1 and not os.path.exists(t("d.prof")) and
      "a difference of profiles holds negative costs" in r.stderr and "callgrind holds" not in r.stderr,
      f"a difference is not written as gperftools, and the refusal says why: {r.stderr.strip()}")
r = run("diff", d("merge/workload.run1.prof"), d("merge/workload.run2.prof"), "-o", t("d2.prof"))
check(r.returncode == 1 and "negative costs" in r.stderr and not os.path.exists(t("d2.prof")),
      f"diff to a .prof name: refused naming what a difference is ({r.stderr.strip()})")
r = run("diff", d("cachegrind/cachegrind.workload.out"), d("merge/workload.run1.prof"), "-o", t("x.ppk"))
check(r.returncode == 1 and "cannot diff profiles with different events" in r.stderr,
      f"diff of different events says diff, not merge ({r.stderr.strip()[:80]})")
r = run("convert", t("diff.ppk"), "--to", "dcpi", "-o", t("d.dcpi"))
check(r.returncode == 1 and not os.path.exists(t("d.dcpi")),
      f"a difference is not written as DCPI: {r.stderr.strip()}")
x1, x2 = d("xray/fdr-v5-st.xray"), d("xray/fdr-v5-manybuf.xray")
r = run("diff", x1, x2, "-o", t("xd.ppk"))
tx1, tx2, txd = top(x1), top(x2), top(t("xd.ppk"))
check(r.returncode == 0 and all(txd[n][0] == tx2[n][0] - tx1[n][0] for n in tx1),
      "XRay: each function's self ticks are NEW - BASE")
r = run("diff", a, b, "-o", t("bad.ppk"), "--mod-filename", "s/unclosed")
check(r.returncode == 1 and "s/REGEX/REPLACEMENT/" in r.stderr,
      f"a malformed rewrite is refused: {r.stderr.strip()}")

# A difference of stack profiles keeps its stacks, as `go tool pprof -diff_base` does: kept as
# pprof, its -top (flat, cum and their percentages of the base's total) and -traces (signed
# values per stack, base samples labelled pprof::base) equal -diff_base's; profpack's top
# gives the same percentages of the base. Functions named from the binaries at hand
# (PROFPACK_BINARY_PATH, PPROF_BINARY_PATH), and unnamed (-symbolize=none, a binary path
# with no binary: functions are pprof's [object] entries).
def pprof_out(what, *args, binaries=None):
    env = dict(os.environ, HOME=tmp, PPROF_TMPDIR=tmp)
    env.pop("PPROF_BINARY_PATH", None)
    if binaries:
        env["PPROF_BINARY_PATH"] = binaries
    sym = [] if binaries else ["-symbolize=none"]
    return subprocess.run(["go", "tool", "pprof", what, *sym, *args], capture_output=True,
                          text=True, env=env).stdout


def pprof_top(text):
    """The 'Showing' line and, per name, (flat, flat%, cum, cum%)."""
    showing, rows = None, {}
    for l in text.splitlines():
        if l.startswith("Showing nodes"):
            showing = l
        m = re.match(r"\s*(-?[\d.]+\w*)\s+([\d.]+)%\s+[\d.]+%\s+(-?[\d.]+\w*)\s+([\d.]+)%\s+(.+)$", l)
        if m:
            rows[m.group(5)] = (m.group(1), m.group(2), m.group(3), m.group(4))
    return showing, rows


def pprof_traces(text):
    """The traces as a multiset of (labels, value, frames)."""
    out, block = Counter(), []
    for l in text.splitlines() + ["-----------+"]:
        if l.startswith("-----------+"):
            labels = tuple(x.strip() for x in block if re.match(r"\s*\S+:\s", x) and
                           not re.match(r"\s*-?[\d.]+\w*\s", x))
            vals = [x for x in block if re.match(r"\s*-?[\d.]+\w*\s+\S", x)]
            if vals:
                first = vals[0].split()
                frames = [first[1]] + [x.strip() for x in block[block.index(vals[0]) + 1:]]
                out[(labels, first[0], tuple(frames))] += 1
            block = []
        elif block is not None:
            block.append(l)
    return out


def profpack_top_shares(path, env, *extra):
    r = subprocess.run([checklib.cli, "top", path, "-n", "1000", "--event", "cpu", *extra],
                       capture_output=True, text=True, env=env)
    shares = {}
    for l in r.stdout.splitlines()[2:]:
        m = re.match(r"\s*(-?[\d,]+) \(\s*(-?[\d.]+)%\)\s+(?:-?[\d.]+s\s+)?(.+)$", l)
        if m:  # "FILE:NAME [OBJECT]" as pprof's NAME, "[base] [OBJECT]" as "[base]"
            name = re.sub(r" \[[^\]]*\]$", "", m.group(3))
            shares[name if name.startswith("[") else name.rsplit(":", 1)[-1]] = \
                abs(float(m.group(2)))
    return r.stdout.splitlines()[:1], shares


symdir = d("symbolize")
for base, new in [(d("symbolize/hot.prof"), d("symbolize/hot.run2.prof")),
                  (d("symbolize/hot.run2.prof"), d("symbolize/hot.prof")),
                  (d("merge/workload.run1.prof"), d("merge/workload.run2.prof"))]:
    for binaries in [symdir, None]:
        what = (f"diff {os.path.basename(base)} {os.path.basename(new)} "
                f"({'named' if binaries else 'unnamed'})")
        env = dict(os.environ, PROFPACK_BINARY_PATH=binaries or tmp)
        out = t("stack-diff.pb.gz")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([checklib.cli, "diff", base, new, "-o", out], capture_output=True,
                           text=True, env=env)
        check(r.returncode == 0 and open(out, "rb").read(2) == b"\x1f\x8b",
              f"{what}: kept as pprof ({r.stderr.strip()})")
        want = pprof_out("-top", f"-diff_base={base}", new, binaries=binaries)
        got = pprof_out("-top", out, binaries=binaries)
        ws, wr = pprof_top(want)
        gs, gr = pprof_top(got)
        check("Type: cpu" in got and gs == ws and gr == wr and len(wr) >= 2 and
              any(v[0].endswith("ms") and v[0] != "0" for v in wr.values()),
              f"{what}: go tool pprof -top equals -diff_base's, flat/cum/% per function "
              f"({gs} | pprof: {ws})")
        wt = pprof_traces(pprof_out("-traces", f"-diff_base={base}", new, binaries=binaries))
        gt = pprof_traces(pprof_out("-traces", out, binaries=binaries))
        check(gt == wt and len(wt) > 3 and any(k[0] for k in wt) and
              any(k[1].startswith("-") for k in wt),
              f"{what}: -traces: the same stacks with the same signed values and base labels "
              f"({sum(gt.values())} traces, pprof: {sum(wt.values())})")
        # Unnamed: profpack names nothing either (--no-symbolize), so both have pprof's
        # per-object entries; named: the functions with a flat value (naming a pprof
        # profile's callers on read is another matter).
        extra = [] if binaries else ["--no-symbolize"]
        head, shares = profpack_top_shares(out, env, *extra)
        ok = all(abs(shares.get(n, -1) - float(v[1])) < 0.006 for n, v in wr.items()
                 if not binaries or (v[0] != "0" and not n.startswith("[")))
        check(ok and shares and "base total" in "".join(head),
              f"{what}: profpack top: shares of the base's total, as pprof's flat% "
              f"({head}; {sorted(shares.items())[:3]} | pprof: "
              f"{sorted((n, v[1]) for n, v in wr.items())[:3]})")
        tsv = subprocess.run([checklib.cli, "top", out, "--tsv", "-n", "100000", "--event", "cpu",
                              *extra], capture_output=True, text=True, env=env).stdout
        r = subprocess.run([checklib.cli, "top", out, "--json", "--event", "cpu", *extra],
                           capture_output=True, text=True, env=env)
        js = json.loads(r.stdout) if r.returncode == 0 else {}
        net = int(ws.split("for ")[1].split("ms")[0]) * 1000000
        check(sum(int(l.split("\t")[0]) for l in tsv.splitlines()) == js.get("total") == net and
              js.get("base_total") == int(ws.split("of ")[1].split("ms")[0]) * 1000000,
              f"{what}: top --tsv and --json: signed, summing to pprof's net {net}; --json's "
              f"base_total is pprof's ({js.get('total')}, {js.get('base_total')})")

# A difference filtered by a tag: the rows are the tagged samples', the base total is of all
# the base's samples (pprof's "of N total" under -tagfocus), and nothing reads past the samples
# kept (the labels were once left unfiltered).
lbase, lnew = d("pprof/labels-base.pb.gz"), d("pprof/labels-new.pb.gz")
r = run("diff", lbase, lnew, "-o", t("labels-diff.pb.gz"))
for tag in ["sort", "hash"]:
    want = pprof_out("-top", "-nodefraction=0", f"-tagfocus=worker={tag}", "-sample_index=cpu",
                     f"-diff_base={lbase}", lnew)
    ws, wr = pprof_top(want)
    r = subprocess.run([checklib.cli, "top", t("labels-diff.pb.gz"), "--tag", f"worker={tag}",
                        "--json", "--event", "cpu", "-n", "1000"], capture_output=True, text=True)
    js = json.loads(r.stdout) if r.returncode == 0 else {}
    net = int(ws.split("for ")[1].split("ms")[0]) * 1000000 if ws else None
    base_total = int(ws.split("of ")[1].split("ms")[0]) * 1000000 if ws else None
    check(js.get("total") == net and js.get("base_total") == base_total,
          f"diff with --tag worker={tag}: total and base_total are pprof's under -tagfocus "
          f"({js.get('total')}, {js.get('base_total')} | pprof: {net}, {base_total})")

r = run("diff", d("symbolize/hot.prof"), d("symbolize/hot.run2.prof"), "-o", t("sd.pb.gz"))
r2 = run("convert", t("sd.pb.gz"), "--to", "gperftools", "-o", t("sd.prof"))
check(r2.returncode == 1 and "a difference of profiles holds negative costs" in r2.stderr and
      "pprof holds" not in r2.stderr and "callgrind" not in r2.stderr.split(":")[0],
      f"--to gperftools of a gperftools difference says it is a difference: {r2.stderr.strip()}")
r = run("diff", d("symbolize/hot.prof"), d("callgrind/callgrind.workload.out"), "-o", t("x.pb.gz"))
check(r.returncode == 1 and "cannot diff" in r.stderr and "merge" not in r.stderr,
      f"a mismatched-events diff says diff: {r.stderr.strip()}")

# --event renames an event in every input first.
a, b = d("dcpi/small.dcpi"), d("callgrind/callgrind.workload.out")
r = run("merge", a, b, "-o", t("renamed.ppk"), "--event", "cycles=Ir")
check(r.returncode == 0 and
      totals(t("renamed.ppk"))["Ir"] == totals(a)["cycles"] + totals(b)["Ir"],
      f"--event cycles=Ir merges a DCPI profile with a Callgrind one ({r.stderr.strip()})")
r = run("diff", a, b, "-o", t("renamed-diff.ppk"), "--event", "cycles=Ir")
check(r.returncode == 0 and
      totals(t("renamed-diff.ppk"))["Ir"] == totals(b)["Ir"] - totals(a)["cycles"],
      f"--event cycles=Ir in diff ({r.stderr.strip()})")

# Refusals.
a, b = d("callgrind/callgrind.workload.out"), d("callgrind/callgrind.workload.cachesim.out")
r = run("merge", a, b, "-o", t("refused.ppk"))
check(r.returncode == 1 and "different events" in r.stderr and "Bim" in r.stderr and
      len(r.stderr.splitlines()) == 1 and not os.path.exists(t("refused.ppk")),
      f"different events are refused, naming them: {r.stderr.strip()}")
r = run("merge", "-o", t("refused.ppk"))
check(r.returncode == 2 and "input" in r.stderr, f"no inputs: {r.stderr.strip()}")
bad = t("bad.out")
open(bad, "w").write("events: Ir\nfl=a.c\nfn=f\nx y\n")
r = run("merge", d("cachegrind/cachegrind.workload.ir-only.out"), bad, "-o", t("refused.ppk"))
check(r.returncode == 1 and "bad.out" in r.stderr and "line 4" in r.stderr,
      f"a bad input is named: {r.stderr.strip()}")
r = run("merge", d("merge/workload.run1.prof"), d("xray/fdr-v5-st.xray"), "-o", t("r.ppk"))
check(r.returncode == 1 and "different events" in r.stderr and "xray" in r.stderr and
      "gperftools" in r.stderr and len(r.stderr.splitlines()) == 1,
      f"gperftools + XRay: different events: {r.stderr.strip()}")

# The output's format as a cg_merge or pprof user would guess it: the name decides where it
# says a format, else the inputs' own; never a .ppk under a name that says otherwise unasked.
r = run("merge", d("merge/cachegrind.workload.run1.out"), d("merge/cachegrind.workload.run2.out"),
        "-o", t("sum.out"))
a = subprocess.run(["cg_annotate", t("sum.out")], capture_output=True, text=True)
check(r.returncode == 0 and a.returncode == 0 and "Ir" in a.stdout,
      f"merge of Cachegrind files to sum.out: a Cachegrind file cg_annotate reads ({a.stderr[-160:]})")
r = run("merge", d("merge/workload.run1.prof"), d("merge/workload.run2.prof"), "-o", t("m.prof"))
p = subprocess.run(["go", "tool", "pprof", "-raw", t("m.prof")], capture_output=True, text=True,
                   env=dict(os.environ, HOME=tmp))
check(r.returncode == 0 and p.returncode == 0 and open(t("m.prof"), "rb").read(8) != b"\x89PPK\r\n\x1a\n",
      f"merge of gperftools profiles to merged.prof: a gperftools profile pprof reads ({p.stderr[-160:]})")
r = run("convert", d("callgrind/callgrind.workload.out"), "-o", t("x.pb.gz"))
p = subprocess.run(["go", "tool", "pprof", "-raw", t("x.pb.gz")], capture_output=True, text=True,
                   env=dict(os.environ, HOME=tmp))
check(r.returncode == 0 and p.returncode == 0, f"convert to x.pb.gz writes pprof ({p.stderr[-160:]})")
r = run("convert", d("callgrind/callgrind.workload.out"), "-o", t("cg.ppk.pb.gz"), "--to", "ppk")
check(r.returncode == 0 and "warning" in r.stderr and "pprof" in r.stderr and
      open(t("cg.ppk.pb.gz"), "rb").read(4) == b"\x89PPK",
      f"--to ppk under a pprof name: written as asked, with a warning ({r.stderr.strip()})")
r = run("merge", d("merge/workload.run1.prof"), d("merge/workload.run2.prof"), "-o", t("m.ppk"))
check(r.returncode == 0 and open(t("m.ppk"), "rb").read(4) == b"\x89PPK", "merge to m.ppk: a .ppk")

finish()
