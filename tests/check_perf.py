#!/usr/bin/env python3
"""Acceptance for perf.data input: after `profpack symbolize`, `profpack top --tsv` self samples
per function of the recorded programs equal `perf report --stdio --no-children -n --sort sym`,
samples per thread and DSO equal `--sort pid,dso`, and the total equals perf's sample count.
perf's output is parsed here, independently of profpack. With --record, a new recording of
tests/data/perf/threads is made and checked the same way (exit 77 where perf_event_open is
denied); without it the committed recordings are checked."""
import collections, decimal, glob, gzip, json, os, re, shutil, struct, subprocess, sys, tempfile

import protowire

cli = os.environ["PROFPACK_CLI"]
data = os.path.join(os.environ["PROFPACK_TEST_DATA"], "perf")
PROGRAMS = {"spin", "threads"}  # the committed binaries, built with frame pointers and -g
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    passed, failed = passed + bool(ok), failed + (not ok)


def run(*args, cwd=None):
    return subprocess.run(args, check=True, capture_output=True, text=True, cwd=cwd).stdout


def dso_name(obj):
    base = os.path.basename(obj)
    return "[kernel.kallsyms]" if base.startswith("[kernel.kallsyms]") else base


SYMFS = {}


def symfs(f):
    """perf finds a program by its build id; a recording without build ids (pipe mode) names
    it only by the path it ran at, gone since: perf is given a --symfs root where that path
    leads to the committed binary."""
    if f not in SYMFS:
        SYMFS[f] = []
        for line in run("perf", "buildid-list", "-i", f).splitlines():
            words = line.split()
            if len(words) == 1 and os.path.basename(words[0]) in PROGRAMS \
                    and not os.path.exists(words[0]):
                root = os.path.join(TMP, "symfs")
                link = root + words[0]
                os.makedirs(os.path.dirname(link), exist_ok=True)
                if not os.path.lexists(link):
                    os.symlink(os.path.abspath(os.path.join(data, os.path.basename(words[0]))), link)
                SYMFS[f] = ["--symfs", root]
    return SYMFS[f]


def perf_rows(buildids, f, sort):
    out = run("perf", "--buildid-dir", buildids, "report", *symfs(f), "-i", f, "--stdio", "--no-children",
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


def collapsed_frame(sym, dso):
    """A frame as stackcollapse-perf.pl writes it: its symbol without +offset; perf's
    "[unknown]" as its dso's file name in brackets ("[cc1plus]"), "[unknown]" without a dso."""
    sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
    if sym != "[unknown]":
        return sym
    return "[unknown]" if not dso or dso == "[unknown]" else f"[{dso.rsplit('/', 1)[-1]}]"


def stackcollapse(text, mode="comm", event=None):
    """stackcollapse-perf.pl's rules, written here from its description: per sample, the
    command name (with --pid "-PID", with --tid "-PID/TID"; spaces as '_'), then the frames
    outermost first (collapsed_frame), joined by ';', summed over identical lines. Its
    tidying of names is left out, as profpack leaves it out (docs/formats.md): it cuts a name
    at its first '(' (lambdas, operator(), function-pointer types), drops quotes, and skips
    frames whose name starts with '(' ("(anonymous namespace)::f")."""
    out = collections.Counter()
    for block in text.split("\n\n"):
        lines = [l for l in block.split("\n") if l.strip() and not l.startswith("#")]
        if not lines:
            continue
        head = lines[0]
        if event is not None and not head.rstrip().endswith(" " + event + ":"):
            continue  # --event-filter=EVENT
        m = re.match(r"^(.*?)\s+(?:(-?\d+)/)?(-?\d+)\s", head)
        comm = m.group(1).strip() if m else head.split()[0]
        pid, tid = (m.group(2) or m.group(3), m.group(3)) if m else ("?", "?")
        comm += {"comm": "", "pid": f"-{pid}", "tid": f"-{pid}/{tid}"}[mode]
        comm = comm.replace(" ", "_")
        frames = []
        for l in lines[1:]:
            # As stackcollapse-perf.pl reads a frame: the dso is the last " (...)" without
            # spaces, so a C++ name holding "bool (*)(int)" keeps it.
            fm = re.match(r"^\s*[0-9a-f]+ (.+) \((\S*)\)$", l) or \
                re.match(r"^\s*[0-9a-f]+ (.*)()$", l)
            if not fm:
                continue  # a srcline or other extra line
            frames.append(collapsed_frame(fm.group(1), fm.group(2)))
        if frames:
            out[";".join([comm] + frames[::-1])] += 1
    return out


def folded(path, *extra):
    counts = collections.Counter()
    for l in run(cli, "convert", path, "--to", "folded", "-o", "-", *extra).splitlines():
        stack, _, n = l.rpartition(" ")
        counts[stack] += int(n)
    return counts


def pprof_labels(pb):
    """The keys of every sample label of a .pb.gz (profile.proto: sample 2, its labels 3, a
    label's key 1 into the string table 6), decoded by tests/protowire.py."""
    msg = gzip.decompress(open(pb, "rb").read())
    top = list(protowire.fields(msg))
    strings = [v.decode() for f, _, v in top if f == 6]
    return {strings[k] for f, _, sample in top if f == 2
            for g, _, label in protowire.fields(sample) if g == 3
            for h, _, k in protowire.fields(label) if h == 1}


def compare_pprof(f, ppk, tmp, ours):
    """--to pprof, read by go tool pprof: each mapping carries the build id perf recorded for
    its path (perf buildid-list), as perf_data_converter writes them; the self samples of the
    programs' functions are those of top."""
    if not shutil.which("go"):
        print(f"note: go not installed: {os.path.basename(f)}'s pprof output not checked")
        return
    name = os.path.basename(f)
    pb = os.path.join(tmp, name + ".pb.gz")
    run(cli, "convert", ppk, "--to", "pprof", "-o", pb)
    env = dict(os.environ, HOME=tmp, PPROF_TMPDIR=tmp)
    raw = subprocess.run(["go", "tool", "pprof", "-raw", pb], capture_output=True, text=True,
                         check=True, env=env).stdout
    recorded = {}
    for line in run("perf", "buildid-list", "-i", f).splitlines():
        cols = line.split(None, 1)  # "BUILD_ID PATH", or the path alone where none is recorded
        if len(cols) == 2 and re.fullmatch(r"[0-9a-f]{40}", cols[0]):
            recorded[cols[1]] = cols[0]
    mappings = re.findall(r"^\d+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+) ([0-9a-f]{40})? ?\[",
                          raw.split("Mappings", 1)[1], re.M)
    # Every node: by default pprof drops those of less than 0.5 % of the samples.
    top = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0",
                          "-edgefraction=0", "-sample_index=0", pb], capture_output=True,
                         text=True, check=True, env=env).stdout
    theirs = collections.Counter()
    for line in top.splitlines():
        cols = line.split()
        if len(cols) == 6 and cols[0].isdigit() and cols[5] in ours:
            theirs[cols[5]] += int(cols[0])
    check(theirs == ours, f"{name}: go tool pprof -top of --to pprof = top's self samples "
          f"({dict(theirs)} vs {dict(ours)})")
    # Samples per thread: pprof's pid/tid/comm labels against perf script's fields.
    samples = []  # [count, {label: value}]
    for line in raw.split("Samples:", 1)[1].split("Locations", 1)[0].splitlines():
        m = re.match(r"\s+(\d+)\s+\d+:", line)
        if m:
            samples.append([int(m.group(1)), {}])
        elif samples and ":[" in line:
            samples[-1][1].update(re.findall(r"(\w+):\[([^\]]*)\]", line))
    per_thread = collections.Counter()
    for n, labels in samples:
        per_thread[(labels.get("pid"), labels.get("tid"), labels.get("comm"))] += n
    want = collections.Counter()
    for line in run("perf", "script", *symfs(f), "-i", f, "-F", "pid,tid,comm").splitlines():
        m = re.match(r"\s*(.*?)\s+(\d+)/(\d+)\s*$", line)
        if m:
            want[(m.group(2), m.group(3), m.group(1))] += 1
    check(per_thread == want and len(want) >= 1,
          f"{name}: pprof samples per pid/tid/comm label = perf script's per thread "
          f"({len(want)} threads; differ: {sorted(set(per_thread.items()) ^ set(want.items()))[:3]})")
    with_ids = [(path, bid) for path, bid in mappings if path in recorded]
    if not recorded:  # pipe mode: no build-id section
        check(not any(bid for _, bid in mappings),
              f"{name}: perf records no build ids here, and the pprof mappings claim none")
    else:
        check(with_ids and all(bid == recorded[path] for path, bid in with_ids),
              f"{name}: pprof mappings carry perf's build ids ({len(with_ids)} of "
              f"{len(mappings)} mappings: {with_ids[:2]})")


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
    compare_pprof(f, ppk, tmp, ours)
    # The same recording through its `perf script` text (names as perf prints them).
    txt = os.path.join(tmp, name + ".txt")
    with open(txt, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", *symfs(f), "-i", f))
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
        out.write(run("perf", "--buildid-dir", buildids, "script", *symfs(f), "-F",
                      "comm,pid,tid,time,event,ip,sym,dso", "-i", f))
    for mode in ("pid", "tid"):
        want, got = stackcollapse(open(ptxt).read(), mode), folded(ptxt, "--folded-process", mode)
        check(want == got and len(want) >= 2,
              f"{name}: --folded-process {mode} = stackcollapse-perf --{mode} ({len(got)} lines; "
              f"differ: {sorted(set(want.items()) ^ set(got.items()))[:3]})")
    # -F +srcline adds a "file:line" line under each frame: the same figures.
    src = os.path.join(tmp, name + ".srcline.txt")
    with open(src, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", *symfs(f), "-F", "+srcline", "-i", f))
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


KERNEL = "[kernel.kallsyms]"


def script_samples(text):
    """`perf script --ns -F comm,pid,tid,time,event,ip,sym,dso` text as samples: (pid, tid,
    time in ns, [(symbol, dso)] innermost first)."""
    out = []
    for block in text.split("\n\n"):
        lines = [l for l in block.split("\n") if l.strip() and not l.startswith("#")]
        if not lines:
            continue
        m = re.match(r"^.*?\s+(-?\d+)/(-?\d+)\s+(\d+)\.(\d{9}):", lines[0])
        if not m:
            raise ValueError("not a sample line: " + lines[0])
        frames = []
        for l in lines[1:]:
            fm = re.match(r"^\s*[0-9a-f]+ (.*?) \((.*)\)$", l)
            if fm:
                frames.append((fm.group(1), fm.group(2)))
        out.append((int(m.group(1)), int(m.group(2)), int(m.group(3)) * 10**9 + int(m.group(4)),
                    frames))
    return out


def trace_slices(path):
    """`profpack convert --to trace-event` as slices: per (pid, tid), (ts in ns, dur in ns,
    frame names outermost first), where the spans of one sample share ts and dur and come
    outermost first (viewers take the earlier of two equal spans for the outer)."""
    doc = json.loads(run(cli, "convert", path, "--to", "trace-event", "-o", "-"),
                     parse_float=decimal.Decimal)
    slices = collections.defaultdict(list)
    last = {}
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        key = (e["pid"], e["tid"])
        ts, dur = int(e["ts"] * 1000), int(e["dur"] * 1000)
        if last.get(key) == (ts, dur):
            slices[key][-1][2].append(e["name"])
        else:
            slices[key].append((ts, dur, [e["name"]]))
        last[key] = (ts, dur)
    return slices


def compare_timeline(f, tmp):
    """Item by item against the recording's perf script text (committed: its kernel frames named
    from this recording's kernel): per thread the samples' count, first and last time, and every
    sample's frames (names where perf names them from the programs or the kernel, else their
    number); kernel frames named from the committed kallsyms excerpt."""
    name = os.path.basename(f)
    ppk = os.path.join(tmp, name + ".timeline.ppk")
    run(cli, "symbolize", f, "-o", ppk, "--binary-path", data, "--kallsyms",
        os.path.join(data, "kallsyms.txt"))
    with gzip.open(f[:-len(".data")] + ".script.txt.gz", "rt") as z:
        samples = script_samples(z.read())
    origin = min(t for _, _, t, _ in samples)
    per = collections.defaultdict(list)
    for pid, tid, t, frames in samples:
        per[(pid, tid)].append((t - origin, frames))
    slices = trace_slices(ppk)
    counts_ok = set(per) == set(slices) and all(len(per[k]) == len(slices[k]) for k in per)
    check(counts_ok, f"{name}: trace-event slices per thread = perf script's samples "
          f"({ {k[1]: len(v) for k, v in slices.items()} } vs { {k[1]: len(v) for k, v in per.items()} })")
    if not counts_ok:
        return
    ends_ok = all(slices[k][0][0] == per[k][0][0] and slices[k][-1][0] == per[k][-1][0]
                  for k in per)
    gaps_ok = all(a[0] + a[1] == b[0] for v in slices.values() for a, b in zip(v, v[1:]))
    check(ends_ok and gaps_ok, f"{name}: each thread's first and last slice at perf script's "
          "times, each slice lasting to the thread's next sample")
    # Kernel frames (innermost) one for one; user frames: the programs' in order, where our
    # stack may hold more (the functions inlined there, which perf script leaves out).
    bad, kernel, bad_kernel = [], 0, []
    for k in per:
        for (t, frames), (ts, _, names) in zip(per[k], slices[k]):
            inner = names[::-1]
            kern = [sym for sym, dso in frames if dso == KERNEL]
            user = [(sym, dso) for sym, dso in frames if dso != KERNEL]
            kernel += len(kern)
            if inner[:len(kern)] != kern:
                bad_kernel.append((kern, inner[:len(kern)]))
            rest, ok = iter(inner[len(kern):]), len(inner) - len(kern) >= len(user)
            for sym, dso in user:
                if os.path.basename(dso) in PROGRAMS:
                    ok &= any(n == sym for n in rest)
            if not ok or ts != t:
                bad.append((k, t, frames, names))
    check(not bad, f"{name}: every slice's frames are its sample's stack "
          f"({sum(map(len, per.values()))} samples; first differing: {bad[:1]})")
    check(not bad_kernel and kernel > 0,
          f"{name}: {kernel} kernel frames named from kallsyms.txt as perf script names them "
          f"(differ: {bad_kernel[:2]})")


def compare_table_names(f, tmp):
    """--symbol-tables-only names as perf script does: per sample the same frames, one for one
    (no inline frames), named as perf names them from the recorded programs and the libraries
    of this machine where they are the recorded ones, kernel frames from kallsyms.txt. Naming
    with DWARF adds the inline frames: counted, to show the check can tell the two apart."""
    name = os.path.basename(f)
    with gzip.open(f[:-len(".data")] + ".script.txt.gz", "rt") as z:
        text = z.read()
    samples = script_samples(text)
    ips = [[int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+) .*? \(.*\)$", b, re.M)]
           for b in text.split("\n\n") if any(l.strip() and not l.startswith("#")
                                               for l in b.split("\n"))]
    comms = [re.match(r"^(.*?)\s+(?:(-?\d+)/)?(-?\d+)\s", b.lstrip("\n")).group(1).strip()
             for b in text.split("\n\n") if any(l.strip() and not l.startswith("#")
                                                for l in b.split("\n"))]
    per, comm_of = collections.defaultdict(list), collections.defaultdict(list)
    for (pid, tid, _, frames), at, comm in zip(samples, ips, comms):
        per[(pid, tid)].append(list(zip(frames, at)))
        comm_of[(pid, tid)].append(comm.replace(" ", "_"))
    here, starts = {}, {}  # a library perf named: whether this machine's copy is the recorded one
    for line in run("perf", "buildid-list", "-i", f).splitlines():
        cols = line.split(None, 1)
        if len(cols) == 2 and cols[1].startswith("/usr/lib") and os.path.exists(cols[1]):
            here[cols[1]] = f"Build ID: {cols[0]}" in run("readelf", "-n", cols[1])
            debug = f"/usr/lib/debug/.build-id/{cols[0][:2]}/{cols[0][2:]}.debug"
            elf = debug if os.path.exists(debug) else cols[1]
            starts[cols[1]] = {(sym, int(a, 16)) for a, sym in re.findall(
                r"^\s*\d+: ([0-9a-f]+)\s+\d+ \w+\s+\w+\s+\w+\s+\w+ (\S+)$",
                run("readelf", "-sW", elf), re.M)}
    counts = {}
    for mode in ("tables", "dwarf"):
        ppk = os.path.join(tmp, f"{name}.{mode}.ppk")
        extra = ["--symbol-tables-only"] if mode == "tables" else []
        run(cli, "symbolize", f, "-o", ppk, "--binary-path", data, "--kallsyms",
            os.path.join(data, "kallsyms.txt"), *extra)
        slices = trace_slices(ppk)
        bad, same, named = [], 0, 0
        want = collections.Counter()  # the folded lines stackcollapse-perf makes of perf's names
        for k in per:
            for frames, (_, _, names), comm in zip(per[k], slices.get(k, []), comm_of[k]):
                inner = names[::-1]
                if len(inner) != len(frames):
                    bad.append((frames, inner))
                    continue
                same += 1
                line = []
                for i, (((sym, dso), ip), ours) in enumerate(zip(frames, inner)):
                    # Where perf's name is not compared, profpack's (an address: no symbol).
                    line.append(collapsed_frame("[unknown]" if ours.startswith("0x") else ours,
                                                dso))
                    if sym == "[unknown]":
                        line[-1] = collapsed_frame(sym, dso)
                        continue
                    if dso == KERNEL or os.path.basename(dso) in PROGRAMS or here.get(dso):
                        named += 1
                        # perf names a caller's frame by its return address; profpack by the
                        # call before it (the address less one). They differ where the call
                        # is a function's last instruction (_start calling a function that
                        # does not return): perf then names the next symbol, at the address.
                        if ours != sym and not (i > 0 and (sym, ip) in starts.get(dso, ())):
                            bad.append((sym, dso, ours))
                        elif ours == sym:
                            line[-1] = collapsed_frame(sym, dso)
                want[";".join([comm] + line[::-1])] += 1
        counts[mode] = (same, named, bad)
        if mode == "tables":
            # perf.data to folded stacks: stackcollapse-perf's lines of its perf script text,
            # frames perf prints as [unknown] ("[dso]") included.
            got = folded(ppk)
            unknown = sum(n for l, n in want.items() if "[" in l.split(";", 1)[-1])
            check(got == want and len(want) >= 2,
                  f"{name}: --to folded = stackcollapse-perf's lines of its perf script text "
                  f"({len(got)} lines, {unknown} samples with a frame no symbol names; differ: "
                  f"{sorted(set(want.items()) ^ set(got.items()))[:2]})")
    same, named, bad = counts["tables"]
    check(not bad and same == len(samples) and named > 0,
          f"{name}: --symbol-tables-only: each of {len(samples)} samples has perf script's frames, "
          f"{named} named as perf names them (first differing: {bad[:1]})")
    if counts["dwarf"][2]:
        print(f"note: {name}: with DWARF {len(counts['dwarf'][2])} frames or samples differ "
              "from perf script's (inline frames, DWARF names)")


def running_kernel_build_id():
    try:
        d = open("/sys/kernel/notes", "rb").read()
    except OSError:
        return None
    i = 0
    while i + 12 <= len(d):
        n, s, t = struct.unpack_from("<III", d, i)
        o = i + 12 + ((n + 3) & ~3)
        if t == 3 and d[i + 12:i + 12 + n] == b"GNU\0":
            return d[o:o + s].hex()
        i = o + ((s + 3) & ~3)
    return None


def compare_running_kernel(f, tmp):
    """Without --kallsyms: /proc/kallsyms names kernel frames only where the running kernel is
    the recorded one (its build id); else a warning says why and kernel frames keep addresses."""
    name = os.path.basename(f)
    recorded = re.search(r"^([0-9a-f]+) \[kernel\.kallsyms\]$",
                         run("perf", "buildid-list", "-i", f), re.M)
    if not recorded:
        return
    out = os.path.join(tmp, name + ".running.ppk")
    # An empty HOME: no build-id cache copy of the table (compare_cached_kallsyms has one).
    home = os.path.join(tmp, "empty-home")
    os.makedirs(home, exist_ok=True)
    r = subprocess.run([cli, "symbolize", f, "-o", out, "--binary-path", data],
                       capture_output=True, text=True, check=True, env=dict(os.environ, HOME=home))
    names = lambda p: sorted(l.split("\t")[4] for l in
                             run(cli, "top", p, "--tsv", "-n", "100000000").splitlines()
                             if KERNEL in l.split("\t")[5])
    excerpt = os.path.join(tmp, name + ".excerpt.ppk")
    run(cli, "symbolize", f, "-o", excerpt, "--binary-path", data, "--kallsyms",
        os.path.join(data, "kallsyms.txt"))
    compare_cached_kallsyms(f, tmp, recorded.group(1), names(excerpt), names)
    if running_kernel_build_id() == recorded.group(1) and os.access("/proc/kallsyms", os.R_OK):
        check(names(out) == names(excerpt) and "not the recorded kernel" not in r.stderr,
              f"{name}: the running kernel is the recorded one: /proc/kallsyms names its "
              f"{len(names(out))} kernel functions as the excerpt does")
    else:
        check("not the recorded kernel" in r.stderr and all(n.startswith("0x") for n in names(out)),
              f"{name}: another kernel runs: /proc/kallsyms not taken, with a warning")


def compare_cached_kallsyms(f, tmp, build_id, want, names):
    """The recorded kernel's table in perf's build-id cache (.build-id/xx/rest/kallsyms, as
    perf record keeps it and perf archive packs it) names kernel frames without --kallsyms,
    whichever kernel runs: from $HOME/.debug, and from a --binary-path directory."""
    name = os.path.basename(f)
    for where in ("home", "binary-path"):
        root = os.path.join(tmp, "cached-" + where)
        cache = os.path.join(root, ".debug" if where == "home" else "", ".build-id",
                             build_id[:2], build_id[2:])
        os.makedirs(cache, exist_ok=True)
        # Names marked, so that they cannot come from /proc/kallsyms (or the excerpt) instead.
        with open(os.path.join(data, "kallsyms.txt")) as src, \
                open(os.path.join(cache, "kallsyms"), "w") as dst:
            for line in src:  # "ADDRESS TYPE NAME[\tMODULE]"
                head, sep, module = line.rstrip("\n").partition("\t")
                dst.write(head + "_cached" + sep + module + "\n")
        out = os.path.join(tmp, name + ".cached.ppk")
        home = root if where == "home" else os.path.join(tmp, "empty-home")
        args = ["--binary-path", data] + (["--binary-path", root] if where != "home" else [])
        r = subprocess.run([cli, "symbolize", f, "-o", out, *args], capture_output=True,
                           text=True, check=True, env=dict(os.environ, HOME=home))
        got, marked = names(out), sorted(n + "_cached" for n in want)
        check(got == marked and "kallsyms" not in r.stderr,
              f"{name}: the build-id cache's kallsyms ({where}) names the {len(want)} kernel "
              f"functions the excerpt names" + ("" if got == marked else f" (got {got[:4]})"))
        shutil.rmtree(root)


def compare_cut_kallsyms(tmp):
    """A kallsyms table cut short (the first 50 symbols of the excerpt) names the kernel frames
    it covers as the whole excerpt does and leaves the others as addresses: an address past its
    last symbol may belong to a symbol that was cut off."""
    with open(os.path.join(data, "kallsyms.txt")) as whole:
        lines = whole.readlines()
    cut = os.path.join(tmp, "kallsyms.cut.txt")
    with open(cut, "w") as out:
        out.writelines(lines[:50])
    def kernel_self(table):
        ppk = os.path.join(tmp, "cut.ppk")
        run(cli, "symbolize", os.path.join(data, "spin.data"), "-o", ppk, "--binary-path", data,
            "--kallsyms", table)
        rows = [l.split("\t") for l in run(cli, "top", ppk, "--tsv", "-n", "100000000").splitlines()]
        return {r[4]: int(r[0]) for r in rows if KERNEL in r[5] and not r[4].startswith("0x")}
    whole, part = kernel_self(os.path.join(data, "kallsyms.txt")), kernel_self(cut)
    check(part and len(part) < len(whole) and all(whole.get(n) == v for n, v in part.items()),
          f"spin.data: a cut kallsyms names {len(part)} of {len(whole)} kernel functions, each "
          f"as the whole excerpt does ({sorted(set(part.items()) - set(whole.items()))})")


def compare_children(f, tmp, buildids):
    """Inclusive samples per function of the programs (and, with the committed kallsyms
    excerpt, of the kernel where perf names kernel functions: the recorded kernel runs) equal
    `perf report --children -n --sort dso,sym` (its Children percentage of the sample count)."""
    name = os.path.basename(f)
    ppk = os.path.join(tmp, name + ".children.ppk")
    run(cli, "symbolize", f, "-o", ppk, "--binary-path", data, "--kallsyms",
        os.path.join(data, "kallsyms.txt"))
    out = run("perf", "--buildid-dir", buildids, "report", *symfs(f), "-i", f, "--stdio", "--children",
              "-n", "-g", "none", "--sort", "dso,sym")
    if not re.search(r"^# Children", out, re.M):
        print(f"note {name}: perf report shows no children for it (pipe mode): not compared")
        return
    total = int(re.search(r"# Samples: (\d+)", out).group(1))
    theirs = collections.Counter()
    kernel_named = False
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+[\d.]+%\s+\d+\s+(\S+)\s+\[([.k])\] (.*\S)\s*$", line)
        if not m:
            continue
        dso, sym = m.group(2), m.group(4)
        kernel_named |= dso == KERNEL and not sym.startswith("0x")
        if dso in PROGRAMS or (dso == KERNEL and not re.match(r"0x[0-9a-f]+$", sym)):
            theirs[(dso, sym)] += round(decimal.Decimal(m.group(1)) * total / 100)
    ours = collections.Counter()
    for line in run(cli, "top", ppk, "--tsv", "-n", "100000000").splitlines():
        _, incl, _, _, func, obj = line.split("\t")
        dso = dso_name(obj)
        if int(incl) and (dso in PROGRAMS or (dso == KERNEL and kernel_named)):
            ours[(dso, func)] += int(incl)
    assert total < 10000, "percentages with 2 decimals name a count exactly below 10,000 samples"
    check(len(ours) >= 2 and ours == theirs,
          f"{name}: inclusive samples of {len(ours)} functions = perf report --children "
          f"(differ: {sorted(set(ours.items()) ^ set(theirs.items()))[:4]})")


def compare_buildid_cache(tmp):
    """A binary found by its build id in perf's build-id cache ($HOME/.debug), the recorded
    path missing: the same names as from the binary named directly."""
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home)
    env.pop("PROFPACK_BINARY_PATH", None)
    subprocess.run(["perf", "buildid-cache", "-a", os.path.join(data, "threads")], env=env,
                   check=True, capture_output=True)
    copy = os.path.join(tmp, "copied", "threads.data")
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    shutil.copy(os.path.join(data, "threads.data"), copy)
    # Where the binary was recorded, as the file names it (perf buildid-list: "BUILD_ID PATH").
    recorded = next(l.split(None, 1)[1] for l in
                    run("perf", "buildid-list", "-i", copy).splitlines()
                    if l.endswith("/threads"))
    def names(*args, environ=None):
        ppk = os.path.join(tmp, "cache.ppk")
        subprocess.run([cli, "symbolize", copy, "-o", ppk, *args], env=environ, check=True,
                       capture_output=True)
        rows = run(cli, "top", ppk, "--tsv", "-n", "100000000").splitlines()
        return sorted((l.split("\t")[4], l.split("\t")[0]) for l in rows
                      if os.path.basename(l.split("\t")[5]) == "threads")
    cached, direct = names(environ=env), names("--binary-path", data)
    check(not os.path.exists(recorded) and cached == direct and
          any(n == "work_a" for n, _ in cached),
          f"threads.data: names from perf's build-id cache = from the binary ({cached[:3]}...)")


def self_of(top_tsv, program):
    """Self samples per function of one program's DSO, from `top --tsv`."""
    out = collections.Counter()
    for line in top_tsv.splitlines():
        self_, _, _, _, func, obj = line.split("\t")
        if os.path.basename(obj) == program and int(self_):
            out[func] += int(self_)
    return out


def perf_self_of(buildids, f, program):
    """The same from `perf report --no-children -n --sort dso,sym`."""
    _, rows = perf_rows(buildids, f, "dso,sym")
    out = collections.Counter()
    for n, row in rows:
        m = re.match(re.escape(program) + r"\s+\[\.\] (.*)$", row)
        if m:
            out[m.group(1)] += n
    return out


def plt_as_one(counts):
    """Self samples per function with those of the PLT ("x@plt", or perf 6.1's "_init") as one
    "@plt" row."""
    out = collections.Counter()
    for func, n in counts.items():
        out["@plt" if func.endswith("@plt") or func == "_init" else func] += n
    return out


def plt_lines(lines):
    """Folded lines with each PLT frame ("x@plt", perf 6.1's "_init") as "@plt", summed."""
    out = collections.Counter()
    for line, n in lines.items():
        out[";".join("@plt" if f.endswith("@plt") or f == "_init" else f
                     for f in line.split(";"))] += n
    return dict(out)


def compare_cxx(tmp, buildids):
    """A C++ program (cxx.cpp, built here), named from its symbol table: perf names its
    functions without parameters or return type ("(anonymous namespace)::spin",
    "twice<double>", "Cost::operator<") and its PLT entry for rand "rand@plt", and so must `top` (self samples per function, as perf
    report counts them) and the folded stacks (stackcollapse-perf's lines of the perf script
    text, for the samples under main: perf names the process's first frames by return
    addresses that end a function, profpack by the call before them)."""
    if not shutil.which("g++"):
        print("note: g++ not installed: the C++ recording is not made")
        return
    exe = os.path.join(tmp, "cxx")
    run("g++", "-O1", "-g", "-fno-omit-frame-pointer", "-o", exe, os.path.join(data, "cxx.cpp"))
    f = os.path.join(tmp, "cxx.data")
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-g", "-o", f, exe)
    PROGRAMS.add("cxx")
    ours = self_of(run(cli, "top", f, "--symbol-tables-only", "--tsv", "-n", "100000000"), "cxx")
    named_plt = collections.Counter({k: v for k, v in ours.items() if k.endswith("@plt")})
    theirs = perf_self_of(buildids, f, "cxx")
    # perf 6.1 names the program's PLT entries "_init": its _init has no size, perf stretches it
    # to the next symbol, over .plt, before adding the entries' own symbols (later perf cuts
    # it at .plt, as profpack does not need to). _init itself runs once, at start.
    theirs, ours = plt_as_one(theirs), plt_as_one(ours)
    check(ours == theirs and "(anonymous namespace)::spin" in ours and "twice<double>" in ours
          and "@plt" in ours and named_plt["rand@plt"] > 0,
          f"cxx: self samples per function named as perf report names them: {dict(ours)} vs "
          f"perf {dict(theirs)}")
    txt = os.path.join(tmp, "cxx.txt")
    with open(txt, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", "-i", f))
    want = plt_lines({l: n for l, n in stackcollapse(open(txt).read()).items() if ";main;" in l})
    got = plt_lines({l: n for l, n in folded(f, "--symbol-tables-only").items() if ";main;" in l})
    check(want == got and any("Cost::operator<" in l for l in got),
          f"cxx: --to folded under main = stackcollapse-perf's lines of its perf script text "
          f"({len(got)} lines; differ: {sorted(set(want.items()) ^ set(got.items()))[:2]})")


def build_and_record(tmp, buildids, compiler, name, *sources):
    """Builds `sources` (in tests/data/perf) with `compiler` -O2 -g and frame pointers into
    tmp/name and records it (cpu-clock): the recording's path, or None where the compiler is
    not installed."""
    if not shutil.which(compiler):
        print(f"note: {compiler} not installed: the {name} recording is not made")
        return None
    exe = os.path.join(tmp, name)
    run(compiler, "-O2", "-g", "-fno-omit-frame-pointer", "-o", exe,
        *[os.path.join(data, s) for s in sources])
    f = os.path.join(tmp, name + ".data")
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-g", "-o", f, exe)
    return f


def compare_same_name(tmp, buildids):
    """Functions of one name in one program (same-name-a.cpp, same-name-b.cpp, built here): two
    static `work`s in two files, and two lambdas inlined into a template, whose call operators
    DWARF names `operator()` alike. perf counts each as its own function (by the symbol's
    address), and so must `top`: named from the symbol tables, its rows equal perf report's;
    named from DWARF, `work` is two rows with perf's two counts, each with its own file, and the
    inlined lambdas are two `operator()` rows whose self samples are those of the folded stacks
    under each `call<main::{lambda(long)#N}>`; with that function's own, perf's count for it."""
    f = build_and_record(tmp, buildids, "g++", "same-name", "same-name-a.cpp", "same-name-b.cpp")
    if not f:
        return
    _, rows = perf_rows(buildids, f, "dso,sym")
    theirs = sorted((m.group(1), n) for n, row in rows
                    for m in [re.match(r"same-name\s+\[\.\] (.*)$", row)] if m)

    def rows_of(*extra):
        out = []
        for line in run(cli, "top", f, "--tsv", "-n", "100000000", *extra).splitlines():
            self_, _, _, file, func, obj = line.split("\t")
            if os.path.basename(obj) == "same-name" and int(self_):
                out.append((func, int(self_), os.path.basename(file)))
        return out

    tables = sorted((func, n) for func, n, _ in rows_of("--symbol-tables-only"))
    check(tables == theirs and [func for func, _ in tables].count("work") == 2,
          f"same-name: named from the symbol tables, self samples per function as perf report "
          f"counts them: {tables} vs perf {theirs}")
    dwarf = rows_of()
    works = sorted((n, file) for func, n, file in dwarf if func == "work")
    check(sorted(n for n, _ in works) == sorted(n for func, n in theirs if func == "work") and
          sorted(file for _, file in works) == ["same-name-a.cpp", "same-name-b.cpp"],
          f"same-name: named from DWARF, the two static `work`s are two rows with perf's counts "
          f"and their own files: {works} vs perf {theirs}")
    lines = folded(f)
    operators = sorted(n for func, n, _ in dwarf if func == "operator()")
    under = {}
    for k in (1, 2):
        caller = f"call<main::{{lambda(long)#{k}}}>"
        inlined = sum(n for l, n in lines.items() if l.endswith(";" + caller + ";operator()"))
        own = sum(n for l, n in lines.items() if l.endswith(";" + caller))
        under[k] = inlined
        perf_count = sum(n for func, n in theirs if func == caller)
        check(inlined + own == perf_count and inlined > 0,
              f"same-name: lambda {k}: {own} samples in {caller} and {inlined} in its inlined "
              f"operator(), perf counts {perf_count} in {caller}")
    check(operators == sorted(under.values()),
          f"same-name: the two inlined lambdas are two `operator()` rows: {operators}, "
          f"the folded stacks under each call<>: {under}")


def compare_same_line(tmp, buildids):
    """Two static `step`s declared on the same line (6) of two files (same-line-a.c,
    same-line-b.c, built here), each inlined into its file's run: DWARF tells them apart only
    by the file they are declared in. `calls step` must find two functions, each with its own
    file and called by its own file's run alone (they were one, same-line-a.c:step, whose
    callers were runA and runB)."""
    f = build_and_record(tmp, buildids, "gcc", "same-line", "same-line-a.c", "same-line-b.c")
    if not f:
        return
    matches = json.loads(run(cli, "calls", f, "step", "--json"))["matches"]
    got = sorted((os.path.basename(m["file"]),
                  sorted(c["name"] for c in m["callers"] if c["inclusive"]))
                 for m in matches if m["self"])
    check(got == [("same-line-a.c", ["runA"]), ("same-line-b.c", ["runB"])],
          f"same-line: two static `step`s declared on line 6 of two files are two functions, "
          f"each called by its own file's run: {got}")


def compare_inlined_and_called(tmp, buildids):
    """A static `step` both inlined into runA and called out of line from runB
    (inlined-and-called.c, built here) is one function: one `step` row of `top`, whose self
    samples are perf's count for the symbol step plus the folded stacks' under runA;step (its
    inlined copies). The symbol's frames were keyed by its address and the inlined ones by
    DWARF's declaration: two rows `inlined-and-called.c:step`, where pprof shows one."""
    f = build_and_record(tmp, buildids, "gcc", "inlined-and-called", "inlined-and-called.c")
    if not f:
        return
    rows = [line.split("\t") for line in run(cli, "top", f, "--tsv", "-n", "100000000").splitlines()]
    steps = [int(r[0]) for r in rows if r[4] == "step" and os.path.basename(r[5]) == "inlined-and-called"]
    _, perf = perf_rows(buildids, f, "dso,sym")
    symbol = sum(n for n, row in perf if re.match(r"inlined-and-called\s+\[\.\] step$", row))
    inlined = sum(n for l, n in folded(f).items() if l.endswith(";runA;step"))
    check(len(steps) == 1 and symbol > 0 and inlined > 0 and steps[0] == symbol + inlined,
          f"inlined-and-called: step is one row of top: {steps}, perf's count for the symbol "
          f"{symbol} and the inlined copies' {inlined}")


def compare_two_events(tmp, buildids):
    """A recording of two events (-e cpu-clock,page-faults): --to folded counts the samples of
    the first, as stackcollapse-perf.pl counts one event's (its --event-filter, by default the
    first it meets): its lines equal stackcollapse's of the perf script text's cpu-clock
    samples. They were every event's samples added up (`samples`), page faults and clock ticks
    on one line."""
    exe = os.path.join(tmp, "two-events")
    run("gcc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", exe,
        os.path.join(data, "two-events.c"))
    f = os.path.join(tmp, "two-events.data")
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock,page-faults", "-g",
        "-o", f, exe)
    text = run("perf", "--buildid-dir", buildids, "script", "-i", f)
    # The lines under main, as compare_cxx compares them (the first frames of a process differ).
    def under_main(lines):
        return {l: n for l, n in lines.items() if ";main;" in l}
    want = under_main(stackcollapse(text, event="cpu-clock"))
    faults = under_main(stackcollapse(text, event="page-faults"))
    got = under_main(folded(f, "--symbol-tables-only"))
    check(want == got and sum(faults.values()) > 0,
          f"two events: --to folded = stackcollapse-perf's lines of the cpu-clock samples "
          f"({sum(got.values())} samples vs {sum(want.values())}; page-faults "
          f"{sum(faults.values())}; differ: {sorted(set(want.items()) ^ set(got.items()))[:2]})")


SCRIPT_VARIANTS = ["-tid", "-time", "-event", "-period", "+pid", "-comm", "-tid,-time",
                   "-time,-event", "-tid,-time,-event", "-comm,-time",
                   "comm,tid,ip,sym,dso", "comm,ip,sym,dso", "+srcline"]


def compare_script_variants(f, tmp, buildids):
    """perf script text with fields left out or added (-F): each gives the default text's self
    samples per function, its summed period where the period is printed, its threads where
    the tid is (else one per comm), and its events where the event is."""
    name = os.path.basename(f)
    txt = os.path.join(tmp, name + ".variant.txt")

    def read(*fields):
        with open(txt, "w") as out:
            out.write(run("perf", "--buildid-dir", buildids, "script", *symfs(f), "-i", f, *fields))
        info = json.loads(run(cli, "info", txt, "--json"))
        top = run(cli, "top", txt, "--tsv", "-n", "100000000")
        # Thread ids: the pid is the tid's unless -F prints the pid (+pid: the real one).
        threads = sorted(t["thread_id"] for t in info["threads"])
        return {e["name"]: e["total"] for e in info["events"]}, threads, top

    events, threads, top = read()
    for v in SCRIPT_VARIANTS:
        ev, th, tp = read("-F", v)
        fields = set(v.replace("+", "").split(",")) if not v.startswith(("-", "+")) else None
        def has(field):
            return ("-" + field) not in v.split(",") if fields is None else field in fields
        want_ev = dict(events) if has("event") else {"samples": events["samples"],
                                                     "cpu-clock": sum(events.values()) - events["samples"]}
        if not has("period"):
            want_ev = {k: (events["samples"] if k != "samples" else n) for k, n in want_ev.items()}
        want_th = threads if has("tid") else [-1]  # perf's unknown thread, shown as perf does
        check(tp == top and ev == want_ev and th == want_th,
              f"{name}: perf script -F {v}: top, events and threads as the default text's "
              f"(events {ev} vs {want_ev}; {len(th)} threads vs {len(want_th)})")


# Sample lines perf script prints, comms with spaces, digits, colons and brackets among them:
# (line, pid, tid, event, summed period). perf's unknown thread is -1, as perf prints it.
SCRIPT_LINES = [
    ("[pango] fontcon   4242/4243  [001] 12345.678901:     250000 cpu-clock:", 4242, 4243,
     "cpu-clock", 250000),
    ("foo: 12345 12345.678901:     250000 cycles:", 12345, 12345, "cycles", 250000),
    ("Worker 3   12345 cycles:ppp:", 12345, 12345, "cycles:ppp", 1),
    ("Worker 3 12345.678901:     250000 sched:sched_switch:", -1, -1, "sched:sched_switch",
     250000),
    ("perf 12345678901 cycles:", -1, -1, "cycles", 12345678901),
    ("    8167     250000 cpu-clock:u:", 8167, 8167, "cpu-clock:u", 250000),
    ("12345.678901:     250000 cycles:", -1, -1, "cycles", 250000),
    ("swapper     0 [000] 12345.678901:     250000 cpu-clock:", 0, 0, "cpu-clock", 250000),
    # A tracepoint's own text after the event, without the time (-F -time).
    ("perf  1234 syscalls:sys_enter_openat: dfd: 0xffffff9c, filename: 0x7ffd1234, mode: 0x0",
     1234, 1234, "syscalls:sys_enter_openat", 1),
    ("kworker/u16:2  1234 block:block_rq_complete: 259,0 W () 1234 + 8 [0]", 1234, 1234,
     "block:block_rq_complete", 1),
    # Between the tid and the time: -F +misc, +tod, and -L's cpu.
    ("perf  1234 U       100.123456:       1000 cycles:", 1234, 1234, "cycles", 1000),
    ("perf  1234 2024-01-02 10:11:12.123456   100.123456:       1000 cycles:", 1234, 1234,
     "cycles", 1000),
    ("    perf  1234   3   100.123456:       1000 cycles:", 1234, 1234, "cycles", 1000),
]


def compare_script_lines(tmp):
    """Each sample line of SCRIPT_LINES, with one frame, read as its pid, tid, event and
    period."""
    txt = os.path.join(tmp, "lines.txt")
    frame = "\t          1462a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
    for line, pid, tid, event, period in SCRIPT_LINES:
        with open(txt, "w") as out:
            out.write(line + "\n" + frame + "\n")
        info = json.loads(run(cli, "info", txt, "--json"))
        got = ([(t["pid"], t["thread_id"]) for t in info["threads"]],
               {e["name"]: e["total"] for e in info["events"]})
        want = ([(pid, tid)], {"samples": 1, event: period})
        check(got == want, f"perf script line {line!r}: {got} (want {want})")
        if pid != -1:
            continue
        # An unknown thread: -1 where ids are printed, no pid or tid label in pprof (a number
        # there would be taken for a process).
        folded = run(cli, "convert", txt, "--to", "folded", "--folded-process", "tid", "-o", "-")
        pb = os.path.join(tmp, "lines.pb.gz")
        run(cli, "convert", txt, "--to", "pprof", "-o", pb)
        labels = pprof_labels(pb)
        process = folded.split(";")[0] if ";" in folded else ""  # none without a comm
        # Callgrind's pid:/thread: header lines say -1, and read back as the unknown thread.
        cg = os.path.join(tmp, "lines.callgrind")
        run(cli, "convert", txt, "--to", "callgrind", "-o", cg)
        back = [(t["pid"], t["thread_id"]) for t in json.loads(run(cli, "info", cg, "--json"))["threads"]]
        check(back == [(-1, -1)], f"perf script line {line!r}: -1 through Callgrind: {back}")
        check((not process or process.endswith("--1/-1")) and not {"pid", "tid"} & set(labels),
              f"perf script line {line!r}: unknown thread as -1 in folded ({folded.strip()!r}), "
              f"no pid/tid labels in pprof ({sorted(labels)})")


def compare_script_without_tids(tmp):
    """-F -tid prints no tid on any line: where a comm ends in a number ("worker 12345"), a
    line that plainly has no tid ("bash [000]") says the number is the comm's; a line perf
    writes among the samples, with no cpu, time or event, says nothing."""
    txt = os.path.join(tmp, "without-tids.txt")
    frame = "\t          1462a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
    with open(txt, "w") as out:
        for comm in ("bash", "sh", "make", "worker 12345", "w 1234567"):
            out.write(f"{comm} [000] 1.5:     250000 cpu-clock:\n{frame}\n")
    info = json.loads(run(cli, "info", txt, "--json"))
    lines = folded(txt)
    # A line perf wrote among the samples (here after the first) says nothing of the fields:
    # the threads of a text with tids keep them.
    with gzip.open(os.path.join(data, "threads.script.txt.gz"), "rt") as z:
        text = z.read()
    first = text.index("\n\n") + 2
    stray = os.path.join(tmp, "stray.txt")
    with open(stray, "w") as out:
        out.write(text[:first] + "Failed to open /tmp/perf-1234.map, continuing without symbols\n\n" +
                  text[first:])
    ids = lambda path: sorted({t["thread_id"] for t in
                               json.loads(run(cli, "info", path, "--json"))["threads"]} - {-1})
    plain = os.path.join(tmp, "plain.txt")
    with open(plain, "w") as out:
        out.write(text)
    check(ids(stray) == ids(plain) and len(ids(plain)) >= 3,
          f"a stray line among the samples leaves the tids: {ids(stray)} vs {ids(plain)}")
    check([t["thread_id"] for t in info["threads"]] == [-1] * 5 and
          sorted(l.split(";")[0] for l in lines) == ["bash", "make", "sh", "w_1234567",
                                                     "worker_12345"],
          f"-F -tid text, comms ending in numbers: {dict(lines)}, threads {info['threads']}")


# A sample perf script prints for --call-graph dwarf: inlined functions with "(inlined)" in
# place of their dso, each before the frame of the function it is inlined into, at its address.
DWARF_SAMPLE = """tmpl  5429 41480.227398:     250000 cpu-clock: 
\t           1462a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
\t           161ee dl_init_cacheinfo+0xb5e (inlined)
\t           161ee init_cpu_features+0xb5e (inlined)
\t           1a303 dl_platform_init+0x33 (inlined)
\t           1a303 _dl_sysdep_start+0x33 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
\t           1ab77 _start+0x7 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)

"""


# The same with -F +srcline: an inlined frame has no dso, and "(inlined)" follows its line.
DWARF_SAMPLE_SRCLINE = """inl  6844 44373.069920:     250000 cpu-clock:ppp: 
\t            11d4 inner+0x44
  inl.c:2 (inlined)
\t            11d4 outer+0x44 (/tmp/inl)
  inl.c:9
\t            1234 main+0x14 (/tmp/inl)
  inl.c:20

"""


def compare_script_inlined(tmp):
    """perf script's inlined frames: kept as frames (stackcollapse-perf keeps them), each in
    the dso of the frame at its address that follows it, none in a dso called "inlined"."""
    txt = os.path.join(tmp, "inlined.txt")
    with open(txt, "w") as out:
        out.write(DWARF_SAMPLE)
    objects = {l.split("\t")[4]: l.split("\t")[5]
               for l in run(cli, "top", txt, "--tsv", "-n", "100").splitlines()}
    ld = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
    src = os.path.join(tmp, "inlined-srcline.txt")
    with open(src, "w") as out:
        out.write(DWARF_SAMPLE_SRCLINE)
    srcline_objects = {l.split("\t")[4]: l.split("\t")[5]
                       for l in run(cli, "top", src, "--tsv", "-n", "100").splitlines()}
    check(srcline_objects.get("inner") == "/tmp/inl" and folded(src) == {"inl;main;outer;inner": 1},
          f"perf script -F +srcline's (inlined) frames: {srcline_objects}, {dict(folded(src))}")
    check(folded(txt) == stackcollapse(DWARF_SAMPLE) and objects.get("dl_platform_init") == ld
          and objects.get("handle_amd") == ld and "inlined" not in objects.values()
          and objects.get("init_cpu_features") != ld,
          f"perf script's (inlined) frames: folded as stackcollapse-perf, objects {objects}")


def compare_named_by_earlier_build(tmp):
    """A symbolized .ppk an earlier build wrote (tests/data/perf/named-c505f59.ppk: a recording
    of `find` and a shell, named by c505f59): its symbol table holds a user frame under kernel
    frames as a return address, which later builds look up at the address itself. Read now,
    such frames keep their names: as many samples have a frame left unnamed in a library
    ([libc.so.6], [ld-linux...]) as that build's own conversion had, 32 of 8,604."""
    f = os.path.join(data, "named-c505f59.ppk")
    lines = folded(f)
    unnamed = sum(n for l, n in lines.items() if re.search(r";\[(libc|ld-linux)[^;]*\]", l))
    check(sum(lines.values()) == 8604 and unnamed == 32,
          f"a .ppk named by c505f59: {unnamed} of {sum(lines.values())} samples with an unnamed "
          f"library frame (32 of 8,604 then)")


def compare_dwarf_callgraph(tmp, buildids):
    """A recording made with --call-graph dwarf (user stacks copied, for perf to unwind): its
    self samples per function of the program equal perf report's (the kernel's callchains give
    each sample's own address), and profpack says once that it does not unwind the copies."""
    f = os.path.join(tmp, "dwarf.data")
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "--call-graph",
        "dwarf,4096", "-o", f, os.path.join(data, "threads"))
    r = subprocess.run([cli, "top", f, "--symbol-tables-only", "--tsv", "-n", "100000000"],
                       check=True, capture_output=True, text=True)
    ours, theirs = self_of(r.stdout, "threads"), perf_self_of(buildids, f, "threads")
    warned = r.stderr.count("--call-graph dwarf")
    check(ours == theirs and len(ours) >= 2 and warned == 1,
          f"--call-graph dwarf: self samples per function = perf report ({dict(ours)} vs "
          f"{dict(theirs)}), and one warning that user stacks are not unwound ({warned})")


def perf_sections(report):
    """perf report --stdio -n --sort dso,sym, per event: (samples, summed period, {(dso, named
    function): self samples}); frames perf does not name (0x..., [unknown]) left out of the
    last. The samples are its rows' (the header abbreviates them: "1K")."""
    out = {}
    for section in re.split(r"^# Samples: ", report, flags=re.M)[1:]:
        m = re.match(r"\S+\s+of event '([^']+)'.*?# Event count \(approx\.\): (\d+)",
                     section, re.S)
        per, samples = collections.Counter(), 0
        for line in section.splitlines():
            # A dso may hold spaces: "memfd:sealed-91173221a7ea (deleted)".
            r = re.match(r"\s*[\d.]+%\s+(\d+)\s+(.+?)\s+\[.\] (.*\S)\s*$", line)
            samples += int(r.group(1)) if r else 0
            if r and not r.group(3).startswith(("0x", "[unknown]")):
                per[(dso_name(r.group(2)), r.group(3))] += int(r.group(1))
        out[m.group(1)] = (samples, int(m.group(2)), per)
    return out


def named_self(top_tsv):
    """top --tsv's self figures per (dso, named function), as perf_sections gives perf's."""
    out = collections.Counter()
    for line in top_tsv.splitlines():
        self_, _, _, _, func, obj = line.split("\t")
        if int(self_) and not func.startswith("0x"):
            out[(dso_name(obj), func)] += int(self_)
    return out


def record_types(f):
    """The record types of a perf.data's data section (pipe mode: its stream), counted."""
    d = open(f, "rb").read()
    if struct.unpack_from("<Q", d, 8)[0] == 16:
        at, end = 16, len(d)
    else:
        at, size = struct.unpack_from("<QQ", d, 40)
        end = at + size
    types = collections.Counter()
    while at < end:
        typ, _, size = struct.unpack_from("<IHH", d, at)
        types[typ] += 1
        at += size + (struct.unpack_from("<I", d, at + 8)[0] if typ == 66 else 0)
    return types


def text_figures(f, script_gz, tmp):
    """(samples, self samples per function of the program) of recording `f` (named from the
    committed binaries) and of its committed perf script text."""
    txt = os.path.join(tmp, os.path.basename(os.path.dirname(f)) + ".txt")
    with gzip.open(script_gz, "rt") as z, open(txt, "w") as out:
        out.write(z.read())
    def figures(path, *extra):
        top = run(cli, "top", path, *extra, "--tsv", "-n", "100000000")
        return (sum(int(l.split("\t")[0]) for l in top.splitlines()),
                {k[1]: n for k, n in named_self(top).items() if k[0] in PROGRAMS})
    return figures(f, "--binary-path", data), figures(txt)


def compare_directory(tmp):
    """perf record --threads (tests/data/perf/dir): a directory, `data` and a `data.N` per
    recording thread, read as one recording; its figures equal those of its perf script text."""
    f = os.path.join(data, "dir", "threads.data")
    ours, theirs = text_figures(f, os.path.join(data, "dir", "threads.script.txt.gz"), tmp)
    check(os.path.isdir(f) and ours == theirs and len(ours[1]) >= 2,
          f"perf record --threads directory: samples and self samples per function of the "
          f"program = its perf script text's ({ours} vs {theirs})")


def compare_compressed(tmp):
    """perf record -z (tests/data/perf/compressed: its records in PERF_RECORD_COMPRESSED ones,
    zstd): read, its figures equal those of its committed perf script text: samples, and self
    samples per function of the program."""
    f = os.path.join(data, "compressed", "threads.data")
    ours, theirs = text_figures(f, f[:-len(".data")] + ".script.txt.gz", tmp)
    types = record_types(f)
    check(types[81] >= 2 and types[9] == 0 and ours == theirs and len(ours[1]) >= 2,
          f"perf record -z: {types[81]} compressed records read; samples and self samples per "
          f"function of the program = its perf script text's ({ours} vs {theirs})")


def compare_fixed_period(tmp):
    """perf record -c 250000 (tests/data/perf/fixed): the samples hold no period, so each has
    the event's 250,000: the summed period is that many times the samples, as perf report and
    the committed perf script text (-F +period) give it."""
    f = os.path.join(data, "fixed", "threads.data")
    txt = os.path.join(tmp, "fixed.txt")
    with gzip.open(f[:-len(".data")] + ".script.txt.gz", "rt") as z, open(txt, "w") as out:
        out.write(z.read())
    def events(path):
        return {e["name"]: e["total"] for e in json.loads(run(cli, "info", path, "--json"))["events"]}
    ours, theirs = events(f), events(txt)
    check(ours == theirs and ours["cpu-clock"] == 250000 * ours["samples"] > 0,
          f"perf record -c 250000: summed period = 250,000 x samples = the perf script text's "
          f"({ours} vs {theirs})")


def compare_recorded_named(f, buildids, what, event=()):
    """A recording made here: its samples and the self samples per named function of every
    DSO equal perf report's, but for entries of the procedure linkage table: perf 6.1 leaves
    some unnamed (strcmp@plt of a stripped addr2line, which objdump names as profpack does) or
    calls them _init."""
    theirs = perf_sections(run("perf", "--buildid-dir", buildids, "report", "-i", f, "--stdio",
                               "--no-children", "-n", "-g", "none", "--sort", "dso,sym"))
    n, period, per = theirs.get("cpu-clock", (None, None, {}))
    plt = lambda c: collections.Counter(
        {k: v for k, v in c.items() if not k[1].endswith("@plt") and k[1] != "_init"})
    top = run(cli, "top", f, "--symbol-tables-only", "--tsv", "-n", "100000000", *event)
    ours, per = plt(named_self(top)), plt(per)
    total = sum(int(l.split("\t")[0]) for l in top.splitlines())
    # The summed period: each sample's, or where samples hold none (-c N), the event's N.
    summed = {e["name"]: e["total"] for e in
              json.loads(run(cli, "info", f, "--symbol-tables-only", "--json"))["events"]}
    check(summed.get("cpu-clock") == period,
          f"{what}: summed period {summed.get('cpu-clock')} vs perf report's {period}")
    check(total == n and ours == per and per,
          f"{what}: samples {total} vs perf report's {n}, self samples per named function: "
          f"{len(ours)} functions vs {len(per)}, differing "
          f"{sorted(set(ours.items()) ^ set(per.items()))[:10]}")


def compare_record_compressed(tmp, buildids):
    """perf record -z, to a file, through a pipe, and through a pipe with a tracepoint (whose
    HEADER_TRACING_DATA record carries its payload after it), read as perf report reads it."""
    for mode in ("file", "pipe", "pipe, tracepoint"):
        f = os.path.join(tmp, f"z-{mode[:4]}{len(mode)}.data")
        events = ["-e", "cpu-clock"] + (["-e", "sched:sched_process_exit"] if "trace" in mode
                                        else [])
        args = ["perf", "--buildid-dir", buildids, "record", "-q", "-z", *events, "-g",
                "-o", f if mode == "file" else "-", os.path.join(data, "threads")]
        if mode == "file":
            run(*args)
        else:
            with open(f, "wb") as out:
                subprocess.run(args, check=True, stdout=out, stderr=subprocess.DEVNULL)
        types = record_types(f)
        check(types[81] > 0 and ("trace" not in mode or types[66] > 0),
              f"perf record -z ({mode}): compressed records made ({dict(types)})")
        compare_recorded_named(f, buildids, f"perf record -z ({mode})",
                               ("--event", "cpu-clock_samples") if "trace" in mode else ())


def compare_record_variants(tmp, buildids):
    """Recordings whose samples hold other fields before the callchain (a read group, an
    address, a weight, the cpu), or that hold records profpack skips (context switches):
    their samples and self samples per named function equal perf report's; a skipped kind is
    named in its warning."""
    for flags in (["-s"], ["-d"], ["-W"], ["--sample-cpu", "-T"], ["-c", "100000"],
                  ["--switch-events"]):
        f = os.path.join(tmp, "variant.data")
        run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-g", *flags,
            "-o", f, os.path.join(data, "threads"))
        compare_recorded_named(f, buildids, "perf record " + " ".join(flags))
        if "--switch-events" in flags:
            warned = subprocess.run([cli, "info", f], capture_output=True, text=True).stderr
            check("(SWITCH)" in warned, f"the skipped context switches named: {warned.strip()!r}")


def compare_record_threads(tmp, buildids):
    """perf record --threads, a directory, read as perf report reads it."""
    f = os.path.join(tmp, "threads-dir.data")
    run("perf", "--buildid-dir", buildids, "record", "-q", "--threads", "-e", "cpu-clock", "-g",
        "-o", f, os.path.join(data, "threads"))
    check(os.path.isdir(f), "perf record --threads made a directory")
    compare_recorded_named(f, buildids, "perf record --threads")


def compare_system_wide(tmp, buildids):
    """perf record -a (every process and kernel thread, and the dummy event perf adds to carry
    the sideband records): its one event, its samples and the self samples per named function
    of every DSO equal perf report's (compare_recorded_named)."""
    f = os.path.join(tmp, "system.data")
    # A pause after the program: idle CPUs, whose samples are the idle task's.
    run("perf", "--buildid-dir", buildids, "record", "-q", "-a", "-e", "cpu-clock", "-g", "-o",
        f, "sh", "-c", os.path.join(data, "threads") + "; sleep 0.3")
    theirs = perf_sections(run("perf", "--buildid-dir", buildids, "report", "-i", f, "--stdio",
                               "--no-children", "-n", "-g", "none", "--sort", "dso,sym"))
    info = {e["name"]: e["total"] for e in
            json.loads(run(cli, "info", f, "--symbol-tables-only", "--json"))["events"]}
    period = theirs.get("cpu-clock", (None, None, {}))[1]
    check(sorted(info) == ["cpu-clock", "samples"] and info["cpu-clock"] == period,
          f"perf record -a: events {sorted(info)} (no dummy), period {info.get('cpu-clock')} vs "
          f"{period}")
    compare_recorded_named(f, buildids, "perf record -a")
    # Samples per command name, as perf script prints each sample's (the idle task, which has
    # no COMM record, is perf's "swapper").
    theirs = collections.Counter(l.strip().replace(" ", "_") for l in
                                 run("perf", "--buildid-dir", buildids, "script", "-F", "comm",
                                     "-i", f).splitlines() if l.strip())
    ours = collections.Counter()
    for line, n in folded(f, "--no-symbolize").items():
        ours[line.split(";", 1)[0]] += n
    # Kernel frames perf names (the idle task's stack starts in init text, past the kernel's
    # text mapping) are named: none left as "[[kernel.kallsyms]]" where perf names them all.
    script = run("perf", "--buildid-dir", buildids, "script", "-i", f)
    unnamed = sum(n for l, n in folded(f, "--symbol-tables-only").items()
                  if "[[kernel.kallsyms]]" in l.split(";"))
    perf_unnamed = sum("[unknown] ([kernel.kallsyms])" in s for s in script.split("\n\n"))
    check(unnamed <= perf_unnamed,
          f"perf record -a: kernel frames named where perf names them ({unnamed} samples with "
          f"an unnamed kernel frame, perf {perf_unnamed}; init text: {'start_kernel' in script})")
    check(ours == theirs,
          f"perf record -a: samples per command name as perf script's ({ours.get('swapper', 0)} "
          f"of the idle task; differing "
          f"{sorted(set(ours.items()) ^ set(theirs.items()))[:6]})")


def compare_events(tmp, buildids):
    """A recording of three events (software ones: no PMU needed): per event, its samples
    (`EVENT_samples`) and summed period equal perf report's for that event, in total and per
    named function of every DSO (self samples); `samples` is all of them; its `perf script`
    text gives the same totals."""
    f = os.path.join(tmp, "events.data")
    events = ["cpu-clock", "task-clock", "page-faults"]
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", ",".join(events), "-g", "-o",
        f, os.path.join(data, "threads"))
    report = run("perf", "--buildid-dir", buildids, "report", "-i", f, "--stdio",
                 "--no-children", "-n", "-g", "none", "--sort", "dso,sym")
    theirs = perf_sections(report)
    info = {e["name"]: e["total"] for e in
            json.loads(run(cli, "info", f, "--symbol-tables-only", "--json"))["events"]}
    check(sorted(theirs) == sorted(events) and
          info["samples"] == sum(n for n, _, _ in theirs.values()),
          f"three events: samples = every event's ({info.get('samples')} vs "
          f"{ {e: n for e, (n, _, _) in theirs.items()} })")
    for e, (n, period, per) in sorted(theirs.items()):
        top = run(cli, "top", f, "--symbol-tables-only", "--tsv", "-n", "100000000", "--event",
                  e + "_samples")
        ours = named_self(top)
        check(info.get(e + "_samples") == n and info.get(e) == period and ours == per and per,
              f"event {e}: samples {info.get(e + '_samples')} vs {n}, period {info.get(e)} vs "
              f"{period}, self samples per named function {dict(ours)} vs {dict(per)}")
    txt = os.path.join(tmp, "events.txt")
    with open(txt, "w") as out:
        out.write(run("perf", "--buildid-dir", buildids, "script", "-i", f))
    from_text = {e["name"]: e["total"] for e in json.loads(run(cli, "info", txt, "--json"))["events"]}
    check(from_text == info, f"three events: perf script text's totals = perf.data's "
          f"({from_text} vs {info})")


NAMED_THREADS_C = r"""
#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>
static volatile unsigned long sink;
static void spin(double s) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do {
    for (int i = 0; i < 100000; ++i) sink += i;
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < s);
}
static void* job(void* arg) {
  (void)arg;
  prctl(PR_SET_NAME, "job 123456");
  spin(0.3);
  return 0;
}
int main(void) {
  pthread_t t;
  prctl(PR_SET_NAME, "main 77777");
  pthread_create(&t, 0, job, 0);
  spin(0.3);
  pthread_join(t, 0);
  return 0;
}
"""


def compare_numbered_comm(tmp, buildids):
    """Threads whose names end in a number ("job 123456"), printed by `perf script -F -tid`:
    the number stays in the comm (it is no tid), so the text's folded lines, top and events
    equal the default text's, and its threads are perf's unknown one."""
    src, exe, f = (os.path.join(tmp, n) for n in ("named.c", "named", "named.data"))
    with open(src, "w") as out:
        out.write(NAMED_THREADS_C)
    run("cc", "-O1", "-g", "-fno-omit-frame-pointer", "-pthread", src, "-o", exe)
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-g", "-o", f, exe)
    got = {}
    for fields in ((), ("-F", "-tid")):
        txt = os.path.join(tmp, "named%d.txt" % len(fields))
        with open(txt, "w") as out:
            out.write(run("perf", "--buildid-dir", buildids, "script", "-i", f, *fields))
        info = json.loads(run(cli, "info", txt, "--json"))
        got[fields] = (folded(txt), run(cli, "top", txt, "--tsv", "-n", "100000000"),
                       {e["name"]: e["total"] for e in info["events"]},
                       sorted({t["thread_id"] for t in info["threads"]}))
    (f0, t0, e0, th0), (f1, t1, e1, th1) = got[()], got[("-F", "-tid")]
    comms = {l.split(";", 1)[0] for l in f1}
    check(f1 == f0 and t1 == t0 and e1 == e0 and th1 == [-1] and "job_123456" in comms and
          "main_77777" in comms and len(th0) == 2,
          f"perf script -F -tid, thread names ending in a number: folded lines, top and events "
          f"as the default text's, one unknown thread (comms {sorted(comms)}, threads {th1} "
          f"against {th0})")


PAGES_C = "".join(
    f"__attribute__((noinline, aligned(4096))) long fn{i}(long x) {{ g += x; return x * {i + 3}; }}\n"
    for i in range(40))


def compare_interrupted_user_frame(tmp, buildids):
    """A sample taken in the kernel (here at a page fault) has, under its kernel frames, the
    user address the fault left: the address itself, not a return address. Functions on pages
    of their own fault at their first byte, whose byte before is the function before: perf
    names the frame by the faulting function, and so must profpack (it named fn39 for main)."""
    src, exe, f = (os.path.join(tmp, n) for n in ("pages.c", "pages", "pages.data"))
    with open(src, "w") as out:
        out.write("volatile long g;\n" + PAGES_C + "int main(void) {\n long s = 0;\n" +
                  "".join(f" s += fn{i}(s);\n" for i in range(40)) + " return (int)(s & 1);\n}\n")
    run("cc", "-O1", "-g", "-fno-omit-frame-pointer", src, "-o", exe)
    r = subprocess.run(["perf", "--buildid-dir", buildids, "record", "-q", "-e",
                        "exceptions:page_fault_user", "-g", "-o", f, exe], capture_output=True)
    if r.returncode != 0:
        print("skip (not counted): the page-fault tracepoint cannot be recorded here: " +
              r.stderr.decode(errors="replace").strip()[:200])
        return
    ours_of = re.compile(r";(main|fn\d+)(;|$)")
    text = run("perf", "--buildid-dir", buildids, "script", "-i", f)
    want = {l: n for l, n in stackcollapse(text).items() if ours_of.search(l)}
    got = {l: n for l, n in folded(f, "--symbol-tables-only").items() if ours_of.search(l)}
    check(want == got and any(";main;" in l for l in want),
          f"page faults at functions' first bytes: folded lines through main and fn0..fn39 = "
          f"stackcollapse-perf's ({len(got)} lines; differ "
          f"{sorted(set(want.items()) ^ set(got.items()))[:4]})")


VDSO_C = r"""
#include <time.h>
int main(void) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < 0.3);
  return 0;
}
"""


def compare_vdso(tmp, buildids):
    """The vdso, whose copy perf record keeps in its build-id cache as .build-id/xx/rest/vdso:
    its functions are named from there, as perf report names them."""
    src, exe, f = (os.path.join(tmp, n) for n in ("vdso.c", "vdso", "vdso.data"))
    with open(src, "w") as out:
        out.write(VDSO_C)
    run("cc", "-O1", "-g", "-fno-omit-frame-pointer", src, "-o", exe)
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-g", "-o", f, exe)
    theirs = perf_sections(run("perf", "--buildid-dir", buildids, "report", "-i", f, "--stdio",
                               "--no-children", "-n", "-g", "none", "--sort", "dso,sym"))
    want = {k: n for k, n in theirs["cpu-clock"][2].items() if k[0] == "[vdso]"}
    top = run(cli, "top", f, "--symbol-tables-only", "--binary-path", buildids, "--tsv", "-n",
              "100000000")
    got = {k: n for k, n in named_self(top).items() if k[0] == "[vdso]"}
    check(got == want and want, f"the vdso named from perf's build-id cache: {got} vs perf "
          f"report's {want}")


def compare_exec(tmp, buildids):
    """Samples in execve after its COMM record (the exec) but before the new image's mappings:
    their user frames are still in the old image, where perf names them (__GI___execve in
    libc), not [unknown]. Compared with stackcollapse-perf's lines of the samples in execve,
    up to the kernel's entry."""
    f = os.path.join(tmp, "exec.data")
    run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-F", "20000",
        "-g", "-o", f, "sh", "-c", "for i in $(seq 100); do /bin/true; done")
    text = run("perf", "--buildid-dir", buildids, "script", "-i", f)
    # The user part of each line (comm and user frames, up to the kernel's entry): kernel frames
    # at a function's last byte are named apart on purpose (docs/formats.md).
    def user_part(lines):
        out = collections.Counter()
        for l, n in lines.items():
            if ";__x64_sys_execve;" in l:
                out[l.split(";entry_SYSCALL")[0]] += n
        return dict(out)
    want = user_part(stackcollapse(text))
    got = user_part(folded(f, "--symbol-tables-only"))
    check(want == got and want, f"samples in execve: {sum(got.values())} in {len(got)} user parts "
          f"of folded lines = stackcollapse-perf's "
          f"(differ {sorted(set(want.items()) ^ set(got.items()))[:3]})")


JIT_JS = """
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * i) % 7; return s; }
const t = Date.now(); let r = 0;
while (Date.now() - t < 500) r += hot(100000);
console.log(r > 0);
"""


def compare_jit(tmp, buildids):
    """A JIT's code (node --perf-basic-prof) is named from the /tmp/perf-PID.map it writes, as
    perf report names it: self samples per JIT function equal perf report's [JIT] rows."""
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("skip (not counted): node is not installed: no JIT recording")
        return
    js, f = os.path.join(tmp, "jit.js"), os.path.join(tmp, "jit.data")
    with open(js, "w") as out:
        out.write(JIT_JS)
    maps = set(glob.glob("/tmp/perf-*.map"))
    try:
        # In tmp: node writes its V8 log (isolate-*-v8.log) where it runs.
        run("perf", "--buildid-dir", buildids, "record", "-q", "-e", "cpu-clock", "-g", "-o", f,
            node, "--perf-basic-prof", js, cwd=tmp)
        report = run("perf", "--buildid-dir", buildids, "report", "-i", f, "--stdio",
                     "--no-children", "-n", "-g", "none", "--sort", "dso,sym")
        theirs = collections.Counter()
        for line in report.splitlines():
            r = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[JIT\] tid \d+\s+\[.\] (.*\S)\s*$", line)
            if r:
                theirs[r.group(2)] += int(r.group(1))
        top = run(cli, "top", f, "--symbol-tables-only", "--tsv", "-n", "100000000")
        ours = collections.Counter({k[1]: n for k, n in named_self(top).items() if k[0] == "anon"})
        check(ours == theirs and any("hot" in k for k in ours),
              f"JIT code named from perf-PID.map: {dict(ours.most_common(3))} vs perf report's "
              f"{dict(theirs.most_common(3))}")
    finally:
        for m in set(glob.glob("/tmp/perf-*.map")) - maps:
            os.remove(m)


def main():
    if not shutil.which("perf"):
        print("perf not installed (linux-perf provides it)")
        return 1
    global TMP
    with tempfile.TemporaryDirectory() as tmp:
        TMP = tmp
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
            compare_cxx(tmp, buildids)
            compare_same_name(tmp, buildids)
            compare_same_line(tmp, buildids)
            compare_inlined_and_called(tmp, buildids)
            compare_two_events(tmp, buildids)
            compare_dwarf_callgraph(tmp, buildids)
            compare_events(tmp, buildids)
            compare_system_wide(tmp, buildids)
            compare_record_compressed(tmp, buildids)
            compare_record_threads(tmp, buildids)
            compare_record_variants(tmp, buildids)
            compare_numbered_comm(tmp, buildids)
            compare_interrupted_user_frame(tmp, buildids)
            compare_vdso(tmp, buildids)
            compare_exec(tmp, buildids)
            compare_jit(tmp, buildids)
        for f in files:
            compare(f, tmp, buildids)
            if "--record" not in sys.argv:
                compare_timeline(f, tmp)
                compare_table_names(f, tmp)
                compare_running_kernel(f, tmp)
                compare_children(f, tmp, buildids)
                if os.path.basename(f) == "threads.data":
                    compare_script_variants(f, tmp, buildids)
        if "--record" not in sys.argv:
            compare_script_lines(tmp)
            compare_script_without_tids(tmp)
            compare_script_inlined(tmp)
            compare_fixed_period(tmp)
            compare_named_by_earlier_build(tmp)
            compare_compressed(tmp)
            compare_directory(tmp)
            compare_buildid_cache(tmp)
            compare_cut_kallsyms(tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
