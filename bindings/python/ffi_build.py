#!/usr/bin/env python3
"""Writes the C source of profpack's cffi extension module (API mode) from the public header.

    python ffi_build.py include/profpack/profpack.h OUT.c

The declarations cffi needs (its "cdef") are the header itself, less its comments and
preprocessor lines: every function, struct and enum the library exports is declared to Python
as the header declares it, so none can be left out, and the C compiler checks each one against
the real header when it compiles OUT.c (a struct whose layout or a function whose signature
differs fails the build rather than corrupting memory at run time). Each integer #define
becomes `#define NAME ...`, whose value the compiler fills in.
"""
import re
import sys

import cffi


def cdef_of(header: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = text.replace("\\\n", " ")
    out, defines, skip = [], [], 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            directive = s[1:].strip()
            if directive.startswith("ifdef __cplusplus") or skip and directive.startswith("if"):
                skip += 1
            elif skip and directive.startswith("endif"):
                skip -= 1
            m = re.match(r"define\s+(PROFPACK_[A-Z0-9_]+)\s+(\S.*)$", directive)
            if m and not skip and "STRINGIFY" not in m.group(2) and "__attribute__" not in m.group(2):
                defines.append(m.group(1))
            continue
        if not skip:
            out.append(line.replace("PROFPACK_API ", ""))
    body = "\n".join(out)
    return body + "\n" + "".join("#define %s ...\n" % d for d in sorted(set(defines)))


def builder(header_path: str) -> cffi.FFI:
    with open(header_path, encoding="utf-8") as f:
        header = f.read()
    ffi = cffi.FFI()
    ffi.cdef(cdef_of(header))
    ffi.set_source("profpack._profpack", "#include <profpack/profpack.h>\n")
    return ffi


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: ffi_build.py HEADER OUT.c")
    builder(sys.argv[1]).emit_c_code(sys.argv[2])
