"""What the reference-tool checks written in Python share: the CLI under test, the test data,
ok/FAIL lines with a count at the end, and the CLI's figures as Python values."""
import collections, os, re, subprocess, sys

cli = os.environ["PROFPACK_CLI"]
data = os.environ["PROFPACK_TEST_DATA"]
_counts = {"passed": 0, "failed": 0}


def check(ok, what):
    _counts["passed" if ok else "failed"] += 1
    print("ok  " if ok else "FAIL", what)


def finish():
    """Prints "N passed, M failed" and exits non-zero if anything failed."""
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 0)


# Options added to every command that reads a profile (info, top, annotate, calls, convert):
# a check that compares addresses sets ["--no-symbolize"].
read_options = []


def run(*args):
    if args and args[0] in ("info", "top", "annotate", "calls", "convert"):
        args = (*args, *read_options)
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


def dcpi_of_text(binary, out):
    """Writes a DCPI profile of `binary`'s .text to `out`: one count every 4 bytes of the text
    (DCPI's slot), counts varied, an image path that does not exist (so symbolize finds the
    binary through --binary-path). Returns (text start, text size, counts per slot)."""
    import re, struct
    sec = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout
    m = re.search(r"\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", sec)
    tstart, tsize = int(m.group(1), 16), int(m.group(2), 16)
    slots = tsize // 4
    counts = [(i * 37) % 11 for i in range(slots)]
    header = ["version pdb-0.7", "image 1f2e3d4c5b6a", "epoch 9901010101", "platform x86-64",
              "event cycles", "period 65536", "tstart %x" % tstart, "tsize %d" % tsize,
              "cpuspeed 600", "cpucount 1", "path /nonexistent/image/" + os.path.basename(binary)]
    body = struct.pack("<II", 0, slots) + struct.pack("<%dI" % slots, *counts)
    body += struct.pack("<II", sum(1 for c in counts if c), sum(counts))
    with open(out, "wb") as f:
        f.write(("\n".join(header) + "\nsamples\n").encode() + body)
    return tstart, tsize, counts


def comp_dir(binary):
    """The directory `binary` was compiled in, as its DWARF records it: to point
    pprof -list's -trim_path at it, with -source_path the copy of its sources in tests/data
    (the compilation directory is not on the machine that runs the tests)."""
    out = subprocess.run(["readelf", "--debug-dump=info", binary], capture_output=True,
                         text=True).stdout
    m = re.search(r"DW_AT_comp_dir\s*:.*?:\s*(\S+)\s*$", out, re.M)
    return m.group(1) if m else "/"


def callgrind_annotate_self(path):
    """callgrind_annotate's self cost of the first event per function name (summed over files;
    signed, for differences), from its file:function table."""
    out = subprocess.run(["callgrind_annotate", "--threshold=100", path], capture_output=True,
                         text=True).stdout
    per = collections.Counter()
    section = False
    for l in out.splitlines():
        if "file:function" in l:
            section = True
            continue
        if section and l.startswith("-- "):
            break
        m = re.match(r"\s*(-?[\d,]+) \(\s*-?[\d.]+%\)\s+(.*)$", l)
        if section and m:
            rest = re.sub(r" \[[^\]]*\]$", "", m.group(2))
            name = rest.split(":", 1)[1] if ":" in rest and not rest.startswith("[") else rest
            per[name] += int(m.group(1).replace(",", ""))
    return per


def callgrind_cycles(path):
    """The functions (callgrind_annotate's file:function names) in a cycle of calls through
    other functions, from its --tree=calling lines: the strongly connected components of more
    than one function."""
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", "--tree=calling",
                          path], capture_output=True, text=True).stdout
    edges, fn = collections.defaultdict(set), None
    for l in out.splitlines():
        m = re.match(r"^([\d,.()% ]+?)\s+([*>])\s+(\S.*)$", l)
        if not m:
            fn = None if not l.strip() else fn
            continue
        name = re.sub(r"(?: \(\d+x\))?(?: \[[^\]]*\])?$", "", m.group(3))
        if m.group(2) == "*":
            fn = name
        elif fn is not None and name != fn:
            edges[fn].add(name)
    return set(strong_components(edges))


def strong_components(edges):
    """The strongly connected components of more than one node of a graph ({node: callees}):
    {node: the list of its component's nodes}. Tarjan's algorithm with its own stack."""
    index, low, stack, on, comp = {}, {}, [], set(), {}
    for root in list(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    members.append(w)
                    if w == v:
                        break
                if len(members) > 1:
                    for m in members:
                        comp[m] = members
    return comp
