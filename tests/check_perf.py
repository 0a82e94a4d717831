#!/usr/bin/env python3
"""Acceptance for perf.data input: after `profpack symbolize`, `profpack top --tsv` self samples
per function of the recorded programs equal `perf report --stdio --no-children -n --sort sym`,
samples per thread and DSO equal `--sort pid,dso`, and the total equals perf's sample count.
perf's output is parsed here, independently of profpack. With --record, a new recording of
tests/data/perf/threads is made and checked the same way (exit 77 where perf_event_open is
denied); without it the committed recordings are checked."""
import collections, os, re, shutil, subprocess, sys, tempfile

cli = os.environ["PROFPACK_CLI"]
data = os.path.join(os.environ["PROFPACK_TEST_DATA"], "perf")
PROGRAMS = {"spin", "threads"}  # the committed binaries, built with frame pointers and -g
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed, failed = passed + bool(ok), failed + (not ok)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def dso_name(obj):
    base = os.path.basename(obj)
    return "[kernel.kallsyms]" if base.startswith("[kernel.kallsyms]") else base


def perf_rows(buildids, f, sort):
    out = run("perf", "--buildid-dir", buildids, "report", "-i", f, "--stdio", "--no-children",
              "-n", "-g", "none", "--sort", sort)
    total, rows = None, []
    for line in out.splitlines():
        m = re.match(r"# Samples: (\d+)", line)
        if m:
            total = int(m.group(1))
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(.*\S)\s*$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2)))
    return total, rows


def stackcollapse(text, mode="comm"):
    """stackcollapse-perf.pl's rules, written here from its description: per sample, the
    command name (with --pid "-PID", with --tid "-PID/TID"; spaces as '_'), then the frames
    outermost first (a frame's symbol without +offset, '[unknown]' kept), joined by ';', summed
    over identical lines."""
    out = collections.Counter()
    for block in text.split("\n\n"):
        lines = [l for l in block.split("\n") if l.strip() and not l.startswith("#")]
        if not lines:
            continue
        head = lines[0]
        m = re.match(r"^(.*?)\s+(?:(-?\d+)/)?(-?\d+)\s", head)
        comm = m.group(1).strip() if m else head.split()[0]
        pid, tid = (m.group(2) or m.group(3), m.group(3)) if m else ("?", "?")
        comm += {"comm": "", "pid": f"-{pid}", "tid": f"-{pid}/{tid}"}[mode]
        comm = comm.replace(" ", "_")
        frames = []
        for l in lines[1:]:
            fm = re.match(r"^\s*[0-9a-f]+ (.*?)(?: \((.*)\))?$", l)
            if not fm:
                continue  # a srcline or other extra line
            sym = re.sub(r"\+0x[0-9a-f]+$", "", fm.group(1))
            frames.append(sym)
        if frames:
            out[";".join([comm] + frames[::-1])] += 1
    return out


def folded(path, *extra):
    counts = collections.Counter()
    for l in run(cli, "convert", path, "--to", "folded", "-o", "-", *extra).splitlines():
        stack, _, n = l.rpartition(" ")
        counts[stack] += int(n)
    return counts


def compare(f, tmp, buildids):
    name = os.path.basename(f)
    ppk = os.path.join(tmp, name + ".ppk")
    run(cli, "symbolize", f, "-o", ppk, "--binary-path", data)
    ours = collections.Counter()
    ours_total = 0
    for line in run(cli, "top", ppk, "--tsv", "-n", "100000000").splitlines():
        self_, _, _, _, func, obj = line.split("\t")
        ours_total += int(self_)
        if os.path.basename(obj) in PROGRAMS and int(self_):
            ours[func] += int(self_)
    total, rows = perf_rows(buildids, f, "sym")
    check(total == ours_total, f"{name}: {ours_total} samples, perf report says {total}")
    theirs = collections.Counter()
    for n, sym in rows:
        m = re.match(r"\[\.\] (\S+)$", sym)
        if m and m.group(1) in ours:
            theirs[m.group(1)] += n
    check(len(ours) >= 2 and ours == theirs,
          f"{name}: self samples of {sorted(ours)}: {dict(ours)} vs perf {dict(theirs)}")
    # The same recording through its `perf script` text (names as perf prints them).
    txt = os.path.join(tmp, name + ".txt")
    with open(txt, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", "-i", f))
    script, script_total = collections.Counter(), 0
    for line in run(cli, "top", txt, "--tsv", "-n", "100000000").splitlines():
        self_, _, _, _, func, obj = line.split("\t")
        script_total += int(self_)
        if os.path.basename(obj) in PROGRAMS and int(self_):
            script[func] += int(self_)
    check(script == ours and script_total == ours_total,
          f"{name}: its perf script text gives the same self samples ({script_total} in all)")
    # Folded output: comm first, as stackcollapse-perf.pl's rules give on the same text.
    want, got = stackcollapse(open(txt).read()), folded(txt)
    check(want == got and len(want) >= 2,
          f"{name}: --to folded of its perf script text = stackcollapse-perf's rules, line for "
          f"line ({len(got)} lines; differ: {sorted(set(want.items()) ^ set(got.items()))[:3]})")
    # With pid and tid printed, --folded-process pid|tid as stackcollapse-perf's --pid/--tid.
    ptxt = os.path.join(tmp, name + ".pid.txt")
    with open(ptxt, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", "-F",
                      "comm,pid,tid,time,event,ip,sym,dso", "-i", f))
    for mode in ("pid", "tid"):
        want, got = stackcollapse(open(ptxt).read(), mode), folded(ptxt, "--folded-process", mode)
        check(want == got and len(want) >= 2,
              f"{name}: --folded-process {mode} = stackcollapse-perf --{mode} ({len(got)} lines; "
              f"differ: {sorted(set(want.items()) ^ set(got.items()))[:3]})")
    # -F +srcline adds a "file:line" line under each frame: the same figures.
    src = os.path.join(tmp, name + ".srcline.txt")
    with open(src, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", "-F", "+srcline", "-i", f))
    check(run(cli, "top", src, "--tsv", "-n", "100000000") ==
          run(cli, "top", txt, "--tsv", "-n", "100000000"),
          f"{name}: its perf script -F +srcline text gives the same top")
    # Per thread (perf's `pid` key is tid:comm) and DSO.
    threads = re.findall(r"^\s+(\d+): pid (\d+), thread (\d+)$", run(cli, "info", ppk), re.M)
    ours = collections.Counter()
    for index, _, tid in threads:
        for line in run(cli, "top", ppk, "--tsv", "-n", "100000000", "--thread",
                        index).splitlines():
            self_, _, _, _, _, obj = line.split("\t")
            if int(self_):
                ours[(int(tid), dso_name(obj))] += int(self_)
    _, rows = perf_rows(buildids, f, "pid,dso")
    theirs = collections.Counter()
    for n, key in rows:
        m = re.match(r"(\d+):.*?\s{2,}(\S+)$", key)
        if m:
            theirs[(int(m.group(1)), m.group(2))] += n
    check(len(threads) >= 1 and ours == theirs,
          f"{name}: samples per (tid, dso) of {len(threads)} threads equal perf's {len(theirs)} rows")


def main():
    if not shutil.which("perf"):
        print("perf not installed (linux-perf provides it)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        buildids = os.path.join(tmp, "buildids")
        for p in sorted(PROGRAMS):  # perf finds the committed binaries by build id
            run("perf", "--buildid-dir", buildids, "buildid-cache", "-a", os.path.join(data, p))
        files = sorted(os.path.join(data, f) for f in os.listdir(data) if f.endswith(".data"))
        if "--record" in sys.argv:
            out = os.path.join(tmp, "new.data")
            r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", out,
                                os.path.join(data, "threads")], capture_output=True, text=True)
            if r.returncode != 0:
                print("skip: perf record failed (perf_event_open denied?): " + r.stderr.strip())
                return 77
            files = [out]
        for f in files:
            compare(f, tmp, buildids)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
