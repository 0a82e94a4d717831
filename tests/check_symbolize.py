#!/usr/bin/env python3
"""profpack symbolize against the reference tools, on gperftools profiles of a real program
(tests/data/symbolize/hot.c, built -O1 -g, profiled with libprofiler at 1000 Hz; the profiles
name the binaries at a path that no longer exists, so they are found through --binary-path):

- `hot` keeps its functions out of line: after `profpack symbolize`, `profpack top` has every
  function `go tool pprof -top -symbolize=local` names, with the same flat and cumulative
  sample counts, and `profpack annotate --source hot.c` the same flat samples per line as
  `go tool pprof -list`.
- `hot-inline` inlines `fold` into `work`. Go's pprof shows no inline frames for C binaries, so
  the reference there is binutils' `addr2line -i -f`: each sample's leaf address gives its
  inline chain, the innermost function gets the flat count, every function of every frame's
  chain the cumulative count, once per sample.
- The symbolized .ppk answers by name with no binary at hand, and its gperftools rewrite is
  the original, byte for byte.
- XRay: `symbolize --binary` names every function as `top --binary` does, with the file and
  line where st.cpp defines it, and keeps every figure.
- DCPI: a profile of hot's .text, against addr2line.
- Bad binaries (truncated ELF, corrupt DWARF, a directory, a FIFO, /dev/zero, not ELF): a
  warning naming the mapping and the reason, the rest symbolized, no crash and no hang.
"""
import collections, os, re, shutil, subprocess, tempfile

from checklib import check, cli, comp_dir, dcpi_of_text, finish, run, top_tsv, data

sym = os.path.join(data, "symbolize")
tmp = tempfile.mkdtemp(prefix="profpack-symbolize-")


def pprof(*args):
    env = dict(os.environ, PPROF_BINARY_PATH=sym, PPROF_TMPDIR=tmp, HOME=tmp)
    return subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True,
                          env=env, timeout=300).stdout


def pprof_named_top(*profiles):
    """go tool pprof -top of hot's profiles, symbolized by pprof from the binary: (flat, cum)
    per function it names."""
    ref = {}
    for l in pprof("-top", "-symbolize=local", "-sample_index=samples", "-nodecount=100000",
                   os.path.join(sym, "hot"), *[os.path.join(sym, p) for p in profiles]).splitlines():
        m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$", l)
        if m and not m.group(3).startswith("["):
            ref[m.group(3).strip()] = (int(m.group(1)), int(m.group(2)))
    return ref


def symbolize(name, *extra, binary_path=sym):
    out = os.path.join(tmp, name + ".ppk")
    r = run("symbolize", os.path.join(sym, name + ".prof"), "-o", out,
            "--binary-path", binary_path, *extra)
    return r, out


# --- hot: pprof's top and list ----------------------------------------------------------------
r, hot = symbolize("hot")
check(r.returncode == 0, f"symbolize hot.prof (exit {r.returncode}: {r.stderr.strip()[:200]})")
ours = top_tsv(hot)
ref = pprof_named_top("hot.prof")
check(len(ref) >= 5, f"pprof names {len(ref)} functions of hot: {sorted(ref)}")
for name, (flat, cum) in sorted(ref.items()):
    check(ours.get(name) == (flat, cum),
          f"hot: {name}: profpack self/inclusive {ours.get(name)}, pprof flat/cum {flat}/{cum}")
hot_objects = {}
for l in run("top", hot, "-n", "100000", "--tsv").stdout.splitlines():
    f = l.split("\t")
    hot_objects[f[4]] = f[5]
extra = [n for n, (s, _) in ours.items()
         if s and hot_objects.get(n, "").endswith("/hot") and n not in ref]
check(not extra, f"hot: no function with samples that pprof does not name ({extra})")

# Per-line flat samples: pprof -list of every function, summed per line of hot.c.
ref_lines = collections.Counter()
in_hot_c = False
for l in pprof("-list", ".", "-symbolize=local", "-sample_index=samples",
               "-source_path=" + sym, "-trim_path=" + comp_dir(os.path.join(sym, "hot")),
               os.path.join(sym, "hot"), os.path.join(sym, "hot.prof")).splitlines():
    if l.startswith("ROUTINE"):
        in_hot_c = os.path.basename(l.rstrip().split(" in ")[-1]) == "hot.c"
        continue
    m = re.match(r"\s*(\S+)\s+(\S+)\s+(\d+):", l)
    if in_hot_c and m and m.group(1) != ".":
        ref_lines[int(m.group(3))] += int(m.group(1))
our_lines = {}
for l in run("annotate", hot, "--source", "hot.c").stdout.splitlines()[1:]:
    m = re.match(r"\s*(\d+)\s+(\d+)\s*$", l)  # no readable source: line, samples
    if m and int(m.group(2)):
        our_lines[int(m.group(1))] = int(m.group(2))
check(ref_lines and our_lines == dict(ref_lines),
      f"hot.c per-line samples: profpack {our_lines}, pprof -list {dict(ref_lines)}")

# --- separate debug information, and no debuginfod client unless one is configured ---------
# hot with its DWARF moved to hot.debug beside it (objcopy --only-keep-debug, then the binary
# stripped of it and given a .gnu_debuglink): the same names and per-line samples as from hot
# itself. Then the stripped binary alone, with no debug file anywhere: libdwfl's standard
# search would load the debuginfod client (libcurl, GnuTLS, Kerberos, ...) to ask no server;
# profpack loads it only where DEBUGINFOD_URLS names one (seen in the loader's LD_DEBUG=libs
# log; a closed port on this host as the server, and a cache of the test's own).
split = os.path.join(tmp, "split")
os.makedirs(split)
shutil.copy(os.path.join(sym, "hot"), split)
subprocess.run(["objcopy", "--only-keep-debug", "hot", "hot.debug"], cwd=split, check=True)
subprocess.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=hot.debug", "hot"], cwd=split,
               check=True)
r = subprocess.run(["readelf", "-S", os.path.join(split, "hot")], capture_output=True, text=True)
check(".debug_info" not in r.stdout and ".gnu_debuglink" in r.stdout,
      "the split copy of hot has no DWARF of its own, and a debuglink")
r, split_ppk = symbolize("hot", binary_path=split)
check(r.returncode == 0 and top_tsv(split_ppk) == top_tsv(hot),
      f"hot with its DWARF in hot.debug: the same top as hot ({r.stderr.strip()[:200]})")
split_lines = {}
for l in run("annotate", split_ppk, "--source", "hot.c").stdout.splitlines()[1:]:
    m = re.match(r"\s*(\d+)\s+(\d+)\s*$", l)
    if m and int(m.group(2)):
        split_lines[int(m.group(1))] = int(m.group(2))
check(split_lines == our_lines,
      f"hot with its DWARF in hot.debug: per-line samples {split_lines}, from hot {our_lines}")
os.remove(os.path.join(split, "hot.debug"))


def loads_debuginfod(urls):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEBUGINFOD_")}
    env.update(LD_DEBUG="libs", DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "debuginfod-cache"))
    if urls:
        env["DEBUGINFOD_URLS"] = urls
    r = subprocess.run([cli, "symbolize", os.path.join(sym, "hot.prof"), "-o",
                        os.path.join(tmp, "nodebug.ppk"), "--binary-path", split],
                       capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0, f"symbolize with the debug file gone (DEBUGINFOD_URLS={urls!r}): "
          f"exit {r.returncode}")
    return "libdebuginfod" in r.stderr


check(not loads_debuginfod(""), "no debug file, DEBUGINFOD_URLS unset: no debuginfod client loaded")
check(loads_debuginfod("http://127.0.0.1:9/"),
      "no debug file, DEBUGINFOD_URLS set: the debuginfod client is asked (the check above can "
      "see it)")

# --- merge of symbolized runs: the names carried over ---------------------------------------
# hot.run2.prof is a second run of the same binary, loaded at another address (ASLR): the merge
# moves its addresses onto the first run's mappings and must keep both runs' names, with the
# figures `go tool pprof -top BINARY A B` gives for the two originals.
r, run2 = symbolize("hot.run2")
merged = os.path.join(tmp, "hot.merged.ppk")
r = run("merge", hot, run2, "-o", merged)
check(r.returncode == 0, f"merge two symbolized runs (exit {r.returncode}: {r.stderr.strip()[:200]})")
ours = top_tsv(merged)
ref = pprof_named_top("hot.prof", "hot.run2.prof")
check(len(ref) >= 5, f"pprof names {len(ref)} functions of the two runs: {sorted(ref)}")
for name, (flat, cum) in sorted(ref.items()):
    check(ours.get(name) == (flat, cum),
          f"merged runs: {name}: profpack self/inclusive {ours.get(name)}, pprof flat/cum "
          f"{flat}/{cum}")
r = run("info", "--json", merged)
check(r.returncode == 0 and '"functions":0,' not in r.stdout.replace(" ", ""),
      f"info of the merge counts its named functions ({r.stdout.strip()[:160]})")

# --- hot-inline: inline chains against addr2line -i ------------------------------------------
r, inl = symbolize("hot-inline")
check(r.returncode == 0, f"symbolize hot-inline.prof (exit {r.returncode})")
raw = pprof("-raw", "-symbolize=none", os.path.join(sym, "hot-inline.prof"))
samples, locs, maps = [], {}, {}
section = None
for l in raw.splitlines():
    if l in ("Samples:", "Locations", "Mappings"):
        section = l
        continue
    if section == "Samples:" and ":" in l and l.strip()[0].isdigit():
        counts, ids = l.split(":")
        samples.append((int(counts.split()[0]), [int(i) for i in ids.split()]))
    elif section == "Locations" and re.match(r"\s*\d+: 0x", l):
        f = l.split()
        locs[int(f[0].rstrip(":"))] = (int(f[1], 16), int(f[2][2:]))
    elif section == "Mappings" and re.match(r"\d+: 0x", l):
        f = l.split()
        start, _limit, offset = (int(x, 16) for x in f[1].split("/"))
        maps[int(f[0].rstrip(":"))] = (start, offset, f[2])
binary = os.path.join(sym, "hot-inline")


def vaddr(addr, m):
    start, offset, _ = maps[m]
    return addr - start + offset  # the binary's PT_LOAD segments have p_vaddr == p_offset


chains = {}
for lid, (a, m) in locs.items():
    if not maps[m][2].endswith("/hot-inline"):
        continue
    out = subprocess.run(["addr2line", "-i", "-f", "-e", binary, hex(vaddr(a, m))],
                         capture_output=True, text=True).stdout.splitlines()
    chains[lid] = [out[i] for i in range(0, len(out), 2) if out[i] != "??"]
flat, cum = collections.Counter(), collections.Counter()
for count, ids in samples:
    if ids[0] in chains and chains[ids[0]]:
        flat[chains[ids[0]][0]] += count
    seen = set()
    for lid in ids:
        for fn in chains.get(lid, []):
            if fn not in seen:
                seen.add(fn)
                cum[fn] += count
ours = top_tsv(inl)
check(flat["fold"] > 0 and cum["work"] > flat["fold"],
      f"addr2line puts samples in the inlined fold ({flat['fold']}) within work ({cum['work']})")
for fn in sorted(cum):
    check(ours.get(fn) == (flat[fn], cum[fn]),
          f"hot-inline: {fn}: profpack {ours.get(fn)}, addr2line -i {flat[fn]}/{cum[fn]}")
# The writers carry the names: pprof of the symbolized profile, read with no binary at hand.
pb = os.path.join(tmp, "hot-inline.pb.gz")
r = run("convert", inl, "--to", "pprof", "-o", pb)
conv = {}
for l in pprof("-top", "-symbolize=none", "-sample_index=samples", "-nodecount=100000",
               pb).splitlines():
    m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$", l)
    if m:  # pprof marks a function it finds as an inline frame "(inline)"
        conv[re.sub(r" \(inline\)$", "", m.group(3).strip())] = (int(m.group(1)), int(m.group(2)))
check(r.returncode == 0 and conv and all(ours.get(n) == v for n, v in conv.items()) and
      set(conv) == set(ours),
      f"--to pprof: go tool pprof -top -symbolize=none equals profpack top ({conv})")
calls = run("calls", inl, "fold").stdout
check(re.search(r"callers:\n\s+\d+\s+\d+ calls\s+\S*work ", calls) is not None,
      "calls fold: its caller is work, the function it is inlined into")

# --- kept in the .ppk; the original rewrite unchanged -----------------------------------------
moved = os.path.join(tmp, "elsewhere.ppk")
shutil.copy(hot, moved)
names = {l.split("\t")[4] for l in run("top", moved, "--tsv").stdout.splitlines()}
check({"mix", "fold", "work"} <= names, f"a copied .ppk names functions by itself ({names})")
back = os.path.join(tmp, "hot.back.prof")
r = run("convert", hot, "--to", "gperftools", "-o", back)
with open(back, "rb") as a, open(os.path.join(sym, "hot.prof"), "rb") as b:
    check(r.returncode == 0 and a.read() == b.read(),
          "the symbolized .ppk rewrites as gperftools byte for byte")
r = run("symbolize", os.path.join(sym, "hot.prof"), "-o", os.path.join(tmp, "nothing.ppk"))
check(r.returncode == 0 and re.search(r"mapping \d+ \(/tmp/psym/hot\) not symbolized", r.stderr),
      f"without --binary-path the missing binary is a warning ({r.stderr.strip()[:200]})")

# --- bad binaries -----------------------------------------------------------------------------
with open(os.path.join(sym, "hot"), "rb") as f:
    elf = f.read()


def bad(kind, make, reason):
    d = os.path.join(tmp, "bad-" + kind)
    os.mkdir(d)
    make(os.path.join(d, "hot"))
    try:
        r, out = symbolize("hot", binary_path=d)
    except subprocess.TimeoutExpired:
        check(False, f"{kind}: symbolize hung")
        return
    warned = re.search(r"warning: mapping \d+ \(/tmp/psym/hot\) not symbolized: .*" + reason,
                       r.stderr)
    check(r.returncode == 0 and warned is not None,
          f"{kind}: exit {r.returncode}, warning naming the mapping and '{reason}' "
          f"({r.stderr.strip()[:300]})")
    names = top_tsv(out)
    check(any(n.startswith("__libc_start") for n in names) or "libc" not in r.stderr,
          f"{kind}: the other mappings are still symbolized")


def write(data_):
    return lambda p: open(p, "wb").write(data_)


def corrupt_dwarf(p):
    # .debug_info overwritten with bytes that are no DWARF.
    out = subprocess.run(["readelf", "-SW", os.path.join(sym, "hot")], capture_output=True,
                         text=True).stdout
    m = re.search(r"\.debug_info\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", out)
    off, size = int(m.group(1), 16), int(m.group(2), 16)
    open(p, "wb").write(elf[:off] + bytes((i * 7 + 3) % 256 for i in range(size)) +
                        elf[off + size:])


bad("truncated", write(elf[:3000]), "ELF")
bad("not-elf", write(b"#!/bin/sh\necho not a binary\n" * 100), "ELF")
bad("directory", os.mkdir, "directory")
bad("fifo", os.mkfifo, "not a regular file")
bad("device", lambda p: os.symlink("/dev/zero", p), "not a regular file")
# Corrupt DWARF: a warning; the symbol table still names functions; no crash, exit 0.
d = os.path.join(tmp, "bad-dwarf")
os.mkdir(d)
corrupt_dwarf(os.path.join(d, "hot"))
r, out = symbolize("hot", binary_path=d)
check(r.returncode == 0 and re.search(r"warning: mapping \d+ \(/tmp/psym/hot\): .*corrupt DWARF",
                                      r.stderr) is not None,
      f"corrupt DWARF: exit {r.returncode}, a warning naming the mapping ({r.stderr.strip()[:300]})")
check("mix" in top_tsv(out), "corrupt DWARF: functions still named from the symbol table")

# --- DCPI: link-time addresses of an image's text ---------------------------------------------
# A DCPI profile written here against hot's .text: one count every 4 bytes of the text (DCPI's
# slot), counts varied; the image path does not exist, so --binary-path finds the binary.
dcpi = os.path.join(tmp, "hot.dcpi")
tstart, tsize, counts = dcpi_of_text(os.path.join(sym, "hot"), dcpi)
slots = len(counts)
out = os.path.join(tmp, "dcpi.ppk")
r = run("symbolize", dcpi, "-o", out, "--binary-path", sym)
check(r.returncode == 0 and not r.stderr, f"symbolize a DCPI profile ({r.stderr.strip()[:200]})")
want = collections.Counter()
addrs = [tstart + 4 * i for i in range(slots) if counts[i]]
res = subprocess.run(["addr2line", "-f", "-e", os.path.join(sym, "hot")] + [hex(a) for a in addrs],
                     capture_output=True, text=True).stdout.splitlines()
# binutils gives padding after a function (past its symbol's size) to the function before it;
# profpack leaves such an address unnamed, as its own hex address.
# (A symbol without a size, like crtstuff's deregister_tm_clones, reaches the next symbol.)
syms = []
for l in subprocess.run(["nm", "-S", "--defined-only", "-n", os.path.join(sym, "hot")],
                        capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 4 and f[2] in "tTwW":
        syms.append((int(f[0], 16), int(f[1], 16)))
    elif len(f) == 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), None))
ranges = [(a, a + n if n is not None else (syms[i + 1][0] if i + 1 < len(syms) else a))
          for i, (a, n) in enumerate(syms)]
for i, a in enumerate(addrs):
    inside = any(lo <= a < hi for lo, hi in ranges)
    want[res[2 * i] if inside else hex(a)] += counts[(a - tstart) // 4]
ours = {n: v[0] for n, v in top_tsv(out).items() if v[0]}
check(ours == dict(want), f"DCPI self samples per function: profpack {ours}, addr2line {dict(want)}")
r = run("convert", out, "--to", "dcpi", "-o", os.path.join(tmp, "back.dcpi"))
with open(os.path.join(tmp, "back.dcpi"), "rb") as a, open(dcpi, "rb") as b:
    check(r.returncode == 0 and a.read() == b.read(), "the symbolized DCPI .ppk rewrites byte for byte")

# --- XRay: function ids named from the instrumented binary, with file and line --------------
trace = os.path.join(data, "xray", "fdr-v5-st-g.xray")
stg = os.path.join(data, "xray", "st-g.bin")
out = os.path.join(tmp, "st-g.ppk")
r = run("symbolize", trace, "-o", out, "--binary", stg)
check(r.returncode == 0, f"symbolize an XRay trace with --binary ({r.stderr.strip()[:200]})")
today = top_tsv(trace, "--binary", stg)
named = top_tsv(out)
check(named == today and len(named) >= 6,
      f"XRay: names and figures equal top --binary's ({len(named)} functions)")
src = open(os.path.join(sym, "st.cpp")).read().splitlines()
rows = {}
for l in run("top", out, "-n", "1000").stdout.splitlines():
    m = re.search(r"calls  (\S+):(\d+):(\S.*)$", l)
    if m:
        rows[m.group(3)] = (m.group(1), int(m.group(2)))
for name in sorted(named):
    base = name.split("(")[0]
    want = next((i + 1 for i, t in enumerate(src) if re.search(r"\b%s\(int\b" % base, t)), None)
    got = rows.get(name)
    check(got is not None and got[0].endswith("/st.cpp") and got[1] == want,
          f"XRay: {name} at {got}, defined at st.cpp:{want}")
ann = {}
for l in run("annotate", out, "--source", os.path.join(sym, "st.cpp")).stdout.splitlines()[1:]:
    m = re.match(r"\s*([\d,]+)\s+(\d+)  ", l)
    if m:
        ann[int(m.group(2))] = int(m.group(1).replace(",", ""))
want = {rows[n][1]: v[0] for n, v in named.items() if n in rows and v[0]}
check(ann == want, f"XRay annotate: each function's self ticks on its line ({ann} vs {want})")
r = run("symbolize", trace, "-o", os.path.join(tmp, "x.ppk"))
check(r.returncode != 0 and "--binary" in r.stderr,
      f"XRay without --binary is refused, naming the option ({r.stderr.strip()[-120:]})")

# --- formats that need no symbolization, or cannot have it ------------------------------------
cg = os.path.join(data, "callgrind", "callgrind.workload.out")
r = run("symbolize", cg, "-o", os.path.join(tmp, "cg.ppk"))
check(r.returncode == 0 and "name their functions already" in r.stderr and
      run("equal", cg, os.path.join(tmp, "cg.ppk")).returncode == 0,
      "a Callgrind profile comes back unchanged, with a warning")
shutil.rmtree(tmp)
finish()
