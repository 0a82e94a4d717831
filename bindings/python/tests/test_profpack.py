"""The Python binding against the CLI's --json figures ($PROFPACK_CLI), on a profile of every
readable format in tests/data; errors; resource warnings."""
import gc
import json
import os
import subprocess
import warnings

import pytest

import profpack

DATA = os.environ["PROFPACK_TEST_DATA"]
CLI = os.environ["PROFPACK_CLI"]
SAMPLES = ["callgrind/callgrind.workload.out", "cachegrind/cachegrind.workload.out",
           "gperftools/workload.64le.prof", "xray/fdr-v5-st.xray", "dcpi/medium.dcpi",
           "pprof/go-cpu.pb.gz", "cpuprofile/work.cpuprofile"]


def cli(*args):
    return json.loads(subprocess.run([CLI, *args, "--json"], check=True,
                                     capture_output=True, text=True).stdout)


@pytest.mark.parametrize("sample", SAMPLES)
def test_events_and_top_as_cli(sample):
    path = os.path.join(DATA, sample)
    with profpack.read(path) as p:
        events = [(e.name, e.total) for e in p.events()]
        top = [(r.costs[0].self, r.name) for r in p.top(limit=5)]
        assert p.format != profpack.Format.UNKNOWN
    assert events == [(e["name"], e["total"]) for e in cli("info", path)["events"]]
    assert top == [(f["self"], f["name"]) for f in cli("top", path, "-n", "5")["functions"]]


def test_top_functions_with_a_limit_past_the_functions():
    # Room for the functions there are: a limit of 10**12 asked for 8 TB before.
    with profpack.read(os.path.join(DATA, SAMPLES[0])) as p:
        assert p.top_functions(limit=10**12) == p.top_functions()
        assert len(p.top_functions(limit=3)) == 3


@pytest.mark.parametrize("fmt", ["ppk", "folded", "callgrind", "pprof"])
def test_written_formats_read_back(tmp_path, fmt):
    src = os.path.join(DATA, "pprof/go-cpu.pb.gz")
    with profpack.read(src) as p:
        data = p.write_memory(fmt)
        out = tmp_path / ("out." + fmt)
        p.write_file(out, fmt)
    assert out.read_bytes() == data
    with profpack.read(data) as q, profpack.read(out) as r:
        assert q.equal(r)
        assert [(e.name, e.total) for e in q.events()] == \
            [(e["name"], e["total"]) for e in cli("info", str(out))["events"]]


def test_error_carries_path_format_offset(tmp_path):
    bad = tmp_path / "bad.out"
    src = os.path.join(DATA, "cachegrind/cachegrind.workload.out")
    with open(src, "rb") as f:
        head = f.read()[:200]
    bad.write_bytes(head
                    + b"\nfl=\n1 2 3 4 5 6 7 8 9 10 11 12\n")
    with pytest.raises(profpack.MalformedError) as e:
        profpack.read(bad)
    assert e.value.path == str(bad) and e.value.format == "cachegrind"
    assert e.value.offset is not None and e.value.line is not None
    assert e.value.status == profpack.Status.MALFORMED and str(bad) in str(e.value)
    with pytest.raises(profpack.FileError) as e:
        profpack.read(tmp_path / "missing")
    assert isinstance(e.value, OSError)


def test_closed_and_resource_warning():
    p = profpack.read(os.path.join(DATA, "dcpi/medium.dcpi"))
    p.close()
    with pytest.raises(profpack.ClosedError):
        p.events()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        profpack.read(os.path.join(DATA, "dcpi/medium.dcpi"))
        gc.collect()
    assert any(issubclass(x.category, ResourceWarning) for x in w)


def test_merge_and_tables():
    paths = [os.path.join(DATA, "merge/workload.run1.prof"), os.path.join(DATA, "merge/workload.run2.prof")]
    ps = [profpack.read(x) for x in paths]
    try:
        with profpack.merge(ps) as m, profpack.Merger() as mg:
            for x in ps:
                mg.add(x)
            with mg.finish() as m2:
                assert m.equal(m2)
            rows = m.functions()
            assert sum(r.self[0] for r in rows) == m.events()[0].total
            assert sum(s.value for s in m.stacks()) == m.events()[0].total
    finally:
        for x in ps:
            x.close()


def test_event_units_per_second():
    # A V8 profile's time is in microseconds; its sample count is not time (top --json agrees).
    path = os.path.join(DATA, "cpuprofile/work.cpuprofile")
    with profpack.read(path) as p:
        assert p.event_units_per_second("time") == 1e6
        assert p.event_units_per_second("samples") == 0
        cli = json.loads(subprocess.run([CLI, "top", path, "--json", "--event", "samples"],
                                        capture_output=True, text=True, check=True).stdout)
        assert cli["units_per_second"] == p.event_units_per_second("samples")


def test_archive_merge_diff_function_cost(tmp_path):
    runs = [os.path.join(DATA, "merge/cachegrind.workload.run%d.out" % i) for i in (1, 2)]
    with profpack.Archive(str(tmp_path / "a.ppka"), writable=True) as a:
        profiles = [profpack.read(r) for r in runs]
        try:
            a.add(profiles, labels={"host": "x"}, time=1)
        finally:
            for p in profiles:
                p.close()
        with a.merge([0, 1]) as m, profpack.read(runs[0]) as r1, profpack.read(runs[1]) as r2:
            assert m.events()[0].total == r1.events()[0].total + r2.events()[0].total
        with a.diff([0], [1]) as d, profpack.read(runs[0]) as r1, profpack.read(runs[1]) as r2:
            assert d.events()[0].total == r2.events()[0].total - r1.events()[0].total
        c = a.function_cost(0, "cmp", "Ir")
        cli = json.loads(subprocess.run([CLI, "top", runs[0], "--json", "-n", "100000"],
                                        capture_output=True, text=True, check=True).stdout)
        want = [f for f in cli["functions"] if f["name"] == "cmp"]
        assert c.matched == len(want) >= 1
        assert c.self_cost == sum(f["self"] for f in want)
        assert a.function_cost(0, "no such function").matched == 0


def test_dask_merge_on_a_local_cluster(tmp_path):
    # 200 Cachegrind profiles (two real runs, each copied 100 times) merged by a two-worker
    # LocalCluster in a tree give the figures of `profpack merge` of the same files.
    distributed = pytest.importorskip("distributed")
    import profpack.dask

    runs = [os.path.join(DATA, "merge/cachegrind.workload.run%d.out" % i) for i in (1, 2)]
    texts = []
    for r in runs:
        with open(r, "rb") as f:
            texts.append(f.read())
    paths = []
    for i in range(200):
        p = tmp_path / ("c%03d.out" % i)
        p.write_bytes(texts[i % 2])
        paths.append(str(p))
    ref = str(tmp_path / "ref.ppk")
    subprocess.run([CLI, "merge", *paths, "-o", ref], check=True, capture_output=True)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        with profpack.dask.merge(paths, split_every=8) as merged:
            got = str(tmp_path / "dask.ppk")
            merged.write_file(got)

    def figures(path):
        t = cli("top", path, "-n", "100000")
        return t["total"], sorted((f["name"], f["file"], f["self"], f["inclusive"])
                                  for f in t["functions"])

    assert figures(got) == figures(ref)
    assert figures(got)[0] == 100 * sum(cli("info", r)["events"][0]["total"] for r in runs)


@pytest.mark.parametrize("files_per_task", [1, 3, 16])
def test_dask_graph_leaves(tmp_path, files_per_task):
    # The graph's leaves read one file each (to_ppk) or merge several (merge_files); either
    # way the tree gives profpack.merge's profile (here on Dask's synchronous scheduler).
    pytest.importorskip("dask")
    import profpack.dask

    runs = [os.path.join(DATA, "merge/workload.run%d.prof" % i) for i in (1, 2)]
    paths = [runs[i % 2] for i in range(20)]
    ps = [profpack.read(x) for x in paths]
    try:
        with profpack.merge(ps) as want, \
                profpack.dask.merge(paths, split_every=3, scheduler="sync",
                                    files_per_task=files_per_task) as got:
            assert got.equal(want)
    finally:
        for x in ps:
            x.close()


def test_symbolize_names_kernel_frames_from_kallsyms():
    perf = os.path.join(DATA, "perf")
    opts = profpack.SymbolizeOptions(binary_path=[perf],
                                     kallsyms=os.path.join(perf, "kallsyms.txt"))
    with profpack.read(os.path.join(perf, "spin.data")) as p, p.symbolize(opts) as s:
        functions = s.functions()
    assert {"leaf", "other"} <= {f.name for f in functions}
    # Some function of the kernel's object has a name of the excerpt (not its address).
    with open(os.path.join(perf, "kallsyms.txt")) as table:
        table_names = {line.split()[2] for line in table if len(line.split()) >= 3}
    assert any(f.object.startswith("[kernel.kallsyms]") and f.name in table_names
               for f in functions)


def test_symbol_tables_only_names_without_source_files():
    # perf script's names: the recorded programs' functions without the source file DWARF gives.
    perf = os.path.join(DATA, "perf")
    def files(**kw):
        opts = profpack.SymbolizeOptions(binary_path=[perf], **kw)
        with profpack.read(os.path.join(perf, "spin.data")) as p, p.symbolize(opts) as s:
            return {f.name: f.file for f in s.functions() if f.name in ("leaf", "other")}
    assert set(files()) == {"leaf", "other"} and all(files().values())
    assert files(symbol_tables_only=True) == {"leaf": "", "other": ""}
    read = profpack.ReadOptions(symbolize=True, symbol_tables_only=True, binary_path=[perf])
    with profpack.read(os.path.join(perf, "spin.data"), read) as p:
        assert {f.file for f in p.functions() if f.name in ("leaf", "other")} == {""}


def test_no_lines_names_functions_without_source_files():
    # DWARF's functions, the inlined fold among them, with no file; folded stacks as without it.
    sym = os.path.join(DATA, "symbolize")
    def read(**kw):
        opts = profpack.ReadOptions(symbolize=True, binary_path=[sym], **kw)
        return profpack.read(os.path.join(sym, "hot-inline.prof"), opts)
    with read() as full, read(no_lines=True) as names:
        assert {f.file for f in names.functions() if f.name in ("mix", "fold")} == {""}
        assert full.write_memory("folded") == names.write_memory("folded")
    assert [f.name for f in profpack.formats() if f.writable and not f.writes_lines] == \
        ["folded", "trace-event"]


def test_every_c_constant_has_its_enum_member():
    # A format, status, write parameter or capability added to the header without its Python
    # member would make Format(11) & co. raise ValueError on a profile of the new kind.
    import re
    header = os.path.join(os.path.dirname(__file__), "..", "..", "..", "include", "profpack",
                          "profpack.h")
    with open(header) as f:
        text = f.read()
    for prefix, cls in (("PROFPACK_FORMAT_", profpack.Format),
                        ("PROFPACK_ERROR_", profpack.Status),
                        ("PROFPACK_WRITE_", profpack.WriteParam),
                        ("PROFPACK_HAS_", profpack.Capability)):
        names = set(re.findall(r"^\s*" + prefix + r"([A-Z0-9_]+)\s*=", text, re.M))
        assert names and names <= set(cls.__members__), (prefix, names - set(cls.__members__))


def test_merge_of_a_non_profile_is_invalid_argument(tmp_path):
    with profpack.read(os.path.join(DATA, "merge/cachegrind.workload.run1.out")) as p:
        for call in (lambda: profpack.merge([p, None]), lambda: profpack.merge([None])):
            with pytest.raises(profpack.InvalidArgumentError):
                call()
        with pytest.raises(profpack.InvalidArgumentError):
            profpack.diff(p, None)
        with profpack.Merger() as m:
            with pytest.raises(profpack.InvalidArgumentError):
                m.add(None)
        with profpack.Archive(tmp_path / "a.ppka", writable=True) as a:
            with pytest.raises(profpack.InvalidArgumentError):
                a.add([p, None])


def test_nul_in_a_string_is_invalid_argument(tmp_path):
    # A C string ends at its first NUL: the library would see "a.out", "main", "Ir".
    path = os.path.join(DATA, "merge/cachegrind.workload.run1.out")
    for call in (lambda: profpack.read(path + "\0.ignored"),
                 lambda: profpack.read_file(os.fsencode(path) + b"\0x"),
                 lambda: profpack.read([path + "\0"])):
        with pytest.raises(profpack.InvalidArgumentError):
            call()
    with profpack.read(path) as p:
        assert p.event_index("Ir") == 0
        with pytest.raises(profpack.InvalidArgumentError):
            p.event_index("Ir\0junk")
        assert p.find_functions("ma")
        with pytest.raises(profpack.InvalidArgumentError):
            p.find_functions("ma\0in")
        with pytest.raises(profpack.InvalidArgumentError):
            p.write_file(str(tmp_path / "out.ppk") + "\0evil", "ppk")
        assert not os.path.exists(tmp_path / "out.ppk")
        with pytest.raises(profpack.InvalidArgumentError):
            profpack.merge([p, p], names=["a\0b", "c"])
