"""The tables (functions, stacks, lines) as named tuples and as pyarrow tables, against each
other and against the CLI's figures ($PROFPACK_CLI: top --json, annotate --json, convert to
collapsed stacks) on a profile of several formats."""
import json
import os
import subprocess

import pytest

import profpack

pa = pytest.importorskip("pyarrow")

DATA = os.environ["PROFPACK_TEST_DATA"]
CLI = os.environ["PROFPACK_CLI"]
SAMPLES = ["callgrind/callgrind.workload.out", "cachegrind/cachegrind.workload.out",
           "gperftools/workload.64le.prof", "xray/fdr-v5-st.xray", "dcpi/medium.dcpi",
           "pprof/go-cpu.pb.gz", "cpuprofile/work.cpuprofile"]
# Formats that record no call stacks: they have no collapsed-stacks form.
UNSTACKED = ["callgrind/callgrind.workload.out", "cachegrind/cachegrind.workload.out",
             "dcpi/medium.dcpi"]
STACKED = [s for s in SAMPLES if s not in UNSTACKED]


def cli(*args):
    return json.loads(subprocess.run([CLI, *args, "--json"], check=True,
                                     capture_output=True, text=True).stdout)


# Not medium.dcpi: its 51,387 functions take the Python rows seconds to build, twice, on a
# loaded machine; the other six formats cover the table.
@pytest.mark.parametrize("sample", [s for s in SAMPLES if not s.startswith("dcpi/")])
def test_functions_as_top_json(sample):
    path = os.path.join(DATA, sample)
    with profpack.read(path) as p:
        events = [e.name for e in p.events()]
        rows = p.functions()
        table = p.functions(arrow=True)
    # The Arrow table holds the rows, column by column.
    assert table.num_rows == len(rows) > 0
    assert table.column("id").to_pylist() == [r.id for r in rows]
    for col in ("name", "file", "object", "line", "calls"):
        assert table.column(col).to_pylist() == [getattr(r, col) for r in rows], col
    for j, e in enumerate(events):
        assert table.column("self_" + e).to_pylist() == [r.self[j] for r in rows]
        assert table.column("inclusive_" + e).to_pylist() == [r.inclusive[j] for r in rows]
    # Each event's figures are top --json's (every function it lists; the others cost 0).
    for j, e in enumerate(events):
        want = {f["id"]: (f["name"], f["file"], f["object"], f["line"], f["calls"], f["self"],
                          f["inclusive"])
                for f in cli("top", path, "--event", e, "-n", "1000000")["functions"]}
        got = {r.id: (r.name, r.file, r.object, r.line, r.calls, r.self[j], r.inclusive[j])
               for r in rows}
        assert {i: got[i] for i in want} == want, e
        assert all(g[5] == 0 and g[6] == 0 for i, g in got.items() if i not in want), e


def folded_of_cli(path, tmp_path):
    out = tmp_path / "cli.folded"
    subprocess.run([CLI, "convert", path, "-o", str(out), "--to", "folded"], check=True,
                   capture_output=True)
    rows = []
    for line in out.read_text("utf-8", "surrogateescape").splitlines():
        stack, _, count = line.rpartition(" ")
        rows.append((tuple(stack.split(";")), int(count)))
    return rows


@pytest.mark.parametrize("sample", STACKED)
def test_stacks_as_collapsed_conversion(sample, tmp_path):
    path = os.path.join(DATA, sample)
    with profpack.read(path) as p:
        rows = p.stacks()
        table = p.stacks(arrow=True)
        first = p.events()[0]
    assert len(rows) > 0
    assert table.column("stack").to_pylist() == [list(r.frames) for r in rows]
    assert table.column("value").to_pylist() == [r.value for r in rows]
    assert [(r.frames, r.value) for r in rows] == folded_of_cli(path, tmp_path)
    assert sum(r.value for r in rows) == first.total == \
        cli("info", path)["events"][0]["total"]


@pytest.mark.parametrize("sample", UNSTACKED)
def test_stacks_of_a_format_without_them(sample):
    with profpack.read(os.path.join(DATA, sample)) as p, \
            pytest.raises(profpack.UnsupportedError, match="call stacks"):
        p.stacks()


def test_lines_count_each_cost_once():
    # Callgrind gives every cost a file: the rows add up to the totals, a header included by
    # two spellings (/tmp/hunt/inc/hdr.h, /tmp/hunt/inc/sub/../hdr.h) once.
    for sample in ["callgrind/callgrind.workload.out", "annotate/callgrind.incl.out"]:
        with profpack.read(os.path.join(DATA, sample)) as p:
            rows = p.lines()
            files = p.source_files()
            totals = [e.total for e in p.events()]
        assert files == sorted(set(r.file for r in rows))
        assert [sum(r.costs[j] for r in rows) for j in range(len(totals))] == totals
        assert len([f for f in files if f.endswith("hdr.h")]) == \
            (1 if "incl" in sample else 0)


@pytest.mark.parametrize("sample", SAMPLES)
def test_lines_as_annotate_json(sample):
    path = os.path.join(DATA, sample)
    with profpack.read(path) as p:
        events = [e.name for e in p.events()]
        rows = p.lines()
        table = p.lines(arrow=True)
    if sample.startswith(("callgrind/", "cachegrind/")):  # formats with per-line costs
        assert rows
    assert table.column("file").to_pylist() == [r.file for r in rows]
    assert table.column("line").to_pylist() == [r.line for r in rows]
    for j, e in enumerate(events):
        assert table.column(e).to_pylist() == [r.costs[j] for r in rows]
    # The two costliest files, the first two events: annotate --json's per-line self costs.
    by_file = {}
    for r in rows:
        by_file.setdefault(r.file, []).append(r)
    costly = sorted(by_file, key=lambda f: -sum(r.costs[0] for r in by_file[f]))[:2]
    for file in costly:
        for j, e in enumerate(events[:2]):
            want = {x["line"]: x["cost"] for x in
                    cli("annotate", path, "--source", file, "--event", e)["lines"] if x["cost"]}
            got = {r.line: r.costs[j] for r in by_file[file] if r.costs[j]}
            assert got == want, (file, e)
