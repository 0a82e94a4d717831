"""Parquet export of an archive's members with their labels, partitioned by label (pyarrow,
the ``profpack[arrow]`` extra), for DuckDB, Spark, pandas or polars::

    import profpack.parquet
    profpack.parquet.export_archive("fleet.ppka", "fleet.parquet", partition_by=("service",))

    # duckdb: SELECT function, sum(self) FROM read_parquet('fleet.parquet/functions/**',
    #         hive_partitioning = true) WHERE event = 'cpu' GROUP BY 1 ORDER BY 2 DESC

or ``python -m profpack export-parquet fleet.ppka fleet.parquet --partition-by service``.

Two Hive-partitioned datasets are written under the output directory:

- ``functions/``: one row per member, function and event with a cost: member_id, format,
  time (UTC), one string column per label key of the archive (null where a member has no
  such label), function_id, function, file, object, line, calls, event, self, inclusive.
  The figures are those of ``profpack top`` of the member for that event; a function whose
  self and inclusive cost of an event are both 0 has no row for it.
- ``stacks/`` (with ``stacks=True``): one row per member and distinct call stack: the member
  columns, event (the member's first), stack (frames, outermost first) and value, as
  :meth:`Profile.stacks` has them; a member whose format records no call stacks (Callgrind,
  Cachegrind) has no rows.

A label whose key is the name of one of the other columns is written as ``label_KEY``.
Members are read one at a time (once per dataset written), so memory is bounded by the
largest member's tables.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from ._archive import Archive, ArchiveMember
from ._errors import PathArg, UnsupportedError
from ._native import as_signed
from ._profile import Profile
from ._tables import _pyarrow

MEMBER_COLUMNS = ("member_id", "format", "time")
FUNCTION_COLUMNS = ("function_id", "function", "file", "object", "line", "calls", "event",
                    "self", "inclusive")
STACK_COLUMNS = ("event", "stack", "value")
#: Schema metadata of the files: the partition columns, a JSON list (read_dataset reads it).
PARTITION_KEY = b"profpack.partition_by"


def label_columns(members: Sequence[ArchiveMember]) -> Dict[str, str]:
    """Each label key of `members` (in order of first appearance) and its column name."""
    taken = set(MEMBER_COLUMNS + FUNCTION_COLUMNS + STACK_COLUMNS)
    out: Dict[str, str] = {}
    for m in members:
        for k in m.labels:
            if k not in out:
                out[k] = "label_" + k if k in taken else k
    return out


def _member_fields(pa: Any, labels: Dict[str, str]) -> List[Any]:
    return ([pa.field("member_id", pa.uint64(), False), pa.field("format", pa.string(), False),
             pa.field("time", pa.timestamp("s", tz="UTC"), False)]
            + [pa.field(c, pa.string()) for c in labels.values()])


def function_schema(labels: Dict[str, str]) -> Any:
    """The schema of the functions dataset for label columns `labels`."""
    pa = _pyarrow()
    return pa.schema(_member_fields(pa, labels) + [
        pa.field("function_id", pa.uint64(), False), pa.field("function", pa.string(), False),
        pa.field("file", pa.string(), False), pa.field("object", pa.string(), False),
        pa.field("line", pa.uint64(), False), pa.field("calls", pa.int64(), False),
        pa.field("event", pa.string(), False), pa.field("self", pa.int64(), False),
        pa.field("inclusive", pa.int64(), False)])


def stack_schema(labels: Dict[str, str]) -> Any:
    """The schema of the stacks dataset for label columns `labels`."""
    pa = _pyarrow()
    return pa.schema(_member_fields(pa, labels) + [
        pa.field("event", pa.string(), False),
        pa.field("stack", pa.list_(pa.string()), False), pa.field("value", pa.int64(), False)])


def _member_columns(m: ArchiveMember, labels: Dict[str, str], n: int) -> Dict[str, List[Any]]:
    cols: Dict[str, List[Any]] = {"member_id": [m.id] * n, "format": [m.format] * n,
                                  "time": [m.time] * n}
    for key, col in labels.items():
        cols[col] = [m.labels.get(key)] * n
    return cols


def function_batch(p: Profile, m: ArchiveMember, labels: Dict[str, str]) -> Any:
    """Member `m` (read as `p`) as a record batch of the functions dataset."""
    pa = _pyarrow()
    signed = p.signed_costs
    events = [e.name for e in p.events()]
    rows = []
    for f in p.functions():
        for j, event in enumerate(events):
            s = as_signed(f.self[j], signed) if f.self else 0
            i = as_signed(f.inclusive[j], signed) if f.inclusive else 0
            if s or i:
                rows.append((f, event, s, i))
    cols = _member_columns(m, labels, len(rows))
    cols.update({"function_id": [r[0].id for r in rows], "function": [r[0].name for r in rows],
                 "file": [r[0].file for r in rows], "object": [r[0].object for r in rows],
                 "line": [r[0].line for r in rows],
                 "calls": [as_signed(r[0].calls, signed) for r in rows],
                 "event": [r[1] for r in rows], "self": [r[2] for r in rows],
                 "inclusive": [r[3] for r in rows]})
    return pa.RecordBatch.from_pydict(cols, schema=function_schema(labels))


def stack_batch(p: Profile, m: ArchiveMember, labels: Dict[str, str]) -> Any:
    """Member `m` (read as `p`) as a record batch of the stacks dataset."""
    pa = _pyarrow()
    events = p.events()
    try:
        rows = p.stacks() if events else []
    except UnsupportedError:  # a format without call stacks (Callgrind, Cachegrind): none
        rows = []
    cols = _member_columns(m, labels, len(rows))
    cols.update({"event": [events[0].name] * len(rows) if events else [],
                 "stack": [list(r.frames) for r in rows], "value": [r.value for r in rows]})
    return pa.RecordBatch.from_pydict(cols, schema=stack_schema(labels))


def _batches(archive: Archive, members: Sequence[ArchiveMember], labels: Dict[str, str],
             make: Any) -> Iterator[Any]:
    for m in members:
        with archive.read(m.index) as p:
            batch = make(p, m, labels)
        if batch.num_rows:
            yield batch


def export_archive(archive: Union[PathArg, Archive], out_dir: PathArg,
                   partition_by: Sequence[str] = (), stacks: bool = False,
                   members: Optional[Sequence[int]] = None,
                   existing_data_behavior: str = "error") -> Dict[str, str]:
    """Writes the members of `archive` (a path or an open :class:`Archive`; `members`: the
    indices to export, default all) as Parquet datasets under `out_dir`, Hive-partitioned by
    the label keys `partition_by` (``service=api/...``; a member without the label goes to
    ``KEY=__HIVE_DEFAULT_PARTITION__``). Returns the directory of each dataset written, by
    name ("functions", and "stacks" with `stacks`). `existing_data_behavior` is pyarrow's:
    "error" (the default) refuses a directory that holds files, "overwrite_or_ignore" and
    "delete_matching" replace them."""
    pa = _pyarrow()
    import pyarrow.dataset as ds

    if not isinstance(archive, Archive):
        with Archive(archive) as a:
            return export_archive(a, out_dir, partition_by, stacks, members, existing_data_behavior)
    chosen = archive.members()
    if members is not None:
        chosen = [chosen[i] for i in members]
    labels = label_columns(chosen)
    parts = []
    for key in partition_by:
        if key not in labels and key != "format":
            raise ValueError("profpack: no member of %s has a label %r to partition by (labels: %s)"
                             % (archive.path, key, ", ".join(labels) or "none"))
        parts.append(labels.get(key, key))
    tables = {"functions": (function_schema(labels), function_batch)}
    if stacks:
        tables["stacks"] = (stack_schema(labels), stack_batch)
    written = {}
    for name, (schema, make) in tables.items():
        base = os.path.join(os.fsdecode(out_dir), name)
        schema = schema.with_metadata({PARTITION_KEY: json.dumps(parts)})
        part = ds.partitioning(pa.schema([schema.field(c) for c in parts]), flavor="hive") \
            if parts else None
        ds.write_dataset(_batches(archive, chosen, labels, make), base, schema=schema,
                         format="parquet", partitioning=part,
                         existing_data_behavior=existing_data_behavior,
                         max_partitions=max(1024, len(chosen)))
        written[name] = base
    return written


def read_dataset(directory: PathArg) -> Any:
    """A ``pyarrow.dataset.Dataset`` of a dataset :func:`export_archive` wrote (its
    ``functions`` or ``stacks`` directory) with the partition columns back, as strings (a
    Hive partitioning that infers types would read a label "7" as a number)."""
    pa = _pyarrow()
    import pyarrow.dataset as ds

    path = os.fsdecode(directory)
    files = ds.dataset(path, format="parquet")
    meta = files.schema.metadata or {}
    parts = json.loads(meta.get(PARTITION_KEY, b"[]"))
    if not parts:
        return files
    part = ds.partitioning(pa.schema([(c, pa.string()) for c in parts]), flavor="hive")
    return ds.dataset(path, format="parquet", partitioning=part)
