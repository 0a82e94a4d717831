"""The CLI's --json documents (docs/cli.md): for a profile of every format, each document
parses as strict JSON and carries the figures the text output prints; failures are one JSON
object on stderr with the documented exit status; names that are not UTF-8 still give valid
JSON."""
import json, os, tempfile

from checklib import check, data, finish, info, run

SAMPLES = {
    "callgrind": "callgrind/callgrind.workload.threads-combined.out",
    "cachegrind": "cachegrind/cachegrind.workload.out",
    "gperftools": "gperftools/workload.64le.prof",
    "xray": "xray/fdr-v5-mt-manybuf.xray",
    "dcpi": "dcpi/medium.dcpi",
}


def doc(*args):
    """(parsed stdout or None, parsed stderr or None, exit status)."""
    r = run(*args, "--json")

    def parse(text):
        try:
            return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError:
            return None

    return parse(r.stdout), parse(r.stderr) if r.stderr else None, r.returncode


def text_calls(path, name):
    """The text output of `calls`: self/inclusive and (inclusive, calls, label) per caller and
    callee of the first match."""
    out = run("calls", path, name).stdout.splitlines()
    rows, section, head = {"callers": [], "callees": []}, None, None
    for l in out[1:]:
        s = l.strip()
        if s in ("callers:", "callees:"):
            section = s[:-1]
        elif section is None and " self " in s:
            f = s.replace(",", "").split()
            head = (int(f[2]), int(f[4]))
        elif section and s:
            if not l.startswith("    "):
                break  # the next match
            f = s.split(None, 3)
            rows[section].append((int(f[0].replace(",", "")), int(f[1].replace(",", ""))))
    return head, rows


for fmt, rel in SAMPLES.items():
    path = os.path.join(data, rel)
    d, err, rc = doc("info", path)
    check(rc == 0 and d is not None and err is None, f"{fmt}: info --json parses")
    if d is None:
        continue
    totals, threads, _ = info(path)
    check(d["format"] == fmt, f"{fmt}: info format {d['format']}")
    check({e["name"]: e["total"] for e in d["events"]} == totals,
          f"{fmt}: info event totals equal the text output's ({len(totals)} events)")
    check(len(d["threads"]) == len(threads), f"{fmt}: {len(threads)} threads listed")

    t, err, rc = doc("top", path, "-n", "15")
    check(rc == 0 and t is not None, f"{fmt}: top --json parses")
    if t is None:
        continue
    event = d["events"][0]["name"]
    check(t["event"] == event and t["total"] == totals[event],
          f"{fmt}: top total {t['total']} equals info's")
    tsv = [l.split("\t") for l in run("top", path, "-n", "15", "--tsv").stdout.splitlines()]
    got = [[str(f["self"]), str(f["inclusive"]), "1" if f["recursive"] else "0", f["file"],
            f["name"], f["object"]] for f in t["functions"]]
    check(got == tsv, f"{fmt}: top --json rows equal top --tsv ({len(tsv)} functions)")

    if t["functions"]:
        name = t["functions"][0]["name"]
        c, err, rc = doc("calls", path, name)
        check(rc == 0 and c is not None and c["matches"], f"{fmt}: calls --json '{name}' parses")
        if c and c["matches"]:
            m = c["matches"][0]
            head, rows = text_calls(path, name)
            check((m["self"], m["inclusive"]) == head,
                  f"{fmt}: calls self/inclusive {head} equal the text output's")
            for side in ("callers", "callees"):
                check([(x["inclusive"], x["calls"]) for x in m[side]] == rows[side],
                      f"{fmt}: {len(rows[side])} {side} equal the text output's")

    if threads:
        t0, _, rc = doc("top", path, "--thread", "0", "-n", "5")
        rows = [l.split("\t")[:2] for l in
                run("top", path, "--thread", "0", "-n", "5", "--tsv").stdout.splitlines()]
        check(rc == 0 and t0["thread"] == 0 and
              [[str(f["self"]), str(f["inclusive"])] for f in t0["functions"]] == rows,
              f"{fmt}: top --json --thread 0 equals top --tsv --thread 0")

# annotate: the text output without a readable source is "line cost" per line.
cg = os.path.join(data, SAMPLES["callgrind"])
a, _, rc = doc("annotate", cg, "--source", "/nonexistent/workload.c")
text = [l.split() for l in run("annotate", cg, "--source", "/nonexistent/workload.c")
        .stdout.splitlines()[1:]]
check(rc == 0 and a is not None and
      [(x["line"], x["cost"]) for x in a["lines"]] == [(int(l), int(c.replace(",", "")))
                                                        for l, c in text],
      f"callgrind: annotate --json equals the text output ({len(text)} lines)")

# annotate with the source at hand: the costs beside the text are the document's, the costs
# without a line (line 0: 3 Ir of clang's in sum.cpp, callgrind_annotate's "<counts for
# unidentified lines>") on a row of their own after the text.
l0 = os.path.join(data, "annotate", "callgrind.line0.out")
src = os.path.join(data, "src", "sum.cpp")
a, _, rc = doc("annotate", l0, "--source", src)
text = [(int(l[17:22]), int(l[:15].strip().replace(",", "")))
        for l in run("annotate", l0, "--source", src).stdout.splitlines()[1:] if l[:15].strip()]
check(rc == 0 and a is not None and (0, 3) in text and
      sorted(text) == [(x["line"], x["cost"]) for x in a["lines"]],
      f"annotate with its source readable: the text's costs, line 0 too, are the document's "
      f"({text} vs {a and a['lines']})")

# merge and diff summaries: totals are the sum and the difference of the inputs'.
m1, m2 = (os.path.join(data, "merge", f"cachegrind.workload.run{i}.out") for i in (1, 2))
t1, t2 = info(m1)[0], info(m2)[0]
with tempfile.TemporaryDirectory() as tmp:
    s, _, rc = doc("merge", m1, m2, "-o", os.path.join(tmp, "m.ppk"))
    check(rc == 0 and s is not None and
          {e["name"]: e["total"] for e in s["events"]} == {k: t1[k] + t2[k] for k in t1},
          "merge --json: event totals are the inputs' sums")
    s, _, rc = doc("diff", m1, m2, "-o", os.path.join(tmp, "d.ppk"))
    check(rc == 0 and s is not None and s["signed_costs"] and
          {e["name"]: e["total"] for e in s["events"]} == {k: t2[k] - t1[k] for k in t1},
          "diff --json: event totals are NEW - BASE, negative ones included")

    # Failures: one JSON object on stderr, nothing on stdout, the documented exit status.
    bad = os.path.join(tmp, "bad.out")
    good = b"# callgrind format\nevents: Ir\nfn=a\n1 2\n"
    with open(bad, "wb") as o:
        o.write(good + b"not a line\n")
    r = run("top", bad, "--json")
    e = json.loads(r.stderr)["error"] if r.stderr.startswith("{") else {}
    check(r.returncode == 1 and r.stdout == "" and e.get("status") == "malformed input" and
          e.get("format") == "callgrind" and e.get("line") == 5 and e.get("offset") == len(good),
          f"malformed input: exit 1, error with format, offset and line ({e.get('message')})")
    # A cut file is read up to the cut, with a warning in the document (not on stderr).
    cut = os.path.join(tmp, "cut.out")
    with open(os.path.join(data, SAMPLES["cachegrind"]), "rb") as f, open(cut, "wb") as o:
        o.write(f.read(3000))
    r = run("top", cut, "--json")
    t = json.loads(r.stdout) if r.returncode == 0 else {}
    check(r.stderr == "" and any("summary" in w for w in t.get("warnings", [])),
          f"cut file: its warning in the document ({t.get('warnings')})")
    r = run("top", os.path.join(tmp, "missing"), "--json")
    e = json.loads(r.stderr)["error"] if r.stderr.startswith("{") else {}
    check(r.returncode == 1 and e.get("status") == "i/o error" and e.get("offset") is None,
          "missing file: exit 1, i/o error")
    r = run("top", cg, "--json", "--no-such-option")
    e = json.loads(r.stderr)["error"] if r.stderr.startswith("{") else {}
    check(r.returncode == 2 and e.get("status") == "usage error" and e.get("code") is None,
          "unknown option: exit 2, usage error")
    r = run("calls", cg, "no_such_function", "--json")
    e = json.loads(r.stderr)["error"] if r.stderr.startswith("{") else {}
    check(r.returncode == 1 and e.get("status") == "not found", "unknown function: exit 1")

    # Names are bytes in a profile: not UTF-8, quotes, backslashes and control characters.
    odd = os.path.join(tmp, "odd.out")
    with open(odd, "wb") as o:
        o.write(b"events: Ir\nfl=a\"b\\c.c\nfn=caf\xe9 \x01 \xe2\x82\xac\n1 5\nfn=main\n2 1\n"
                b"totals: 6\n")
    t, _, rc = doc("top", odd)
    names = sorted(f["name"] for f in t["functions"]) if t else []
    check(rc == 0 and names == ["caf\ufffd \x01 \u20ac", "main"] and
          t["functions"][0]["file"] == 'a"b\\c.c',
          "odd names: valid JSON, invalid UTF-8 as U+FFFD, escapes round-trip")
    check(run("info", odd, "--json").stdout.count("\n") == 1, "one document, one line")

    # A sampled profile's top shows time as pprof does: samples times the header's period.
    import re, subprocess
    prof = os.path.join(data, SAMPLES["gperftools"])
    first = run("top", prof).stdout.splitlines()[0]
    ref = subprocess.run(["go", "tool", "pprof", "-top", "-unit=ms", prof], capture_output=True,
                         text=True, env=dict(os.environ, HOME=tmp)).stdout
    m, want = re.search(r"\(([\d.]+)s\)$", first), re.search(r"of ([\d.]+)ms total", ref)
    check(m and want and abs(float(m.group(1)) * 1000 - float(want.group(1))) < 1e-6,
          f"top of a gperftools profile in seconds ({first!r}) as pprof's total "
          f"({want.group(0) if want else ref[:80]!r})")

    # Several events: top shows every one, as cg_annotate does, for every function.
    cgf = os.path.join(data, SAMPLES["cachegrind"])
    want = {}
    for l in subprocess.run(["cg_annotate", "--auto=no", "--threshold=0", cgf],
                            capture_output=True, text=True).stdout.splitlines():
        m = re.match(r"^((?:\s*(?:[\d,]+(?: \(\s*[\d.]+%\))?|\.)){13})\s+(\S.*)$", l)
        if m and ":" in m.group(2):
            vals = re.findall(r"([\d,]+)(?: \(\s*[\d.]+%\))?|(?<!\S)\.(?!\S)", m.group(1))
            want[m.group(2).strip()] = [int(v.replace(",", "")) if v else 0 for v in vals]
    got = {}
    for l in run("top", cgf, "-n", "1000000").stdout.splitlines()[3:]:
        f = re.split(r"\s{2,}", l.strip())
        if f[-1] != "(total)":
            got[f[-1]] = [int(v.replace(",", "")) for v in f[:-1]]
    check(len(want) > 20 and all(got.get(k) == v for k, v in want.items() if any(v)),
          f"top of a Cachegrind file: every event per function as cg_annotate shows it "
          f"({len(want)} functions; first differing: "
          f"{next(((k, got.get(k), v) for k, v in want.items() if any(v) and got.get(k) != v), None)})")

    # calls on a profile that records no calls says so, and info tells what a profile holds.
    r = run("calls", cgf, "cmp")
    check(r.returncode == 0 and "record no calls" in r.stdout and "callers:" not in r.stdout,
          f"calls on a Cachegrind file says it records no calls ({r.stdout.strip()[-80:]!r})")

    # calls takes FILE:FUNCTION and regular expressions, and suggests near names on a miss.
    cgw = os.path.join(data, "callgrind/callgrind.workload.out")
    r = run("calls", cgw, "workload.c:cmp")
    check(r.returncode == 0 and r.stdout.startswith("/usr/src/profpack-samples/workload.c:cmp"),
          f"calls FILE:FUNCTION ({r.stdout[:60]!r})")
    r = run("calls", cgw, "^msort_with_tmp")
    check(r.returncode == 0 and r.stdout.count("msort_with_tmp.part.0") >= 2,
          "calls takes a regular expression, one entry per match")
    r = run("calls", cgw, "wrker")
    check(r.returncode == 1 and "did you mean" in r.stderr and "'worker'" in r.stderr,
          f"calls suggests near names on a miss ({r.stderr.strip()})")

    # valgrind's --separate-threads=yes files, read as one profile: a thread per file, each with
    # its own file's figures; converted, one file with a part per thread.
    parts = [os.path.join(data, "callgrind-threads", "callgrind.out.workload-0%d" % i)
             for i in (1, 2, 3)]
    r = run("info", *parts)
    check(r.returncode == 0 and r.stdout.count("pid ") == 3, "info of three per-thread files: three threads")
    same = all(run("top", *parts, "--thread", str(i), "--tsv", "-n", "100000").stdout ==
               run("top", part, "--tsv", "-n", "100000").stdout for i, part in enumerate(parts))
    check(same, "top --thread N of the joined files = top of file N")
    joined = os.path.join(tmp, "joined.ppk")
    r = run("convert", *parts, "-o", joined)
    check(r.returncode == 0 and run("info", joined).stdout.count("pid ") == 3,
          "convert of three per-thread files keeps the three threads")

    # Warnings go to stderr in text mode too: `info cut.out >/dev/null` still shows them.
    cut = os.path.join(tmp, "cut.out")
    with open(os.path.join(data, SAMPLES["cachegrind"]), "rb") as f:
        text = f.read()
    with open(cut, "wb") as o:
        o.write(text[:text.rindex(b"summary:")])
    r = run("info", cut)
    check(r.returncode == 0 and "warning" not in r.stdout and
          "warning" in r.stderr and "summary" in r.stderr,
          f"info: a reader's warning on stderr, not stdout ({r.stderr.strip()[:120]!r})")

finish()
