"""Tables of a profile: its functions, stacks and source lines, as lists of named tuples or as
Apache Arrow tables (with pyarrow, the `profpack[arrow]` extra) for DuckDB, pandas and polars."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Tuple

from ._formats import Format

if TYPE_CHECKING:
    from ._profile import Profile


class FunctionRow(NamedTuple):
    """A row of :meth:`Profile.functions`: a function and its costs, one per event."""
    id: int
    name: str
    file: str
    object: str
    line: int                    # where it starts, where the profile knows it; else 0
    calls: int                   # completed calls, where the format counts them; else 0
    self: Tuple[int, ...]        # self cost per event, in events() order
    inclusive: Tuple[int, ...]   # inclusive cost per event


class Stack(NamedTuple):
    """A row of :meth:`Profile.stacks`: a call stack, outermost frame first, and its cost."""
    frames: Tuple[str, ...]
    value: int


class Line(NamedTuple):
    """A row of :meth:`Profile.lines`: the self cost of a source line, one per event."""
    file: str
    line: int                    # 0: costs with no line information
    costs: Tuple[int, ...]


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("profpack: arrow=True needs pyarrow: pip install 'profpack[arrow]'") from e
    return pyarrow


class TablesMixin:
    """The tables of a profile; mixed into Profile."""

    __slots__ = ()

    def functions(self: "Profile", arrow: bool = False) -> Any:
        """Every function (``profpack_profile_functions``) with its line, calls and costs of
        every event (``profpack_profile_top``), in id order: a list of :class:`FunctionRow`,
        or with `arrow` a ``pyarrow.Table`` with columns id, name, file, object, line, calls,
        and ``self_EVENT``, ``inclusive_EVENT`` per event."""
        names = self._function_list()
        by_id = {r.function: r for r in self.top()}
        rows = []
        for f in names:
            r = by_id.get(f.id)
            rows.append(FunctionRow(f.id, f.name, f.file, f.object, r.line if r else 0,
                                    r.calls if r else 0,
                                    tuple(c.self for c in r.costs) if r else (),
                                    tuple(c.inclusive for c in r.costs) if r else ()))
        if not arrow:
            return rows
        pa = _pyarrow()
        events = [e.name for e in self.events()]
        cols: Dict[str, Any] = {
            "id": pa.array([r.id for r in rows], pa.uint64()),
            "name": pa.array([r.name for r in rows], pa.string()),
            "file": pa.array([r.file for r in rows], pa.string()),
            "object": pa.array([r.object for r in rows], pa.string()),
            "line": pa.array([r.line for r in rows], pa.uint64()),
            "calls": pa.array([r.calls for r in rows], pa.int64()),
        }
        for j, e in enumerate(events):
            cols["self_" + e] = pa.array([r.self[j] if r.self else 0 for r in rows], pa.int64())
            cols["inclusive_" + e] = pa.array([r.inclusive[j] if r.inclusive else 0
                                               for r in rows], pa.int64())
        return pa.table(cols)

    def stacks(self: "Profile", arrow: bool = False) -> Any:
        """The profile's call stacks with the cost of its first event, as its collapsed-stacks
        conversion (``profpack_write_memory`` to Format.FOLDED) has them: one row per distinct
        stack, frames outermost first (a ';' in a name reads ':'). A list of :class:`Stack`, or
        with `arrow` a ``pyarrow.Table`` of columns stack (list of strings) and value."""
        text = self.write_memory(Format.FOLDED).decode("utf-8", "surrogateescape")
        rows = []
        for line in text.splitlines():
            stack, _, count = line.rpartition(" ")
            if stack:
                rows.append(Stack(tuple(stack.split(";")), int(count)))
        if not arrow:
            return rows
        pa = _pyarrow()
        return pa.table({"stack": pa.array([list(r.frames) for r in rows], pa.list_(pa.string())),
                         "value": pa.array([r.value for r in rows], pa.int64())})

    def lines(self: "Profile", arrow: bool = False) -> Any:
        """Self cost per source line of every source file (``profpack_profile_source_files``,
        then ``profpack_profile_line_costs``), one cost per event, by file then line: a list of
        :class:`Line`, or with `arrow` a ``pyarrow.Table`` with columns file, line and one per
        event. Each line cost of the profile is in one row. Empty for a profile without line
        information."""
        events = self.events()
        files = self.source_files()
        rows: List[Line] = []
        for file in files:
            costs: Dict[int, List[int]] = {}
            for j in range(len(events)):
                for lc in self.line_costs(file, j):
                    costs.setdefault(lc.line, [0] * len(events))[j] = lc.cost
            rows.extend(Line(file, n, tuple(c)) for n, c in sorted(costs.items()))
        if not arrow:
            return rows
        pa = _pyarrow()
        cols: Dict[str, Any] = {"file": pa.array([r.file for r in rows], pa.string()),
                                "line": pa.array([r.line for r in rows], pa.uint64())}
        for j, e in enumerate(events):
            cols[e.name] = pa.array([r.costs[j] for r in rows], pa.int64())
        return pa.table(cols)
