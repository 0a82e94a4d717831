"""The Parquet export of an archive (profpack.parquet, python -m profpack export-parquet),
read back with pyarrow.dataset, against the CLI ($PROFPACK_CLI): each member's figures are
`top --json` of that member extracted with `archive extract`, its columns and partitions
are the labels `archive list --json` gives."""
import collections
import json
import os
import subprocess
import sys
import urllib.parse

import pytest

pa = pytest.importorskip("pyarrow")
import pyarrow.dataset as ds  # noqa: E402

import profpack  # noqa: E402
import profpack.parquet  # noqa: E402

DATA = os.environ["PROFPACK_TEST_DATA"]
CLI = os.environ["PROFPACK_CLI"]
# Members of five formats. "host" is missing on one member and looks like a number on
# another; "event" is also a column of the table, so it is exported as label_event.
MEMBERS = [
    ("callgrind/callgrind.workload.out", ["service=api", "host=a"], 1700000000),
    ("pprof/go-cpu.pb.gz", ["service=web", "host=7"], 1700000100),
    ("gperftools/workload.64le.prof", ["service=api", "host=b"], 1700000200),
    ("cpuprofile/work.cpuprofile", ["host=c"], 1700000300),
    ("cachegrind/cachegrind.workload.out", ["service=web", "event=x"], 1700000400),
]


def run(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("archive") / "fleet.ppka")
    for sample, labels, time in MEMBERS:
        args = ["archive", "add", path, os.path.join(DATA, sample), "--time", str(time)]
        for label in labels:
            args += ["--label", label]
        run(*args)
    return path


FIGURES = {}


def member_figures(archive, member_id, tmp_path):
    """{event: sorted (function, file, object, self, inclusive)} of `top --json` of the
    member extracted, and its collapsed stacks (None where its format records none); once
    per member for the module's archive."""
    if (archive, member_id) not in FIGURES:
        FIGURES[archive, member_id] = cli_figures(archive, member_id, tmp_path)
    return FIGURES[archive, member_id]


def cli_figures(archive, member_id, tmp_path):
    ppk = str(tmp_path / ("m%d.ppk" % member_id))
    run("archive", "extract", archive, str(member_id), "-o", ppk)
    info = json.loads(run("info", ppk, "--json"))
    out = {}
    for e in info["events"]:
        top = json.loads(run("top", ppk, "--json", "--event", e["name"], "-n", "1000000"))
        out[e["name"]] = sorted((f["name"], f["file"], f["object"], f["self"], f["inclusive"])
                                for f in top["functions"] if f["self"] or f["inclusive"])
    folded = tmp_path / ("m%d.folded" % member_id)
    r = subprocess.run([CLI, "convert", ppk, "-o", str(folded), "--to", "folded"],
                       capture_output=True, text=True)
    stacks = None
    if r.returncode == 0:
        stacks = sorted((tuple(line.rpartition(" ")[0].split(";")), int(line.rpartition(" ")[2]))
                        for line in folded.read_text().splitlines())
    else:
        assert "call stacks" in r.stderr
    return out, stacks


def partition_of(path, base):
    """{key: value} of the Hive directories of a file `path` under `base`."""
    rel = os.path.relpath(os.path.dirname(path), base)
    return dict(urllib.parse.unquote(seg).split("=", 1) for seg in rel.split(os.sep))


def check_export(archive, out, tmp_path):
    listed = {m["id"]: m for m in json.loads(run("archive", "list", archive, "--json"))}
    assert len(listed) == len(MEMBERS)
    functions = profpack.parquet.read_dataset(os.path.join(out, "functions"))
    stacks = profpack.parquet.read_dataset(os.path.join(out, "stacks"))
    keys = ["service", "host", "label_event"]
    for name, dataset in (("functions", functions), ("stacks", stacks)):
        # The partitions are each member's labels; a member without one is the default.
        for fragment in dataset.get_fragments():
            t = fragment.to_table(columns=["member_id"])
            part = partition_of(fragment.path, os.path.join(out, name))
            for mid in set(t.column("member_id").to_pylist()):
                labels = listed[mid]["labels"]
                assert part == {k: labels.get(k, "__HIVE_DEFAULT_PARTITION__")
                                for k in ("service", "host")}, (name, mid)
        assert dataset.schema.field("host").type == pa.string()
    table = functions.to_table()
    assert set(table.column("member_id").to_pylist()) == set(listed)
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    members = {}
    for r in table.to_pylist():
        rows[r["member_id"]][r["event"]].append((r["function"], r["file"], r["object"], r["self"],
                                                 r["inclusive"]))
        members.setdefault(r["member_id"], set()).add(
            (r["format"], int(r["time"].timestamp()), tuple(r[k] for k in keys)))
    stack_rows = collections.defaultdict(list)
    for r in stacks.to_table().to_pylist():
        stack_rows[r["member_id"]].append((tuple(r["stack"]), r["value"]))
    for mid, m in listed.items():
        labels = dict(m["labels"], label_event=m["labels"].get("event"))
        assert members[mid] == {(m["format"], m["time"], tuple(labels.get(k) for k in keys))}
        want, want_stacks = member_figures(archive, mid, tmp_path)
        assert {e: sorted(v) for e, v in rows[mid].items()} == want, mid
        assert sorted(stack_rows[mid]) == (want_stacks or []), mid


def test_export_archive_as_cli(archive, tmp_path):
    out = str(tmp_path / "out")
    written = profpack.parquet.export_archive(archive, out, partition_by=("service", "host"),
                                              stacks=True)
    assert written == {"functions": os.path.join(out, "functions"),
                       "stacks": os.path.join(out, "stacks")}
    check_export(archive, out, tmp_path)
    # A second export to the same place is refused unless asked to replace.
    with pytest.raises(pa.ArrowInvalid, match="not empty"):
        profpack.parquet.export_archive(archive, out, partition_by=("service",))


def test_python_m_profpack_export_parquet(archive, tmp_path):
    out = str(tmp_path / "cli-out")
    r = subprocess.run([sys.executable, "-m", "profpack", "export-parquet", archive, out,
                        "--partition-by", "service", "--partition-by", "host", "--stacks"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("functions: ")
    check_export(archive, out, tmp_path)
    r = subprocess.run([sys.executable, "-m", "profpack", "export-parquet", archive,
                        str(tmp_path / "x"), "--partition-by", "region"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "no member" in r.stderr and "'region'" in r.stderr


def test_export_without_partitions_of_some_members(archive, tmp_path):
    out = str(tmp_path / "two")
    profpack.parquet.export_archive(archive, out, members=[1, 4])
    t = ds.dataset(os.path.join(out, "functions"), format="parquet").to_table()
    assert sorted(set(t.column("member_id").to_pylist())) == [2, 5]
    assert [f.name for f in t.schema][:6] == ["member_id", "format", "time", "service", "host",
                                              "label_event"]
