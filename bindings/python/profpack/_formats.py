"""Formats, write parameters and write options."""
from __future__ import annotations

import enum
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

from ._errors import InvalidArgumentError, PathArg, _c, _path, _text, check
from ._profpack import ffi, lib

Buffer = Union[bytes, bytearray, memoryview]


class Format(enum.IntEnum):
    """A profile format (``profpack_format``); the values are the C constants'.
    ``str(Format.CALLGRIND)`` is the library's name for it, "callgrind"."""

    UNKNOWN = lib.PROFPACK_FORMAT_UNKNOWN
    PPK = lib.PROFPACK_FORMAT_PPK
    CALLGRIND = lib.PROFPACK_FORMAT_CALLGRIND
    CACHEGRIND = lib.PROFPACK_FORMAT_CACHEGRIND
    GPERFTOOLS = lib.PROFPACK_FORMAT_GPERFTOOLS
    XRAY = lib.PROFPACK_FORMAT_XRAY
    DCPI = lib.PROFPACK_FORMAT_DCPI
    FOLDED = lib.PROFPACK_FORMAT_FOLDED
    TRACE_EVENT = lib.PROFPACK_FORMAT_TRACE_EVENT
    PPROF = lib.PROFPACK_FORMAT_PPROF
    CPUPROFILE = lib.PROFPACK_FORMAT_CPUPROFILE
    PERF = lib.PROFPACK_FORMAT_PERF
    PERF_SCRIPT = lib.PROFPACK_FORMAT_PERF_SCRIPT

    def __str__(self) -> str:
        """``profpack_format_name``: "ppk", "callgrind", "trace-event", ..."""
        return _text(lib.profpack_format_name(int(self)))

    @classmethod
    def from_name(cls, name: str) -> "Format":
        """``profpack_format_from_name``: the format the library spells `name`; UNKNOWN if none."""
        return cls(lib.profpack_format_from_name(_c(name)))

    @classmethod
    def for_path(cls, path: PathArg) -> "Format":
        """``profpack_format_for_path``: the format a file's name says it holds (for choosing
        an output format; reading detects the format from the content)."""
        return cls(lib.profpack_format_for_path(_path(path)))

    @classmethod
    def detect(cls, data: Buffer) -> "Format":
        """``profpack_detect_format``: the format of a profile from its first bytes."""
        buf = ffi.from_buffer(data)
        return cls(lib.profpack_detect_format(buf, len(buf)))

    def info(self) -> "FormatInfo":
        """``profpack_format_describe``: what the format is. InvalidArgumentError for UNKNOWN."""
        info = ffi.new("profpack_format_info*")
        lib.profpack_format_info_init(info)
        check(lib.profpack_format_describe(int(self), info))
        return FormatInfo(self, _text(info.name), _text(info.description),
                          bool(info.flags & lib.PROFPACK_FORMAT_READABLE),
                          bool(info.flags & lib.PROFPACK_FORMAT_WRITABLE),
                          tuple(_text(info.endings).split()), tuple(_text(info.file_names).split()),
                          bool(info.flags & lib.PROFPACK_FORMAT_WRITES_LINES))


def _coerce_format(f: Union["Format", str, int]) -> int:
    if isinstance(f, str):
        v = Format.from_name(f)
        if v == Format.UNKNOWN:
            raise InvalidArgumentError("profpack: unknown format %r" % f)
        return int(v)
    return int(f)


class FormatInfo(NamedTuple):
    """A format's description (``profpack_format_info``)."""
    format: Format
    name: str
    description: str
    readable: bool
    writable: bool
    endings: Tuple[str, ...]      # file-name endings, e.g. (".pb.gz", ".pprof", ".pb")
    file_names: Tuple[str, ...]   # names its profiler gives files, e.g. ("callgrind.out.*",)
    writes_lines: bool = False    # written, it holds source files or lines (see no_lines)


def formats() -> List[FormatInfo]:
    """Every format this library knows (``profpack_format_describe`` from 1 up)."""
    out, f = [], 1
    info = ffi.new("profpack_format_info*")
    while True:
        lib.profpack_format_info_init(info)
        if lib.profpack_format_describe(f, info) != lib.PROFPACK_OK:
            return out
        out.append(Format(f).info() if f in Format._value2member_map_ else FormatInfo(
            f, _text(info.name), _text(info.description),  # type: ignore[arg-type]
            bool(info.flags & lib.PROFPACK_FORMAT_READABLE),
            bool(info.flags & lib.PROFPACK_FORMAT_WRITABLE),
            tuple(_text(info.endings).split()), tuple(_text(info.file_names).split()),
            bool(info.flags & lib.PROFPACK_FORMAT_WRITES_LINES)))
        f += 1


class WriteParam(enum.IntEnum):
    """A write parameter's key (``profpack_write_param``); the values are the C constants'."""
    PPK_LEVEL = lib.PROFPACK_WRITE_PPK_LEVEL
    XRAY_MODE = lib.PROFPACK_WRITE_XRAY_MODE
    XRAY_VERSION = lib.PROFPACK_WRITE_XRAY_VERSION
    GPERFTOOLS_SLOT_BYTES = lib.PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES
    GPERFTOOLS_BYTE_ORDER = lib.PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER
    FOLDED_PROCESS = lib.PROFPACK_WRITE_FOLDED_PROCESS
    DCPI_IMAGE = lib.PROFPACK_WRITE_DCPI_IMAGE

    def bounds(self) -> Tuple[int, int, int]:
        """``profpack_write_param_bounds``: (lowest, highest, default) of an integer parameter."""
        return write_param_bounds(self)


def write_param_bounds(param: Union[WriteParam, int]) -> Tuple[int, int, int]:
    """``profpack_write_param_bounds``: (lowest, highest, default) of an integer parameter;
    InvalidArgumentError for a string or unknown one."""
    lo, hi, de = ffi.new("int64_t*"), ffi.new("int64_t*"), ffi.new("int64_t*")
    check(lib.profpack_write_param_bounds(int(param), lo, hi, de))
    return lo[0], hi[0], de[0]


class WriteParamInfo(NamedTuple):
    """What a write parameter is (``profpack_write_param_info``)."""
    param: int
    format: Format
    name: str               # e.g. "xray-mode", the CLI's --xray-mode
    help: str
    values: str             # its values in words, e.g. "basic or fdr"
    choices: Dict[str, int]  # named values, e.g. {"basic": 0, "fdr": 1}; {} for numbers only
    is_string: bool
    lowest: int
    highest: int
    default_value: int


def write_params() -> List[WriteParamInfo]:
    """Every write parameter the library has (``profpack_write_param_count`` and
    ``profpack_write_param_describe``)."""
    out = []
    info = ffi.new("profpack_write_param_info*")
    for i in range(lib.profpack_write_param_count()):
        lib.profpack_write_param_info_init(info)
        check(lib.profpack_write_param_describe(i, info))
        choices = {}
        for item in filter(None, _text(info.choices).split(",")):
            k, _, v = item.partition("=")
            choices[k] = int(v)
        out.append(WriteParamInfo(int(info.param), Format(info.format), _text(info.name),
                                  _text(info.help), _text(info.values), choices,
                                  bool(info.is_string), info.lowest, info.highest,
                                  info.default_value))
    return out


class WriteOptions:
    """Write parameters (``profpack_write_options``), each for one output format and ignored
    by the others::

        opts = profpack.WriteOptions().set(profpack.WriteParam.PPK_LEVEL, 19)
        opts.set_text("xray-mode", "fdr")

    Each setter raises InvalidArgumentError (options unchanged) for a value out of bounds.
    """

    def __init__(self, **params: Union[int, str]) -> None:
        """Keyword arguments are set by name as set_text() takes them, '_' for '-':
        ``WriteOptions(ppk_level=19, xray_mode="fdr")``."""
        self._c = ffi.new("profpack_write_options*")
        self._keep: Dict[object, bytes] = {}  # borrowed strings, alive as long as the options
        lib.profpack_write_options_init(self._c)
        for name, value in params.items():
            self.set_text(name.replace("_", "-"), str(value))

    def set(self, param: Union[WriteParam, int], value: int) -> "WriteOptions":
        """``profpack_write_options_set``: sets an integer parameter."""
        check(lib.profpack_write_options_set(self._c, int(param), value))
        return self

    def set_string(self, param: Union[WriteParam, int], value: Optional[str]) -> "WriteOptions":
        """``profpack_write_options_set_string``: sets a string parameter (None: its default)."""
        b = None if value is None else _c(value)
        check(lib.profpack_write_options_set_string(self._c, int(param),
                                                    ffi.NULL if b is None else b))
        self._keep[("param", int(param))] = b or b""
        return self

    def set_text(self, name: str, value: str) -> "WriteOptions":
        """``profpack_write_options_set_text``: sets the parameter named `name` ("xray-mode")
        from text: a choice name ("fdr"), a number, or a string parameter's value."""
        b = _c(value)
        check(lib.profpack_write_options_set_text(self._c, _c(name), b))
        self._keep[("text", name)] = b
        return self
