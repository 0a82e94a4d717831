"""Status codes and the exception hierarchy: one exception class per failure status, all
subclasses of :class:`Error`, which carries what ``profpack_last_error()`` reports."""
from __future__ import annotations

import enum
import os
from typing import Optional, Union

from ._profpack import ffi, lib


class Status(enum.IntEnum):
    """A status code of the C API (``profpack_status``); the values are the C constants'."""

    OK = lib.PROFPACK_OK
    INVALID_ARGUMENT = lib.PROFPACK_ERROR_INVALID_ARGUMENT
    IO = lib.PROFPACK_ERROR_IO
    MALFORMED = lib.PROFPACK_ERROR_MALFORMED
    UNSUPPORTED = lib.PROFPACK_ERROR_UNSUPPORTED
    LIMIT = lib.PROFPACK_ERROR_LIMIT
    NO_MEMORY = lib.PROFPACK_ERROR_NO_MEMORY
    INTERNAL = lib.PROFPACK_ERROR_INTERNAL

    def __str__(self) -> str:
        """The status's English name from ``profpack_status_name``, e.g. "malformed input"."""
        return ffi.string(lib.profpack_status_name(int(self))).decode()


class Error(Exception):
    """A failure reported by the library (``profpack_last_error()``), as Go's ``*Error``.

    Attributes: ``status`` (:class:`Status`), ``message`` (the library's one-line message,
    with format and position), ``format`` (the format whose input was at fault, or ""),
    ``path`` (the file it is about, or None for input in memory), ``offset`` and ``line`` (byte
    offset and 1-based line of the defect, or None where not known). ``str(error)`` is the
    message, led by the path where the message does not already start with it.
    """

    status: Status = Status.INTERNAL

    def __init__(self, message: str, *, status: Optional[Status] = None, format: str = "",
                 path: Optional[str] = None, offset: Optional[int] = None,
                 line: Optional[int] = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message
        self.format = format
        self.path = path
        self.offset = offset
        self.line = line

    def __str__(self) -> str:
        if self.path and not self.message.startswith(self.path + ": "):
            return self.path + ": " + self.message
        return self.message

    def __repr__(self) -> str:
        return "%s(%r, status=%s, format=%r, path=%r, offset=%r, line=%r)" % (
            type(self).__name__, self.message, self.status.name, self.format, self.path,
            self.offset, self.line)


class InvalidArgumentError(Error, ValueError):
    """PROFPACK_ERROR_INVALID_ARGUMENT: a bad option, an unknown format or event."""
    status = Status.INVALID_ARGUMENT


class ClosedError(InvalidArgumentError):
    """A method of a closed Profile, Merger or Archive (as Go's ErrClosed)."""


class FileError(Error, OSError):
    """PROFPACK_ERROR_IO: a file could not be opened, read or written."""
    status = Status.IO

    def __init__(self, message: str, **kwargs) -> None:  # OSError takes (errno, strerror)
        Error.__init__(self, message, **kwargs)


class MalformedError(Error, ValueError):
    """PROFPACK_ERROR_MALFORMED: the input is not a valid profile of its format."""
    status = Status.MALFORMED


class UnsupportedError(Error):
    """PROFPACK_ERROR_UNSUPPORTED: valid, but not something profpack can read or write."""
    status = Status.UNSUPPORTED


class LimitError(Error):
    """PROFPACK_ERROR_LIMIT: the input exceeds an option's or a documented limit."""
    status = Status.LIMIT


class NoMemoryError(Error, MemoryError):
    """PROFPACK_ERROR_NO_MEMORY: memory ran out."""
    status = Status.NO_MEMORY


class InternalError(Error):
    """PROFPACK_ERROR_INTERNAL: a bug in profpack; please report it."""
    status = Status.INTERNAL


_CLASSES = {cls.status: cls for cls in (InvalidArgumentError, FileError, MalformedError,
                                        UnsupportedError, LimitError, NoMemoryError,
                                        InternalError)}

PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def _position(value: int) -> Optional[int]:
    return None if value == lib.PROFPACK_UNKNOWN_POSITION else int(value)


def last_error(path: Optional[str] = None) -> Error:
    """The calling thread's last error (``profpack_last_error()``) as an exception. The C
    library keeps it per OS thread, which is the Python thread that made the call."""
    e = lib.profpack_last_error()
    status = Status(e.code) if e.code in Status._value2member_map_ else Status.INTERNAL
    cls = _CLASSES.get(status, Error)
    return cls(_text(e.message), status=status, format=_text(e.format), path=path,
               offset=_position(e.offset), line=_position(e.line))


def check(status: int, path: Optional[str] = None) -> None:
    """Raises the last error if `status` is not PROFPACK_OK."""
    if status != lib.PROFPACK_OK:
        raise last_error(path)


def _text(p) -> str:
    """A C string the library owns, as str (bytes that are not UTF-8 kept by surrogateescape,
    so that a name read from a file round-trips to the library unchanged)."""
    if p == ffi.NULL:
        return ""
    return ffi.string(p).decode("utf-8", "surrogateescape")


def _no_nul(b: bytes, what: str) -> bytes:
    """b, which the library reads as a C string: a NUL inside it would cut it short there, so
    it is an InvalidArgumentError instead."""
    if b"\0" in b:
        raise InvalidArgumentError("profpack: %s %r contains a NUL character" % (what, b))
    return b


def _c(s: str) -> bytes:
    """A str for the library (the inverse of _text); one holding a NUL is an
    InvalidArgumentError."""
    return _no_nul(s.encode("utf-8", "surrogateescape"), "string")


def _path(p: PathArg) -> bytes:
    """A path for the library, from str, bytes or os.PathLike; one holding a NUL is an
    InvalidArgumentError."""
    return _no_nul(os.fsencode(p), "path")


def closed(what: str) -> ClosedError:
    return ClosedError("profpack: use of a closed " + what)
