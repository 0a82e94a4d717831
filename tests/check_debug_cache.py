#!/usr/bin/env python3
"""The cache of decompressed debug files (lib/symbolize/debugfile.cpp). A build of hot
(tests/data/symbolize) is split as distributions ship it: the program without its DWARF, and a
separate debug file with compressed sections beside it (.gnu_debuglink), made here with objcopy.
Naming hot.prof from them must give the figures, files and lines the whole binary gives, and:

- the first naming leaves a copy of the debug file, by build id, with no compressed section;
- a later one uses the copy (it names the lines with the debug file gone);
- a copy cut short is not used: it is made again, whole;
- PROFPACK_DEBUG_CACHE=off keeps nothing, and without it the copy goes under
  $XDG_CACHE_HOME/profpack/debug, else $HOME/.cache/profpack/debug;
- a debug file without compressed sections is used as it is, and not copied;
- past PROFPACK_DEBUG_CACHE_SIZE bytes, the copies used longest ago are removed;
- a temporary file of the cache's more than a day old (a writer killed) is removed when a copy
  is made; a newer one, and one named otherwise, stays.
"""
import os, re, shutil, subprocess, tempfile

from checklib import check, cli, data, finish

sym = os.path.join(data, "symbolize")
tmp = tempfile.mkdtemp(prefix="profpack-debug-cache-")


def sh(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def top(bins, **env):
    e = {k: v for k, v in os.environ.items()
         if k not in ("PROFPACK_DEBUG_CACHE", "XDG_CACHE_HOME", "HOME")}
    e.update(env)
    r = subprocess.run([cli, "top", os.path.join(sym, "hot.prof"), "--binary-path", bins,
                        "--tsv", "-n", "1000"], capture_output=True, text=True, env=e)
    return r.stdout if r.returncode == 0 else "exit %d: %s" % (r.returncode, r.stderr)


def compressed(path):
    """The names of `path`'s sections with the SHF_COMPRESSED flag (readelf's C)."""
    out = sh("readelf", "-SW", path)
    flagged = r"^\s*\[\s*\d+\]\s+(\S+)\s.*\s([A-Z]*C[A-Z]*)\s+\d+\s+\d+\s+\d+\s*$"
    return [m.group(1) for m in re.finditer(flagged, out, re.M)]


if not shutil.which("objcopy"):
    print("objcopy not installed (binutils)")
    finish()

build_id = re.search(r"Build ID: ([0-9a-f]+)",
                     sh("readelf", "-n", os.path.join(sym, "hot"))).group(1)
# The reference: the whole binary, its DWARF in it.
whole = os.path.join(tmp, "whole")
os.mkdir(whole)
shutil.copy(os.path.join(sym, "hot"), whole)
want = top(whole, PROFPACK_DEBUG_CACHE="off")
check(re.search(r"\tmix\t", want) and re.search(r"hot\.c\tmix\t", want),
      f"the whole binary names mix in hot.c ({want.splitlines()[:2]})")

# The split build: bins/hot stripped of DWARF, with a debug link to bins/hot.debug.
bins = os.path.join(tmp, "bins")
os.mkdir(bins)
debug = os.path.join(bins, "hot.debug")
sh("objcopy", "--only-keep-debug", "--compress-debug-sections=zlib", os.path.join(sym, "hot"),
   debug)
sh("objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug, os.path.join(sym, "hot"),
   os.path.join(bins, "hot"))
check(".debug_info" in compressed(debug) and not compressed(os.path.join(bins, "hot")),
      f"objcopy made a debug file with compressed sections ({compressed(debug)})")

# Naming from symbol tables only reads the debug file of a binary stripped of its symbol table
# for that table (as libc's .so has only .dynsym): it is read as it is, nothing is copied.
stripped = os.path.join(tmp, "stripped")
os.mkdir(stripped)
shutil.copy(debug, stripped)
sh("objcopy", "--strip-all", "--add-gnu-debuglink=" + os.path.join(stripped, "hot.debug"),
   os.path.join(sym, "hot"), os.path.join(stripped, "hot"))
tables_cache = os.path.join(tmp, "tables-cache")
e = dict(os.environ, PROFPACK_DEBUG_CACHE=tables_cache)
r = subprocess.run([cli, "top", os.path.join(sym, "hot.prof"), "--binary-path", stripped,
                    "--tsv", "--symbol-tables-only"], capture_output=True, text=True, env=e)
check("\tmix\t" in r.stdout and not os.path.exists(tables_cache),
      "--symbol-tables-only names mix from the debug file's symbol table and copies nothing "
      f"({os.listdir(tables_cache) if os.path.exists(tables_cache) else 'no directory'})")

cache = os.path.join(tmp, "cache")
copy = os.path.join(cache, build_id + ".debug")
first = top(bins, PROFPACK_DEBUG_CACHE=cache)
check(first == want, "named from the split build as from the whole binary")
# (The profile's libc is named too: its copy is there where the system's debug file is.)
check(os.path.isfile(copy) and all(re.fullmatch(r"[0-9a-f]{40}\.debug", n) for n in os.listdir(cache)),
      "the first naming leaves a copy named by build id "
      f"({os.listdir(cache) if os.path.isdir(cache) else 'no directory'})")
check(os.path.isfile(copy) and not compressed(copy) and
      f"Build ID: {build_id}" in sh("readelf", "-n", copy),
      "the copy has the build id and no compressed section")

# The copy is used: with the debug file gone, the lines are still named.
os.rename(debug, debug + ".away")
check(top(bins, PROFPACK_DEBUG_CACHE=cache) == want,
      "a later naming uses the copy (the debug file moved away)")
os.rename(debug + ".away", debug)

# A copy cut short is not used: made again from the debug file, whole.
size = os.path.getsize(copy)
with open(copy, "r+b") as f:
    f.truncate(size // 2)
check(top(bins, PROFPACK_DEBUG_CACHE=cache) == want, "a copy cut short: the same names")
check(os.path.getsize(copy) == size and not compressed(copy),
      f"and the copy is made again, whole ({os.path.getsize(copy)} of {size} bytes)")
# Not an ELF file at all (another program's garbage in the directory under that name).
with open(copy, "wb") as f:
    f.write(b"not an ELF file\n")
check(top(bins, PROFPACK_DEBUG_CACHE=cache) == want and os.path.getsize(copy) == size,
      "a copy that is not ELF: the same names, and the copy made again")

# A file in the directory that the cache did not name is never removed, even over the size.
mine = os.path.join(cache, "my-notes.debug")
with open(mine, "w") as f:
    f.write("x" * 100000)
os.remove(copy)
check(top(bins, PROFPACK_DEBUG_CACHE=cache, PROFPACK_DEBUG_CACHE_SIZE="1") == want and
      os.path.exists(mine), "a file not named by the cache stays, whatever the size limit")
# A directory others may write to is not used.
shared = os.path.join(tmp, "shared")
os.makedirs(shared)
os.chmod(shared, 0o777)
check(top(bins, PROFPACK_DEBUG_CACHE=shared) == want and os.listdir(shared) == [],
      "a directory others may write to: the same names, nothing kept there")

# off: nothing kept; else XDG_CACHE_HOME, else HOME.
home = os.path.join(tmp, "home")
os.mkdir(home)
check(top(bins, PROFPACK_DEBUG_CACHE="off", HOME=home) == want and os.listdir(home) == [],
      "PROFPACK_DEBUG_CACHE=off: the same names, nothing kept")
xdg = os.path.join(tmp, "xdg")
check(top(bins, XDG_CACHE_HOME=xdg, HOME=home) == want and
      os.path.isfile(os.path.join(xdg, "profpack", "debug", build_id + ".debug")),
      "without it, the copy goes under $XDG_CACHE_HOME/profpack/debug")
check(top(bins, HOME=home) == want and
      os.path.isfile(os.path.join(home, ".cache", "profpack", "debug", build_id + ".debug")),
      "and without that, under $HOME/.cache/profpack/debug")

# A debug file whose sections are not compressed is read as it is.
plain = os.path.join(tmp, "plain")
os.mkdir(plain)
sh("objcopy", "--only-keep-debug", os.path.join(sym, "hot"), os.path.join(plain, "hot.debug"))
sh("objcopy", "--strip-debug", "--add-gnu-debuglink=" + os.path.join(plain, "hot.debug"),
   os.path.join(sym, "hot"), os.path.join(plain, "hot"))
cache2 = os.path.join(tmp, "cache2")
check(top(plain, PROFPACK_DEBUG_CACHE=cache2) == want and
      not os.path.exists(os.path.join(cache2, build_id + ".debug")),
      "an uncompressed debug file: the same names, no copy made")

# Over PROFPACK_DEBUG_CACHE_SIZE, the copies used longest ago go: chain's copy (another
# program, split the same way, named from chain.prof) after hot's, in a directory kept to one
# copy's size.
split2 = os.path.join(tmp, "split2")
os.mkdir(split2)
sh("objcopy", "--only-keep-debug", "--compress-debug-sections=zlib",
   os.path.join(sym, "chain"), os.path.join(split2, "chain.debug"))
sh("objcopy", "--strip-debug", "--add-gnu-debuglink=" + os.path.join(split2, "chain.debug"),
   os.path.join(sym, "chain"), os.path.join(split2, "chain"))
chain_id = re.search(r"Build ID: ([0-9a-f]+)",
                     sh("readelf", "-n", os.path.join(sym, "chain"))).group(1)
def chain_top(cache_dir, **env):
    return subprocess.run([cli, "top", os.path.join(sym, "chain.prof"), "--binary-path", split2,
                           "--tsv"], capture_output=True, text=True,
                          env=dict(os.environ, PROFPACK_DEBUG_CACHE=cache_dir, **env))


probe = os.path.join(tmp, "probe")
chain_top(probe)
chain_size = os.path.getsize(os.path.join(probe, chain_id + ".debug"))
small = os.path.join(tmp, "small")
os.makedirs(small)
top(bins, PROFPACK_DEBUG_CACHE=small)
# What the directory holds (hot's copy, and libc's where its debug file is installed, which
# the profiles name too), then chain's: room for all but hot's.
held = sum(os.path.getsize(os.path.join(small, n)) for n in os.listdir(small))
hot_size = os.path.getsize(os.path.join(small, build_id + ".debug"))
os.utime(os.path.join(small, build_id + ".debug"), (1, 1))  # used long ago
r = chain_top(small, PROFPACK_DEBUG_CACHE_SIZE=str(held - hot_size + chain_size))
left = sorted(n for n in os.listdir(small) if n.startswith((build_id, chain_id)))
check("chain.c\tspin\t" in r.stdout and left == [chain_id + ".debug"],
      f"over PROFPACK_DEBUG_CACHE_SIZE the copy used longest ago goes ({left})")

# Temporary files a killed writer left: the cache's more than a day old go when a copy is made
# (AtomicFile's names, and the older ".PID-N.tmp"); a newer one may be another writer's, and a
# file named otherwise is not the cache's.
stale = os.path.join(tmp, "stale")
os.makedirs(stale)
names = {"old": build_id + ".debug.123-4-9abcdef0.tmp", "older": build_id + ".debug.123-4.tmp",
         "new": build_id + ".debug.123-5-9abcdef0.tmp", "other": build_id + ".debug.notes.tmp"}
for k, n in names.items():
    with open(os.path.join(stale, n), "w") as f:
        f.write("part of a copy")
    if k != "new":
        os.utime(os.path.join(stale, n), (1, 1))
check(top(bins, PROFPACK_DEBUG_CACHE=stale) == want, "temporary files about: the same names")
left = sorted(n for n in os.listdir(stale) if n.endswith(".tmp"))
check(left == sorted([names["new"], names["other"]]),
      f"a day-old temporary file of the cache's goes, a newer one and another's stay ({left})")

shutil.rmtree(tmp)
finish()
