#!/usr/bin/env python3
"""Files that outlive releases (docs/compatibility.md): every .ppk and .ppka revision ever
released has files in tests/data/compat/ppk-rN/ and ppka-rN/, written by the release that
introduced the revision and never made again. This build must read each one with the figures
kept beside it:
  X.ppk    X.ppk.top.json          `profpack top --json -n 100 --no-symbolize X.ppk`, less "file"
  A.ppka   A.ppka.list.json        `profpack archive list --json A.ppka`
           A.ppka.ID.top.json      the same `top --json` of member ID, extracted as .ppk
It also fails where this build writes a revision that has no folder of files yet: a revision
change cannot land without files of the new revision (and a reader of the old ones, which
this test then reads).
  PROFPACK_CLI=build/tools/profpack PROFPACK_TEST_DATA=tests/data python3 tests/check_compat.py
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

cli = os.environ["PROFPACK_CLI"]
data = os.environ["PROFPACK_TEST_DATA"]
compat = os.path.join(data, "compat")
counts = {"passed": 0, "failed": 0}
# Revisions before the first release, never promised (docs/compatibility.md): .ppk revision 1.
PRE_RELEASE = {"ppk": {1}, "ppka": set()}


def check(ok, what):
    counts["passed" if ok else "failed"] += 1
    print("ok  " if ok else "FAIL", what)


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True)


def revision(path):
    with open(path, "rb") as f:
        head = f.read(12)
    return struct.unpack_from("<I", head, 8)[0] if len(head) == 12 else None


def top(path):
    r = run("top", path, "--json", "-n", "100", "--no-symbolize")
    if r.returncode != 0:
        return None, r.stderr.strip()
    got = json.loads(r.stdout)
    got.pop("file", None)  # the path it was given
    return got, ""


def figures(top):
    """What a revision must keep: the event, its total and each function's name, place and
    costs (fields that top --json gains later do not count)."""
    if not isinstance(top, dict):
        return top  # archive list --json: compared whole
    keys = ("name", "file", "object", "self", "inclusive", "calls")
    return (top.get("event"), top.get("total"), top.get("units_per_second"),
            [tuple(f.get(k) for k in keys) for f in top.get("functions", [])])


def same_json(got, path):
    with open(path) as f:
        return figures(got) == figures(json.load(f))


def check_ppk(path, rev):
    check(revision(path) == rev, f"{path}: header says IR revision {rev}")
    got, err = top(path)
    check(got is not None and same_json(got, path + ".top.json"),
          f"{path}: top --json as {os.path.basename(path)}.top.json" + (f" ({err})" if err else ""))


def check_ppka(path, rev, tmp):
    check(revision(path) == rev, f"{path}: header says archive revision {rev}")
    r = run("archive", "verify", path)
    check(r.returncode == 0, f"{path}: verify ({(r.stdout + r.stderr).strip()})")
    r = run("archive", "list", "--json", path)
    listed = json.loads(r.stdout) if r.returncode == 0 else None
    check(listed is not None and same_json(listed, path + ".list.json"),
          f"{path}: list --json as {os.path.basename(path)}.list.json {r.stderr.strip()}")
    for m in listed or []:
        out = os.path.join(tmp, f"member{m['id']}.ppk")
        r = run("archive", "extract", path, str(m["id"]), "-o", out)
        got, err = top(out) if r.returncode == 0 else (None, r.stderr.strip())
        check(got is not None and same_json(got, f"{path}.{m['id']}.top.json"),
              f"{path}: member {m['id']} ({m['format']}) top --json as expected {err}")


def written_revisions(tmp):
    """The .ppk and .ppka revisions this build writes."""
    src = os.path.join(data, "gperftools", "workload.64le.prof")
    ppk, ppka = os.path.join(tmp, "now.ppk"), os.path.join(tmp, "now.ppka")
    run("convert", src, "-o", ppk)
    run("archive", "add", ppka, src, "--time", "1")
    return {"ppk": revision(ppk), "ppka": revision(ppka)}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        found = {"ppk": set(), "ppka": set()}
        for d in sorted(os.listdir(compat)):
            m = re.fullmatch(r"(ppka?)-r(\d+)", d)
            if not m:
                continue
            kind, rev = m.group(1), int(m.group(2))
            files = sorted(f for f in os.listdir(os.path.join(compat, d)) if f.endswith("." + kind))
            check(len(files) > 0, f"{d}: holds .{kind} files")
            if files:
                found[kind].add(rev)
            for f in files:
                path = os.path.join(compat, d, f)
                check_ppk(path, rev) if kind == "ppk" else check_ppka(path, rev, tmp)
        now = written_revisions(tmp)
        for kind in ("ppk", "ppka"):
            cur = now[kind]
            check(cur in found[kind],
                  f"this build writes .{kind} revision {cur}: tests/data/compat/{kind}-r{cur} "
                  f"holds files of it")
            missing = [r for r in range(1, (cur or 0) + 1)
                       if r not in found[kind] and r not in PRE_RELEASE[kind]]
            check(not missing, f".{kind} revisions 1..{cur}: every released one has files"
                  + (f" (missing: {missing})" if missing else ""))
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    sys.exit(1 if counts["failed"] else 0)


main()
