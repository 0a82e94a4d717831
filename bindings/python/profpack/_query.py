"""The queries of a profile (what an editor asks), attached to :class:`Profile`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from ._errors import _c, _text, check
from ._native import as_signed, enumerate_c
from ._profpack import ffi, lib
from ._types import Call, Event_, Function, LineCost, Thread, TopCost, TopOptions, TopRow

if TYPE_CHECKING:
    from ._profile import Profile


def _function_of(id: int, f) -> Function:
    from ._errors import _text
    return Function(id, _text(f.name), _text(f.file), _text(f.object))


class QueryMixin:
    """The queries of a profile (what an editor asks); mixed into Profile."""

    __slots__ = ()

    def function(self: "Profile", id: int) -> Function:
        """``profpack_profile_function``: function `id`."""
        f = ffi.new("profpack_function*")
        check(lib.profpack_profile_function(self._handle(), id, f))
        return _function_of(id, f)


    def _function_list(self: "Profile") -> List[Function]:
        """``profpack_profile_functions``: every function, element i being function id i."""
        h = self._handle()
        buf, n = enumerate_c("profpack_function", lambda o, c, k: lib.profpack_profile_functions(h, o, c, k))
        return [_function_of(i, buf[i]) for i in range(n)]


    def _find(self: "Profile", pattern: str, flags: int, capacity: Optional[int]) -> List[Function]:
        h, count = self._handle(), ffi.new("size_t*")
        if capacity is None:
            buf, n = enumerate_c("size_t", lambda o, c, k: lib.profpack_profile_find_functions(
                h, _c(pattern), flags, o, c, k))
        else:
            buf = ffi.new("size_t[]", max(capacity, 1))
            check(lib.profpack_profile_find_functions(h, _c(pattern), flags, buf, capacity, count))
            n = min(count[0], capacity)
        return [self.function(buf[i]) for i in range(n)]


    def find_functions(self: "Profile", pattern: str) -> List[Function]:
        """``profpack_profile_find_functions``: the functions `pattern` names (exactly; as
        FILE:FUNCTION; else as a regular expression), by id. None found is an empty list."""
        return self._find(pattern, 0, None)


    def similar_functions(self: "Profile", name: str, count: int = 5) -> List[Function]:
        """``profpack_profile_find_functions`` with PROFPACK_FIND_SIMILAR: up to `count`
        functions whose names are nearest `name` ("did you mean")."""
        return self._find(name, lib.PROFPACK_FIND_SIMILAR, count)


    def function_line(self: "Profile", id: int) -> int:
        """``profpack_profile_function_line``: the line function `id` starts at, or 0."""
        out = ffi.new("uint64_t*")
        check(lib.profpack_profile_function_line(self._handle(), id, out))
        return int(out[0])


    def function_cost(self: "Profile", id: int, event: Event_ = 0) -> Tuple[int, int]:
        """``profpack_profile_function_cost``: (self, inclusive) cost of function `id`."""
        s, i = ffi.new("uint64_t*"), ffi.new("uint64_t*")
        check(lib.profpack_profile_function_cost(self._handle(), id, self.event_index(event), s, i))
        sig = self.signed_costs
        return as_signed(s[0], sig), as_signed(i[0], sig)


    def function_calls(self: "Profile", id: int) -> int:
        """``profpack_profile_function_calls``: completed calls of function `id` (0 where the
        format does not count calls)."""
        out = ffi.new("uint64_t*")
        check(lib.profpack_profile_function_calls(self._handle(), id, out))
        return as_signed(out[0], self.signed_costs)


    def units_per_second(self: "Profile") -> float:
        """``profpack_profile_units_per_second``: event units per second where the events
        measure time, else 0."""
        out = ffi.new("double*")
        check(lib.profpack_profile_units_per_second(self._handle(), out))
        return float(out[0])

    def event_units_per_second(self: "Profile", event: "Event_" = 0) -> float:
        """``profpack_profile_event_units_per_second``: units per second of one event where it
        measures time, else 0 (a V8 profile's ``samples``, a pprof count type)."""
        out = ffi.new("double*")
        check(lib.profpack_profile_event_units_per_second(self._handle(), self.event_index(event),
                                                           out))
        return float(out[0])


    def threads(self: "Profile") -> List[Thread]:
        """``profpack_profile_threads``: the threads view() can select, by index."""
        h = self._handle()
        buf, n = enumerate_c("profpack_thread", lambda o, c, k: lib.profpack_profile_threads(h, o, c, k))
        return [Thread(buf[i].pid, buf[i].thread_id) for i in range(n)]


    def line_costs(self: "Profile", file: str, event: Event_ = 0) -> List[LineCost]:
        """``profpack_profile_line_costs``: self cost per line of source file `file`."""
        h, e, f, s = self._handle(), self.event_index(event), _c(file), self.signed_costs
        buf, n = enumerate_c("profpack_line_cost",
                             lambda o, c, k: lib.profpack_profile_line_costs(h, f, e, o, c, k))
        return [LineCost(int(buf[i].line), as_signed(buf[i].cost, s)) for i in range(n)]


    def source_files(self: "Profile") -> List[str]:
        """``profpack_profile_source_files``: the source files with line costs, one name each
        (the names of one file given once), sorted; :meth:`line_costs` of each gives its lines,
        and each line cost of the profile is in exactly one of them."""
        h = self._handle()
        buf, n = enumerate_c("const char*",
                             lambda o, c, k: lib.profpack_profile_source_files(h, o, c, k))
        return [_text(buf[i]) for i in range(n)]

    def _calls(self: "Profile", id: int, event: Event_, fn) -> List[Call]:
        h, e, s = self._handle(), self.event_index(event), self.signed_costs
        buf, n = enumerate_c("profpack_call", lambda o, c, k: fn(h, id, e, o, c, k))
        return [Call(int(buf[i].function), as_signed(buf[i].calls, s), as_signed(buf[i].inclusive, s))
                for i in range(n)]


    def callers(self: "Profile", id: int, event: Event_ = 0) -> List[Call]:
        """``profpack_profile_callers``: the functions that call function `id`."""
        return self._calls(id, event, lambda *a: lib.profpack_profile_callers(*a))


    def callees(self: "Profile", id: int, event: Event_ = 0) -> List[Call]:
        """``profpack_profile_callees``: the functions that function `id` calls."""
        return self._calls(id, event, lambda *a: lib.profpack_profile_callees(*a))


    def _top_options(self: "Profile", options: Optional[TopOptions], kw: dict):
        import dataclasses
        if kw:
            options = dataclasses.replace(options or TopOptions(), **kw)
        options = options or TopOptions()
        o = ffi.new("profpack_top_options*")
        lib.profpack_top_options_init(o)
        o.flags = lib.PROFPACK_TOP_INCLUSIVE if options.inclusive else 0
        o.sort_event = self.event_index(options.sort_event)
        keep = [o]
        if options.events is not None:
            ev = ffi.new("size_t[]", [self.event_index(e) for e in options.events] or [0])
            o.events, o.event_count = ev, len(options.events)
            keep.append(ev)
        if options.thread is not None:
            o.thread = options.thread
        o.limit = options.limit
        return o, keep, options


    def top(self: "Profile", options: Optional[TopOptions] = None, **kw) -> List[TopRow]:
        """``profpack_profile_top``: the most costly functions with their costs of every event
        asked for. Keyword arguments are :class:`TopOptions` fields:
        ``p.top(sort_event="Ir", inclusive=True, limit=10)``."""
        o, keep, options = self._top_options(options, kw)
        h = self._handle()
        nev = len(options.events) if options.events is not None else len(self.events())
        count = ffi.new("size_t*")
        check(lib.profpack_profile_top(h, o, ffi.NULL, ffi.NULL, 0, count))
        while True:
            cap = count[0]
            rows = ffi.new("profpack_top_row[]", max(cap, 1))
            costs = ffi.new("profpack_top_cost[]", max(cap * nev, 1))
            check(lib.profpack_profile_top(h, o, rows, costs, cap, count))
            if count[0] <= cap:
                break
        from ._errors import _text
        out = []
        for i in range(count[0]):
            r = rows[i]
            cs = tuple(TopCost(int(costs[i * nev + j].self), int(costs[i * nev + j].inclusive))
                       for j in range(nev))
            out.append(TopRow(int(r.function), _text(r.name), _text(r.file), _text(r.object),
                              int(r.line), int(r.calls), cs))
        return out


    def top_functions(self: "Profile", options: Optional[TopOptions] = None, **kw) -> List[int]:
        """``profpack_profile_top_functions``: function ids ranked by cost of
        `options.sort_event` (the top `limit` of them, or all)."""
        o, keep, options = self._top_options(options, kw)
        h, count = self._handle(), ffi.new("size_t*")
        flags = lib.PROFPACK_TOP_INCLUSIVE if options.inclusive else 0
        target = self.view(thread=options.thread) if options.thread is not None else None
        try:
            hh = target._handle() if target is not None else h
            # Room for the functions there are, however large the limit asked for.
            check(lib.profpack_profile_top_functions(hh, o.sort_event, flags, ffi.NULL, 0, count))
            cap = min(options.limit, count[0]) if options.limit else count[0]
            buf = ffi.new("size_t[]", max(cap, 1))
            check(lib.profpack_profile_top_functions(hh, o.sort_event, flags, buf, cap, count))
            return [int(buf[i]) for i in range(min(cap, count[0]))]
        finally:
            if target is not None:
                target.close()
