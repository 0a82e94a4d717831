#!/usr/bin/env python3
"""Prints MAJOR.MINOR.PATCH from the PROFPACK_VERSION_* macros of the public header, the one
place the version is written: meson.build takes the project's version from it."""
import re, sys

text = open(sys.argv[1], encoding="utf-8").read()
parts = []
for name in ("MAJOR", "MINOR", "PATCH"):
    m = re.search(r"^#define PROFPACK_VERSION_%s (\d+)$" % name, text, re.M)
    if not m:
        sys.exit("no PROFPACK_VERSION_%s in %s" % (name, sys.argv[1]))
    parts.append(m.group(1))
print(".".join(parts))
