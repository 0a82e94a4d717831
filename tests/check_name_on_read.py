#!/usr/bin/env python3
"""Sampled profiles named from their binaries as they are read (PROFPACK_READ_SYMBOLIZE, on in
info, top, annotate, calls and convert), as `go tool pprof` names them, on the gperftools
profile tests/data/symbolize/hot.prof of hot (gcc -O1 -g; PROVENANCE.md):

- the binary at the path the profile records: `top` has every function `go tool pprof -top`
  names (pprof finds the binary at that path too), with its flat and cumulative samples;
  `annotate` pprof -list's samples per line; `calls mix` names its callers; `info` counts
  the named functions; --no-symbolize keeps the addresses.
- another build of the program at the recorded path (hot-inline, modified after the profile)
  and in a --binary-path directory (hot-noseparate, whose loadable segments do not fit the
  mapping) is not used, and is one warning on stderr.
- the binary in a --binary-path directory or PROFPACK_BINARY_PATH names them.
- convert writes what symbolize and then convert write (pprof, folded, callgrind, .ppk), and a
  gperftools rewrite is the original.
- a DCPI profile of hot's text is named on read as symbolize names it.
The profile names /tmp/psym/hot, which does not exist; a copy of it names a temporary
directory instead (the path is in the mappings' text at the end of the file).
"""
import collections, os, re, shutil, subprocess, tempfile

from checklib import check, comp_dir, dcpi_of_text, finish, run, top_tsv, data

sym = os.path.join(data, "symbolize")
tmp = tempfile.mkdtemp(prefix="profpack-name-on-read-")
empty = os.path.join(tmp, "empty")
os.mkdir(empty)
with open(os.path.join(sym, "hot.prof"), "rb") as f:
    hot_prof = f.read()


def pprof(*args):
    env = dict(os.environ, PPROF_BINARY_PATH=empty, PPROF_TMPDIR=tmp, HOME=tmp)
    return subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True,
                          env=env, timeout=300).stdout


def recorded_at(name, binary, newer):
    """A copy of hot.prof whose mappings name tmp/name/hot, holding `binary`, modified before
    the profile (or after it, with `newer`)."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    path = os.path.join(d, "hot")
    shutil.copy(binary, path)
    prof = os.path.join(tmp, name + ".prof")
    with open(prof, "wb") as f:
        f.write(hot_prof.replace(b"/tmp/psym/hot", path.encode()))
    t = os.stat(prof).st_mtime
    os.utime(path, (t + 100, t + 100) if newer else (t - 100, t - 100))
    return prof, path


# --- the binary where the profile says ---------------------------------------------------------
prof, _ = recorded_at("right", os.path.join(sym, "hot"), newer=False)
ref = {}
for l in pprof("-top", "-sample_index=samples", "-nodecount=100000", prof).splitlines():
    m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$", l)
    if m and not m.group(3).startswith("["):
        ref[m.group(3).strip()] = (int(m.group(1)), int(m.group(2)))
ours = top_tsv(prof)
check({"mix", "fold", "work", "other", "main"} <= set(ref),
      f"go tool pprof names hot's functions from the recorded path ({sorted(ref)})")
for name, v in sorted(ref.items()):
    check(ours.get(name) == v, f"top without symbolize: {name}: profpack {ours.get(name)}, "
          f"pprof flat/cum {v}")
# The same profile as a pprof of addresses (no lines: one function per mapping until named):
# every location is named on read, callers' too, so the figures are the same.
unnamed = os.path.join(tmp, "unnamed.pb.gz")
r = run("convert", prof, "--no-symbolize", "--to", "pprof", "-o", unnamed)
ours_pprof = top_tsv(unnamed)
for name, v in sorted(ref.items()):
    check(r.returncode == 0 and ours_pprof.get(name) == v,
          f"a pprof of its addresses, named on read: {name}: profpack {ours_pprof.get(name)}, "
          f"pprof flat/cum {v}")
r = run("top", prof)
check(r.returncode == 0 and "warning" not in r.stderr and "mix" in r.stdout,
      f"top names mix, no warning ({r.stderr.strip()[:200]})")
plain = top_tsv(prof, "--no-symbolize")
check(plain and not set(plain) & set(ref) and all("+0x" in n for n in plain if plain[n][0]),
      f"--no-symbolize keeps the addresses ({sorted(plain)[:4]})")
funcs = re.search(r"functions: (\d+)", run("info", prof).stdout)
check(funcs and int(funcs.group(1)) >= len(ref), f"info counts the named functions ({funcs})")
funcs = re.search(r"functions: (\d+)", run("info", prof, "--no-symbolize").stdout)
check(funcs and int(funcs.group(1)) == 0, "info --no-symbolize: no functions named")
r = run("calls", prof, "mix")
callers = r.stdout.split("callees:")[0]
check(r.returncode == 0 and re.search(r"\d+\s+\d+ calls\s+\S*work ", callers) and
      re.search(r"\d+\s+\d+ calls\s+\S*other ", callers),
      f"calls mix: work and other call it ({r.stdout.strip()[:300]} {r.stderr.strip()[:200]})")
ref_lines = collections.Counter()
in_hot_c = False
for l in pprof("-list", ".", "-sample_index=samples", "-source_path=" + sym,
               "-trim_path=" + comp_dir(os.path.join(sym, "hot")), prof).splitlines():
    if l.startswith("ROUTINE"):
        in_hot_c = os.path.basename(l.rstrip().split(" in ")[-1]) == "hot.c"
        continue
    m = re.match(r"\s*(\S+)\s+(\S+)\s+(\d+):", l)
    if in_hot_c and m and m.group(1) != ".":
        ref_lines[int(m.group(3))] += int(m.group(1))
our_lines = {}
for l in run("annotate", prof, "--source", "hot.c").stdout.splitlines()[1:]:
    m = re.match(r"\s*(\d+)\s+(\d+)\s*$", l)
    if m and int(m.group(2)):
        our_lines[int(m.group(1))] = int(m.group(2))
check(ref_lines and our_lines == dict(ref_lines),
      f"annotate hot.c: profpack {our_lines}, pprof -list {dict(ref_lines)}")

# --- another build of the program --------------------------------------------------------------
prof2, path2 = recorded_at("rebuilt", os.path.join(sym, "hot-inline"), newer=True)
r = run("top", prof2, "--tsv", "-n", "1000")
names = {l.split("\t")[4] for l in r.stdout.splitlines()}
warns = [l for l in r.stderr.splitlines() if path2 in l and "not the binary" in l]
check(r.returncode == 0 and not {"mix", "work"} & names,
      f"a rebuild at the recorded path is not used ({sorted(names)[:5]})")
check(len(warns) == 1 and "modified after the profile" in warns[0],
      f"one warning names it and why ({r.stderr.strip()[:300]})")
d = os.path.join(tmp, "other-layout")
os.mkdir(d)
shutil.copy(os.path.join(sym, "hot-noseparate"), os.path.join(d, "hot"))
hp = os.path.join(sym, "hot.prof")
for how, args, env in [("--binary-path", ["--binary-path", d], None),
                       ("PROFPACK_BINARY_PATH", [], dict(os.environ, PROFPACK_BINARY_PATH=d))]:
    r = subprocess.run([os.environ["PROFPACK_CLI"], "top", hp, "--tsv", *args],
                       capture_output=True, text=True, env=env)
    names = {l.split("\t")[4] for l in r.stdout.splitlines()}
    warns = [l for l in r.stderr.splitlines() if os.path.join(d, "hot") in l]
    check(r.returncode == 0 and "mix" not in names and len(warns) == 1 and
          "segment" in warns[0],
          f"{how}: a build of another layout is not used, one warning ({r.stderr.strip()[:300]})")

# --- the binary in a search directory ----------------------------------------------------------
right = top_tsv(prof)
for how, args, env in [("--binary-path", ["--binary-path", sym], None),
                       ("--binary-path DIR:DIR", ["--binary-path", empty + ":" + sym], None),
                       ("PROFPACK_BINARY_PATH", [], dict(os.environ, PROFPACK_BINARY_PATH=sym))]:
    r = subprocess.run([os.environ["PROFPACK_CLI"], "top", hp, "--tsv", "-n", "1000", *args],
                       capture_output=True, text=True, env=env)
    rows = {l.split("\t")[4]: (int(l.split("\t")[0]), int(l.split("\t")[1]))
            for l in r.stdout.splitlines()}
    check(all(rows.get(n) == v for n, v in ref.items()),
          f"{how}: names as at the recorded path ({r.stderr.strip()[:200]})")

# --- convert equals symbolize, then convert ----------------------------------------------------
sppk = os.path.join(tmp, "s.ppk")
r = run("symbolize", hp, "--binary-path", sym, "-o", sppk)
check(r.returncode == 0, f"symbolize ({r.stderr.strip()[:200]})")
for ext in ["pb.gz", "folded", "callgrind", "ppk"]:
    a, b = os.path.join(tmp, "a." + ext), os.path.join(tmp, "b." + ext)
    ra = run("convert", hp, "--binary-path", sym, "-o", a)
    rb = run("convert", sppk, "-o", b) if ext != "ppk" else None
    if ext == "ppk":
        b = sppk
    same = os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read()
    check(ra.returncode == 0 and (rb is None or rb.returncode == 0) and same,
          f"convert -o x.{ext} writes what symbolize and convert write")
back = os.path.join(tmp, "back.prof")
r = run("convert", hp, "--binary-path", sym, "-o", back)
check(r.returncode == 0 and open(back, "rb").read() == hot_prof,
      "a gperftools rewrite is the original")
# --- DCPI: an image's text, named on read as symbolize names it ------------------------------
dcpi = os.path.join(tmp, "hot.dcpi")
dcpi_of_text(os.path.join(sym, "hot"), dcpi)
named = top_tsv(dcpi, "--binary-path", sym)
r = run("symbolize", dcpi, "--binary-path", sym, "-o", os.path.join(tmp, "dcpi.ppk"))
check(r.returncode == 0 and "mix" in named and named == top_tsv(os.path.join(tmp, "dcpi.ppk")),
      f"DCPI: top names what symbolize names ({sorted(named)[:5]})")
shutil.rmtree(tmp)
finish()
