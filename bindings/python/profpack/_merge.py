"""Merging and differencing profiles."""
from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Optional, Sequence, Tuple

from ._errors import _c, check, closed
from ._native import cstrings
from ._profile import Profile, _handle_of
from ._profpack import ffi, lib


def merge(profiles: Sequence[Profile], names: Optional[Sequence[Optional[str]]] = None) -> Profile:
    """``profpack_merge``: a new profile (to close) summing `profiles` (at least one, with the
    same events by name), as cg_merge and ``go tool pprof -proto A B`` do. `names` names each
    input in error messages. For many inputs, :class:`Merger` holds only the result."""
    hs = ffi.new("profpack_profile*[]", [_handle_of(p) for p in profiles] or [ffi.NULL])
    keep: list = []
    arr = ffi.NULL
    if names is not None:
        keep = [ffi.NULL if n is None else ffi.new("char[]", _c(n)) for n in names]
        arr = ffi.new("const char*[]", keep)
    out = ffi.new("profpack_profile**")
    check(lib.profpack_merge(hs, arr, len(profiles), out))
    return Profile(out[0])


class Merger:
    """A merge one profile at a time (``profpack_merger``): memory is bounded by the merged
    result, not by the sum of the inputs. A context manager; :meth:`close` frees it::

        with profpack.Merger() as m:
            for path in paths:
                with profpack.read(path) as p:
                    m.add(p, name=path)
            merged = m.finish()
    """

    __slots__ = ("_h", "__weakref__")

    def __init__(self) -> None:
        """``profpack_merger_new``."""
        out = ffi.new("profpack_merger**")
        check(lib.profpack_merger_new(out))
        self._h = out[0]

    def _handle(self) -> Any:
        if self._h is None:
            raise closed("Merger")
        return self._h

    def rename_event(self, from_: str, to: str) -> "Merger":
        """``profpack_merger_rename_event``: before the first add, inputs' event `from_`
        counts as event `to`."""
        check(lib.profpack_merger_rename_event(self._handle(), _c(from_), _c(to)))
        return self

    def add(self, profile: Profile, name: Optional[str] = None) -> None:
        """``profpack_merger_add``: adds a profile (which may be closed right after)."""
        check(lib.profpack_merger_add(self._handle(), _handle_of(profile),
                                      ffi.NULL if name is None else _c(name)))

    def finish(self) -> Profile:
        """``profpack_merger_finish``: the merged profile (to close); at most once."""
        out = ffi.new("profpack_profile**")
        check(lib.profpack_merger_finish(self._handle(), out))
        return Profile(out[0])

    def close(self) -> None:
        """``profpack_merger_free``. Closing twice is harmless."""
        h, self._h = self._h, None
        if h is not None:
            lib.profpack_merger_free(h)

    def __enter__(self) -> "Merger":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_h", None) is not None:
            warnings.warn("unclosed profpack.Merger %#x" % id(self), ResourceWarning, source=self)
            self.close()


@dataclasses.dataclass(frozen=True)
class DiffOptions:
    """How to difference (``profpack_diff_options``), as cg_diff's options."""
    mod_filename: Sequence[str] = ()   # "s/REGEX/REPLACEMENT/" rewrites of file names
    mod_funcname: Sequence[str] = ()   # ... of function names
    base_name: Optional[str] = None    # names of the two profiles, for messages
    current_name: Optional[str] = None
    event_renames: Sequence[str] = ()  # "FROM=TO"


def _diff_options(options: Optional[DiffOptions]) -> Tuple[Any, list]:
    """A ``profpack_diff_options`` from `options` (None: the defaults), and what it points into."""
    o = ffi.new("profpack_diff_options*")
    lib.profpack_diff_options_init(o)
    keep: list = []
    if options is not None:
        for field in ("mod_filename", "mod_funcname", "event_renames"):
            items = list(getattr(options, field))
            arr, k = cstrings(items)
            setattr(o, field, arr)
            setattr(o, field + "_count", len(items))
            keep += [arr, *k]  # a struct field does not keep its array alive
        for field in ("base_name", "current_name"):
            v = getattr(options, field)
            if v is not None:
                keep.append(ffi.new("char[]", _c(v)))
                setattr(o, field, keep[-1])
    return o, keep


def diff(base: Profile, current: Profile, options: Optional[DiffOptions] = None) -> Profile:
    """``profpack_diff``: a new profile (to close), `current` - `base`, with signed costs."""
    o, keep = _diff_options(options)
    out = ffi.new("profpack_profile**")
    check(lib.profpack_diff(_handle_of(base), _handle_of(current), o, out))
    return Profile(out[0])
