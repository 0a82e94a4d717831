"""Profile: reading, writing, inspection and the queries of the C API."""
from __future__ import annotations

import dataclasses
import enum
import os
import warnings
from typing import (IO, Any, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union)

from ._errors import (InvalidArgumentError, PathArg, _c, _path, _text, check, closed)
from ._formats import Buffer, Format, WriteOptions, _coerce_format
from ._native import as_signed, cstrings, enumerate_c
from ._profpack import ffi, lib
from ._query import QueryMixin
from ._tables import TablesMixin
from ._types import (Capability, Event, Event_, Info, ReadOptions, SymbolizeOptions, Thread,
                     _read_opts)

class Profile(QueryMixin, TablesMixin):
    """A profile (``profpack_profile``). It never changes after it is made, so every method
    may be called from several threads at once; each call into the library releases the GIL.

    Use it as a context manager, or call :meth:`close` (``profpack_profile_free``); a profile
    that is garbage-collected unclosed is freed with a ResourceWarning. A method called after
    close raises :class:`ClosedError`. `close()` must not race with another call on it.
    """

    __slots__ = ("_h", "_signed", "__weakref__")

    def __init__(self, handle: Any) -> None:
        """Not for users: profiles come from read(), merge(), diff(), view(), ..."""
        self._h = handle
        self._signed: Optional[bool] = None

    # ---- life ---------------------------------------------------------------------------
    def close(self) -> None:
        """Frees the profile (``profpack_profile_free``). Closing twice is harmless."""
        h, self._h = self._h, None
        if h is not None:
            lib.profpack_profile_free(h)

    @property
    def closed(self) -> bool:
        return self._h is None

    def __enter__(self) -> "Profile":
        self._handle()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_h", None) is not None:
            warnings.warn("unclosed profpack.Profile %#x" % id(self), ResourceWarning, source=self)
            self.close()

    def __repr__(self) -> str:
        if self._h is None:
            return "<profpack.Profile closed>"
        return "<profpack.Profile %s>" % self.format

    def _handle(self) -> Any:
        h = self._h
        if h is None:
            raise closed("Profile")
        return h

    # ---- writing ------------------------------------------------------------------------
    def write_file(self, path: PathArg, format: Union[Format, str, None] = None,
                   options: Optional[WriteOptions] = None) -> None:
        """``profpack_write_file``: writes the profile in `format` to `path` ("-": standard
        output), atomically. Without `format`, the one the path's name says
        (``Format.for_path``)."""
        if format is None:
            format = Format.for_path(path)
            if format == Format.UNKNOWN:
                raise InvalidArgumentError("profpack: %s: name a format: its name says none"
                                           % os.fsdecode(path), path=os.fsdecode(path))
        check(lib.profpack_write_file(self._handle(), _coerce_format(format), _path(path),
                                      ffi.NULL if options is None else options._c),
              os.fsdecode(path))

    def write_memory(self, format: Union[Format, str] = Format.PPK,
                     options: Optional[WriteOptions] = None) -> bytes:
        """``profpack_write_memory``: the profile in `format` as bytes (``profpack_free``
        releases the library's buffer once copied). Default: a `.ppk`."""
        data, size = ffi.new("void**"), ffi.new("size_t*")
        check(lib.profpack_write_memory(self._handle(), _coerce_format(format),
                                        ffi.NULL if options is None else options._c, data, size))
        try:
            return bytes(ffi.buffer(data[0], size[0]))
        finally:
            lib.profpack_free(data[0])

    # ---- inspection ---------------------------------------------------------------------
    @property
    def format(self) -> Format:
        """``profpack_profile_format``: the format the profile was read from."""
        return Format(lib.profpack_profile_format(self._handle()))

    def info(self) -> Info:
        """``profpack_profile_info``: whole-profile figures."""
        i = ffi.new("profpack_info*")
        lib.profpack_info_init(i)
        check(lib.profpack_profile_info(self._handle(), i))
        self._signed = bool(i.signed_costs)
        return Info(Format(i.format), _text(i.format_version), i.parts, i.events, i.records,
                    i.functions, i.files, i.objects, i.strings, i.ir_bytes,
                    bool(i.signed_costs), Capability(i.capabilities))

    @property
    def signed_costs(self) -> bool:
        """A difference of profiles: costs, totals and call counts may be negative."""
        if self._signed is None:
            self.info()
        return bool(self._signed)

    def events(self) -> List[Event]:
        """``profpack_profile_events``: the cost events in column order."""
        h, s = self._handle(), self.signed_costs
        buf, n = enumerate_c("profpack_event", lambda o, c, k: lib.profpack_profile_events(h, o, c, k))
        return [Event(_text(e.name), _text(e.long_name), as_signed(e.total, s))
                for e in (buf[i] for i in range(n))]

    def event_index(self, name: Event_) -> int:
        """``profpack_profile_event_index``: the index of the event named `name` ("Ir");
        InvalidArgumentError naming the known events where there is none. An int is returned
        as it is."""
        if isinstance(name, int):
            return name
        out = ffi.new("size_t*")
        check(lib.profpack_profile_event_index(self._handle(), _c(name), out))
        return out[0]

    def event_base_total(self, event: Event_ = 0) -> int:
        """``profpack_profile_event_base_total``: a difference's base total of `event`; 0
        where the profile records no base."""
        out = ffi.new("uint64_t*")
        check(lib.profpack_profile_event_base_total(self._handle(), self.event_index(event), out))
        return int(out[0])

    def warnings(self) -> List[str]:
        """``profpack_profile_warnings``: warnings raised while it was read or made."""
        h = self._handle()
        buf, n = enumerate_c("const char*", lambda o, c, k: lib.profpack_profile_warnings(h, o, c, k))
        return [_text(buf[i]) for i in range(n)]

    def equal(self, other: "Profile") -> bool:
        """``profpack_profile_equal``: whether both hold the same IR."""
        out = ffi.new("int*")
        check(lib.profpack_profile_equal(self._handle(), other._handle(), out))
        return bool(out[0])

    def view(self, thread: Optional[int] = None, binary: Optional[PathArg] = None,
             tags: Sequence[str] = ()) -> "Profile":
        """``profpack_profile_view``: a new profile (to close) showing only thread `thread`
        (an index of threads()), naming an XRay trace's ids from `binary`, and keeping only
        the samples whose labels match every "KEY=REGEX" of `tags`."""
        o = ffi.new("profpack_view_options*")
        lib.profpack_view_options_init(o)
        if thread is not None:
            o.thread = thread
        arr, keep = cstrings(list(tags))
        o.tags, o.tag_count = arr, len(tags)
        if binary is not None:
            keep.append(ffi.new("char[]", _path(binary)))
            o.binary = keep[-1]
        out = ffi.new("profpack_profile**")
        check(lib.profpack_profile_view(self._handle(), o, out))
        del keep
        return Profile(out[0])

    def symbolize(self, options: Optional[SymbolizeOptions] = None) -> "Profile":
        """``profpack_profile_symbolize``: a new profile (to close) naming addresses (or an
        XRay trace's ids, with `options.binary`) from the binaries; see warnings()."""
        o = ffi.new("profpack_symbolize_options*")
        lib.profpack_symbolize_options_init(o)
        keep: list = []
        if options is not None:
            arr, keep = cstrings(list(options.binary_path), _path)
            o.binary_path, o.binary_path_count = arr, len(options.binary_path)
            if options.binary is not None:
                keep.append(ffi.new("char[]", _path(options.binary)))
                o.binary = keep[-1]
            if options.kallsyms is not None:
                keep.append(ffi.new("char[]", _path(options.kallsyms)))
                o.kallsyms = keep[-1]
            o.symbol_tables_only = 1 if options.symbol_tables_only else 0
        out = ffi.new("profpack_profile**")
        check(lib.profpack_profile_symbolize(self._handle(), o, out))
        return Profile(out[0])



def _new(call, path: Optional[str] = None) -> Profile:
    out = ffi.new("profpack_profile**")
    check(call(out), path)
    return Profile(out[0])


def read_file(path: PathArg, options: Optional[ReadOptions] = None) -> Profile:
    """``profpack_read_file``: reads a profile of any format, or a `.ppk`, from `path` ("-":
    standard input); the format comes from the content."""
    o, keep = _read_opts(options)
    p = _path(path)
    return _new(lambda out: lib.profpack_read_file(p, o, out), os.fsdecode(path))


def read_files(paths: Sequence[PathArg], options: Optional[ReadOptions] = None) -> Profile:
    """``profpack_read_files``: files that are parts of one profile (valgrind's
    --separate-threads=yes Callgrind files) as that profile."""
    o, keep = _read_opts(options)
    arr, keep2 = cstrings(list(paths), _path)
    return _new(lambda out: lib.profpack_read_files(arr, len(paths), o, out))


def read_memory(data: Buffer, options: Optional[ReadOptions] = None) -> Profile:
    """``profpack_read_memory``: reads a profile from bytes (not retained)."""
    o, keep = _read_opts(options)
    buf = ffi.from_buffer(data)
    return _new(lambda out: lib.profpack_read_memory(buf, len(buf), o, out))


def read(source: Union[PathArg, Buffer, Sequence[PathArg], IO[bytes]],
         options: Optional[ReadOptions] = None, **kwargs: Any) -> Profile:
    """Reads a profile from a path (str, bytes path or os.PathLike), from bytes-like data, from
    a binary file object, or from a list of paths that are parts of one profile. Keyword
    arguments are :class:`ReadOptions` fields::

        with profpack.read("callgrind.out.1234") as p:
            print(p.top(limit=5))

    A ``bytes`` object is data; pass a path as str or os.PathLike.
    """
    if kwargs:
        options = dataclasses.replace(options or ReadOptions(), **kwargs)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return read_memory(source, options)
    if isinstance(source, (str, os.PathLike)):
        return read_file(source, options)
    if hasattr(source, "read"):
        return read_memory(source.read(), options)  # type: ignore[union-attr]
    if isinstance(source, (list, tuple)):
        return read_files(source, options)
    raise TypeError("profpack.read: a path, bytes, a binary file or a list of paths, not %s"
                    % type(source).__name__)


def version_string() -> str:
    """``profpack_version_string``: the loaded library's version, e.g. "0.1.0"."""
    return _text(lib.profpack_version_string())


def version_number() -> int:
    """``profpack_version_number``: MAJOR * 10000 + MINOR * 100 + PATCH."""
    return int(lib.profpack_version_number())


def _handle_of(p: Any) -> Any:
    """The C handle of a Profile given as an argument: anything else (None, say) is an
    InvalidArgumentError, as a closed Profile is a ClosedError."""
    if not isinstance(p, Profile):
        raise InvalidArgumentError("profpack: expected a Profile, got %s" % type(p).__name__)
    return p._handle()


def _iter_profiles(items: Sequence[Profile]) -> Iterator[Any]:
    for p in items:
        yield _handle_of(p)
