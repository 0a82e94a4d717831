"""profpack: read, store (.ppk) and write performance profiles.

A binding of the C library libprofpack through cffi (API mode): Callgrind, Cachegrind,
gperftools, LLVM XRay, DCPI, pprof, V8 .cpuprofile, Chrome trace events and collapsed stacks
are read into one representation, queried (top functions, per-line costs, callers and
callees), merged, differenced, symbolized, stored as `.ppk` or in archives, and written to every
format that can hold them. Every call into the library releases the GIL.

    import profpack
    with profpack.read("callgrind.out.1234") as p:
        for row in p.top(limit=5):
            print(row.costs[0].self, row.name)

Each name is the C API's without its ``profpack_``/``profpack_profile_`` prefix (docs/api.md).
"""
from ._archive import Archive, ArchiveMember, FunctionTrendCost
from ._errors import (ClosedError, Error, FileError, InternalError, InvalidArgumentError,
                      LimitError, MalformedError, NoMemoryError, Status, UnsupportedError)
from ._formats import (Format, FormatInfo, WriteOptions, WriteParam, WriteParamInfo, formats,
                       write_param_bounds, write_params)
from ._merge import DiffOptions, Merger, diff, merge
from ._profile import (Profile, read, read_file, read_files, read_memory, version_number,
                       version_string)
from ._profpack import lib as _lib
from ._tables import FunctionRow, Line, Stack
from ._types import (Call, Capability, Event, Function, Info, LineCost, ReadOptions,
                     SymbolizeOptions, Thread, TopCost, TopOptions, TopRow, UNKNOWN_ID)

__version__ = version_string()

#: PROFPACK_ALL_THREADS, PROFPACK_UNKNOWN_POSITION: given as None by this binding.
ALL_THREADS = None
UNKNOWN_POSITION = None

__all__ = [
    "Archive", "ArchiveMember", "FunctionTrendCost", "Call", "Capability", "ClosedError", "DiffOptions", "Error",
    "Event", "FileError", "Format", "FormatInfo", "Function", "FunctionRow", "Info",
    "InternalError", "InvalidArgumentError", "LimitError", "Line", "LineCost", "MalformedError",
    "Merger", "NoMemoryError", "Profile", "ReadOptions", "Stack", "Status", "SymbolizeOptions",
    "Thread", "TopCost", "TopOptions", "TopRow", "UNKNOWN_ID", "UnsupportedError", "WriteOptions",
    "WriteParam", "WriteParamInfo", "diff", "formats", "merge", "read", "read_file",
    "read_files", "read_memory", "version_number", "version_string", "write_param_bounds",
    "write_params",
]
