"""Archives (.ppka): many profiles in one file, each with labels and a time."""
from __future__ import annotations

import os
import warnings
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Union

from ._errors import PathArg, _c, _path, _text, check, closed
from ._native import cstrings
from ._profile import Profile, _handle_of
from ._profpack import ffi, lib


class ArchiveMember(NamedTuple):
    """A member of an archive, from its index (``profpack_archive_member``)."""
    index: int                 # its position, for Archive.read()
    id: int                    # unique in the archive, from 1, in order of adding
    format: str                # the format it was read from
    time: int                  # seconds since 1970 UTC
    labels: Dict[str, str]     # its key=value labels
    stored_bytes: int          # its compressed size in the archive
    ir_bytes: int              # the size of its IR message


class FunctionTrendCost(NamedTuple):
    """One member's figures of a function (``profpack_archive_function_cost``)."""
    self_cost: int   # summed self cost of the functions of that name
    inclusive: int   # summed inclusive cost
    matched: int     # how many functions have that name (0: none, costs 0)


class Archive:
    """An archive of profiles (``profpack_archive``), opened read-only by default::

        with profpack.Archive("fleet.ppka") as a:
            for m in a:
                with a.read(m.index) as p: ...

    A writable archive holds an exclusive lock until closed.
    """

    __slots__ = ("_h", "path", "__weakref__")

    def __init__(self, path: PathArg, writable: bool = False, level: int = 19) -> None:
        """``profpack_archive_open``: `writable` creates the file where it does not exist;
        `level` is the zstd level (1-22) of what this handle adds."""
        o = ffi.new("profpack_archive_options*")
        lib.profpack_archive_options_init(o)
        o.writable, o.level = int(writable), level
        out = ffi.new("profpack_archive**")
        self._h = None
        self.path = os.fsdecode(path)
        check(lib.profpack_archive_open(_path(path), o, out), self.path)
        self._h = out[0]

    def _handle(self) -> Any:
        if self._h is None:
            raise closed("Archive")
        return self._h

    def close(self) -> None:
        """``profpack_archive_close``. Closing twice is harmless."""
        h, self._h = self._h, None
        if h is not None:
            lib.profpack_archive_close(h)

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_h", None) is not None:
            warnings.warn("unclosed profpack.Archive %r" % self.path, ResourceWarning, source=self)
            self.close()

    def __len__(self) -> int:
        """``profpack_archive_count``: the number of members."""
        n = ffi.new("size_t*")
        check(lib.profpack_archive_count(self._handle(), n), self.path)
        return n[0]

    def member(self, index: int) -> ArchiveMember:
        """``profpack_archive_member_info`` and ``profpack_archive_member_label``: member
        `index` from the index (nothing is decoded)."""
        h = self._handle()
        m = ffi.new("profpack_archive_member*")
        m.struct_size = ffi.sizeof("profpack_archive_member")
        check(lib.profpack_archive_member_info(h, index, m), self.path)
        labels = {}
        k, v = ffi.new("const char**"), ffi.new("const char**")
        for j in range(m.label_count):
            check(lib.profpack_archive_member_label(h, index, j, k, v), self.path)
            labels[_text(k[0])] = _text(v[0])
        return ArchiveMember(index, int(m.id), _text(m.format), int(m.time), labels,
                             int(m.stored_bytes), int(m.ir_bytes))

    def members(self) -> List[ArchiveMember]:
        """Every member, in order."""
        return [self.member(i) for i in range(len(self))]

    def __iter__(self) -> Iterator[ArchiveMember]:
        for i in range(len(self)):
            yield self.member(i)

    def read(self, index: int) -> Profile:
        """``profpack_archive_read``: member `index` as a profile (to close)."""
        out = ffi.new("profpack_profile**")
        check(lib.profpack_archive_read(self._handle(), index, out), self.path)
        return Profile(out[0])

    def add(self, profiles: Sequence[Profile],
            labels: Union[Dict[str, str], Sequence[str]] = (), time: int = 0) -> None:
        """``profpack_archive_add``: adds `profiles` as one segment, each with `labels` (a
        dict, or "key=value" strings) and `time` (seconds since 1970 UTC), and commits it."""
        items = ["%s=%s" % kv for kv in labels.items()] if isinstance(labels, dict) else list(labels)
        arr, keep = cstrings(items)
        hs = ffi.new("profpack_profile*[]", [_handle_of(p) for p in profiles] or [ffi.NULL])
        check(lib.profpack_archive_add(self._handle(), hs, len(profiles), arr, len(items), time),
              self.path)

    def verify(self) -> int:
        """``profpack_archive_verify``: decodes and checks every member; how many were."""
        n = ffi.new("size_t*")
        check(lib.profpack_archive_verify(self._handle(), n), self.path)
        return n[0]

    def compact(self) -> None:
        """``profpack_archive_compact``: rewrites the archive as one segment."""
        check(lib.profpack_archive_compact(self._handle()), self.path)

    def merge(self, indices: Sequence[int]) -> Profile:
        """``profpack_archive_merge``: the merge of the members at `indices` (to close)."""
        ids = ffi.new("size_t[]", list(indices) or [0])
        out = ffi.new("profpack_profile**")
        check(lib.profpack_archive_merge(self._handle(), ids, len(indices), out), self.path)
        return Profile(out[0])

    def diff(self, base: Sequence[int], current: Sequence[int],
             options: Optional["DiffOptions"] = None) -> Profile:
        """``profpack_archive_diff``: the merge of the members at `current` less that of those
        at `base` (to close), as profpack.diff() takes a difference."""
        from ._merge import _diff_options
        o, keep = _diff_options(options)
        b = ffi.new("size_t[]", list(base) or [0])
        c = ffi.new("size_t[]", list(current) or [0])
        out = ffi.new("profpack_profile**")
        check(lib.profpack_archive_diff(self._handle(), b, len(base), c, len(current), o, out),
              self.path)
        del keep
        return Profile(out[0])

    def function_cost(self, index: int, function: str,
                      event: Optional[str] = None) -> "FunctionTrendCost":
        """``profpack_archive_function_cost``: member `index`'s self and inclusive cost of the
        functions named exactly `function` (summed), for `event` (None: its first), and how
        many there are."""
        s, i, n = ffi.new("uint64_t*"), ffi.new("uint64_t*"), ffi.new("size_t*")
        ev = ffi.new("char[]", _c(event)) if event is not None else ffi.NULL
        check(lib.profpack_archive_function_cost(self._handle(), index, _c(function), ev,
                                                 s, i, n), self.path)
        return FunctionTrendCost(int(s[0]), int(i[0]), int(n[0]))
