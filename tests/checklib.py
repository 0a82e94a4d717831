"""What the reference-tool checks written in Python share: the CLI under test, the test data,
ok/FAIL lines with a count at the end, and the CLI's figures as Python values."""
import os, subprocess, sys

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


def run(*args):
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
