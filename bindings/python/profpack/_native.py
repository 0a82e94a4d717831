"""Helpers shared by the modules: C string arrays and two-call enumerations."""
from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple

from ._errors import _c, check
from ._profpack import ffi


def cstrings(items: Sequence[str], encode: Callable[[Any], bytes] = _c) -> Tuple[Any, List[Any]]:
    """A `const char* const*` array of `items` (ffi.NULL for none) and the buffers to keep
    alive while the library reads it."""
    if not items:
        return ffi.NULL, []
    keep = [ffi.new("char[]", encode(s)) for s in items]
    arr = ffi.new("const char*[]", keep)
    return arr, keep + [arr]


def enumerate_c(ctype: str, call: Callable[[Any, int, Any], int], path=None) -> Tuple[Any, int]:
    """A two-call enumeration (`call(out, capacity, count)`): the array and its length."""
    count = ffi.new("size_t*")
    check(call(ffi.NULL, 0, count), path)
    n = count[0]
    while True:
        buf = ffi.new(ctype + "[]", max(n, 1))
        check(call(buf, n, count), path)
        if count[0] <= n:
            return buf, count[0]
        n = count[0]  # grew between the calls: never for an immutable profile, but be exact


def as_signed(v: int, signed: bool) -> int:
    """A uint64 figure of a difference (profpack_info.signed_costs) as the int64 it holds."""
    return v - (1 << 64) if signed and v >= 1 << 63 else int(v)
