"""The value types of the API: options, figures and rows."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any, NamedTuple, Optional, Sequence, Tuple, Union

from ._errors import PathArg, _path
from ._formats import Format, _coerce_format
from ._native import cstrings
from ._profpack import ffi, lib

Event_ = Union[int, str]  # an event by index or by short name


class Capability(enum.IntFlag):
    """What a profile holds (``profpack_info.capabilities``, PROFPACK_HAS_*)."""
    CALL_ARCS = lib.PROFPACK_HAS_CALL_ARCS
    CALL_COUNTS = lib.PROFPACK_HAS_CALL_COUNTS
    LINES = lib.PROFPACK_HAS_LINES
    ADDRESSES = lib.PROFPACK_HAS_ADDRESSES
    STACKS = lib.PROFPACK_HAS_STACKS
    TIMELINE = lib.PROFPACK_HAS_TIMELINE
    THREADS = lib.PROFPACK_HAS_THREADS
    NAMES = lib.PROFPACK_HAS_NAMES


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """How to read (``profpack_read_options``); the defaults are the library's."""
    strict: bool = False                 # PROFPACK_READ_STRICT: recoverable defects are errors
    defer_ir: bool = False               # PROFPACK_READ_DEFER_IR
    symbolize: bool = False              # PROFPACK_READ_SYMBOLIZE: name addresses from binaries
    symbol_tables_only: bool = False     # PROFPACK_READ_SYMBOL_TABLES_ONLY: no DWARF, no lines
    max_ppk_size: int = 0                # 0: the library's default (4 GiB)
    format: Union[Format, str] = Format.UNKNOWN         # read as this format instead of detecting
    output_format: Union[Format, str] = Format.UNKNOWN  # the format it is to be written in
    binary_path: Sequence[PathArg] = ()  # directories to look for binaries in (symbolize)
    no_lines: bool = False               # PROFPACK_READ_NO_LINES: functions, no file or line

    def _c(self) -> Tuple[Any, list]:
        o = ffi.new("profpack_read_options*")
        lib.profpack_read_options_init(o)
        o.flags = ((lib.PROFPACK_READ_STRICT if self.strict else 0)
                   | (lib.PROFPACK_READ_DEFER_IR if self.defer_ir else 0)
                   | (lib.PROFPACK_READ_SYMBOLIZE if self.symbolize else 0)
                   | (lib.PROFPACK_READ_SYMBOL_TABLES_ONLY if self.symbol_tables_only else 0)
                   | (lib.PROFPACK_READ_NO_LINES if self.no_lines else 0))
        if self.max_ppk_size:
            o.max_ppk_size = self.max_ppk_size
        o.format = _coerce_format(self.format)
        o.output_format = _coerce_format(self.output_format)
        arr, keep = cstrings(list(self.binary_path), _path)
        o.binary_path, o.binary_path_count = arr, len(self.binary_path)
        return o, keep + [o]


def _read_opts(options: Optional[ReadOptions]) -> Tuple[Any, list]:
    return (ffi.NULL, []) if options is None else options._c()


@dataclasses.dataclass(frozen=True)
class SymbolizeOptions:
    """How to symbolize (``profpack_symbolize_options``)."""
    binary_path: Sequence[PathArg] = ()  # directories searched for a mapping's binary
    binary: Optional[PathArg] = None     # XRay: the instrumented executable that ran
    kallsyms: Optional[PathArg] = None   # a copy of the recorded kernel's /proc/kallsyms
    symbol_tables_only: bool = False     # names from symbol tables only: no DWARF, no lines


class Info(NamedTuple):
    """Whole-profile figures (``profpack_info``)."""
    format: Format
    format_version: str
    parts: int
    events: int
    records: int
    functions: int
    files: int
    objects: int
    strings: int
    ir_bytes: int
    signed_costs: bool
    capabilities: Capability


class Event(NamedTuple):
    """A cost event (``profpack_event``); `total` is negative only in a difference."""
    name: str
    long_name: str
    total: int


UNKNOWN_ID = 0xFFFFFFFF  # PROFPACK_UNKNOWN_ID


class Thread(NamedTuple):
    """A thread whose figures can be viewed on their own (``profpack_thread``); an id the
    profile does not know is ``UNKNOWN_ID`` (perf's -1)."""
    pid: int
    thread_id: int


class Function(NamedTuple):
    """A function (``profpack_function``) with its id."""
    id: int
    name: str
    file: str
    object: str


class LineCost(NamedTuple):
    """Self cost of one source line (``profpack_line_cost``)."""
    line: int
    cost: int


class Call(NamedTuple):
    """A caller or callee with the calls and their inclusive cost (``profpack_call``)."""
    function: int
    calls: int
    inclusive: int


class TopCost(NamedTuple):
    """One event's costs of a top row (``profpack_top_cost``)."""
    self: int
    inclusive: int


class TopRow(NamedTuple):
    """A row of :meth:`Profile.top` (``profpack_top_row``)."""
    function: int
    name: str
    file: str
    object: str
    line: int
    calls: int
    costs: Tuple[TopCost, ...]  # one per event asked for, in order


@dataclasses.dataclass(frozen=True)
class TopOptions:
    """What :meth:`Profile.top` ranks (``profpack_top_options``)."""
    sort_event: Event_ = 0             # the event ranked by (index or name)
    inclusive: bool = False            # PROFPACK_TOP_INCLUSIVE: rank by inclusive cost
    events: Optional[Sequence[Event_]] = None  # the events each row carries; None: every event
    thread: Optional[int] = None       # a thread of threads(); None: every thread
    limit: int = 0                     # at most this many rows; 0: every function
