#!/usr/bin/env python3
"""A long perf.data costs memory for its distinct stacks, not for its samples, and reads to the
same figures as its parts. The long recordings are made here from the committed multi-process
one (tests/data/perf/procs.data) by tests/perf_repeat.py: its records K times over, later in
time each copy, as the same processes run again or (--new-processes) as new ones.

- The folded stacks of K copies are those of one copy with K times the counts, in both shapes
  (the reader applies records a round at a time, and a mapping made again as it was is one
  mapping).
- Kept as .ppk (300 copies: its function layer is kept beside the IR), the same stacks.
- Peak memory: from 100 to 800 copies of the same processes (the same distinct stacks, eight
  times the samples, 46 MB more input), `convert --to folded` may grow by at most a quarter of the
  input's growth (the sample timeline the IR keeps is about 8 bytes a sample; the input's
  records are about 77). New processes add their own threads, mappings and frames, and a row
  per thread and stack: at most three quarters of the input's growth there (measured 0.30x on
  an earlier recording, 0.49-0.52x on this one, whose processes' threads have more stacks each;
  per-sample rows of 48 bytes, as the reader once kept, would add 0.6x more). A reader that held
  the file's records, or kept the input's pages resident, grows by more than the input.
Needs no perf. --no-memory: the figures only (under the sanitizers)."""
import os, subprocess, sys, tempfile
from collections import Counter

from checklib import check, cli, data, finish

src = os.path.join(data, "perf", "procs.data")
repeat = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perf_repeat.py")
SMALL, BIG = 100, 800


def folded(path, tmp):
    out = os.path.join(tmp, "out.folded")
    subprocess.run([cli, "convert", path, "--no-symbolize", "--to", "folded", "-o", out],
                   check=True, timeout=300)
    lines = Counter()
    for line in open(out):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        lines[stack] += int(n)
    return lines


def peak_kb(args):
    """Peak resident set of one run of the CLI, in KB (bench/timeit.c: "WALL_NS KB" to a file)."""
    with tempfile.NamedTemporaryFile("r") as figures:
        r = subprocess.run([os.environ["PROFPACK_PEAK_RSS"], figures.name] + args,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=300)
        if r.returncode != 0:
            raise SystemExit(f"{args}: exit {r.returncode}: {r.stderr}")
        return int(figures.read().split()[1])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        one = folded(src, tmp)
        check(len(one) > 10, f"procs.data folds to {len(one)} stacks")
        # Kept as .ppk (an IR of 1 MiB and more, as 300 copies make, keeps its function layer
        # beside it, which the folded writer then reads): the same stacks, with the frames no
        # symbol names written as the others are.
        copies, ppk = os.path.join(tmp, "300.data"), os.path.join(tmp, "300.ppk")
        subprocess.run([sys.executable, repeat, src, copies, "300"], check=True, timeout=300)
        subprocess.run([cli, "convert", copies, "--no-symbolize", "-o", ppk], check=True,
                       timeout=300)
        kept = folded(ppk, tmp)
        check(kept == Counter({s: 300 * n for s, n in one.items()}) and
              any("[ld-linux" in s for s in kept),
              f"300 copies kept as .ppk fold to 300 x one copy's {len(one)} stacks")
        files = {}
        counts = (3,) if "--no-memory" in sys.argv else (3, SMALL, BIG)
        for new in (False, True):
            shape = "new processes" if new else "same processes"
            for k in counts:
                path = os.path.join(tmp, f"{k}{'n' if new else 's'}.data")
                subprocess.run([sys.executable, repeat, src, path, str(k)] +
                               (["--new-processes"] if new else []), check=True, timeout=300)
                files[new, k] = path
            got = folded(files[new, 3], tmp)
            want = Counter({s: 3 * n for s, n in one.items()})
            check(got == want, f"{shape}: 3 copies fold to 3 x one copy's counts "
                  f"({sum(got.values())} against {sum(want.values())} samples, "
                  f"{len(set(got) ^ set(want))} stacks in one only)")
            if "--no-memory" in sys.argv:
                continue
            small, big = files[new, SMALL], files[new, BIG]
            grow_in = os.path.getsize(big) - os.path.getsize(small)
            run = [cli, "convert", "--no-symbolize", "--to", "folded", "-o",
                   os.path.join(tmp, "x.folded")]
            # Medians of three: a peak is page-granular, and the heap grows in steps.
            a = sorted(peak_kb(run + [small]) for _ in range(3))[1]
            b = sorted(peak_kb(run + [big]) for _ in range(3))[1]
            limit = 0.75 if new else 0.25
            check((b - a) * 1024 <= limit * grow_in,
                  f"{shape}: {SMALL} -> {BIG} copies: peak memory {a} -> {b} KB, "
                  f"{(b - a) * 1024 / grow_in:.3f} x the input's growth of {grow_in} bytes "
                  f"(at most {limit})")
    finish()


if __name__ == "__main__":
    main()
