#!/usr/bin/env python3
"""The layering and size rules of the source tree.

Fails on:
- an include that climbs out of lib/formats: a file there including lib/symbolize, lib/merge
  or capi/ (the formats are below them);
- a format-specific write parameter or format rule named in lib/ outside lib/formats/, in
  capi/ or in tools/: the PROFPACK_WRITE_* keys, the CLI spellings of the parameters, the old
  per-format WriteOptions fields, or PROFPACK_READ_DEFER_IR decided by the CLI (the public
  header defines the keys; the bindings, tests, fuzzers and benchmarks are their callers);
- a format named in capi/ or tools/ (they reach formats through the registry's tables);
- in capi/ and tools/: a file over 600 lines or a function over 120 lines (functions defined
  at column 0, and member functions defined inside a class or struct body).

Reports, without failing, the size of every other source file and function over the limits,
unless the file gives a one-line reason at its top ("size-exempt: REASON" in its first five
lines). Tests and generated code are exempt.

  python3 tests/check_layering.py [SOURCE_ROOT]
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 120
SOURCE_EXT = ('.cpp', '.h', '.c', '.cc', '.go', '.swift')
SCANNED = ('lib', 'capi', 'tools', 'fuzz', 'bench', 'include', 'bindings')  # tests and build trees are exempt
STRICT_SIZE = ('capi/', 'tools/', 'include/', 'bindings/')  # size offenders fail here; elsewhere they are reported

# Known offenders that other changes are removing. These lists must shrink to empty: never add
# to them; remove an entry once its file complies.
KNOWN_INCLUDES = set()
KNOWN_SIZE = set()

FORMAT_PARAM = re.compile(r'PROFPACK_WRITE_[A-Z_]+|"--?(?:level|xray-mode|xray-version|image|'
                          r'slot-bytes|byte-order)"|\b(?:xrayMode|xrayVersion|dcpiImage|'
                          r'gperfSlotBytes|gperfByteOrder|ppkLevel)\b')
FORMAT_NAME = re.compile(r'PROFPACK_FORMAT_(?:CALLGRIND|CACHEGRIND|GPERFTOOLS|XRAY|DCPI|FOLDED|'
                         r'TRACE_EVENT|PPROF)\b|FormatId::(?:callgrind|cachegrind|gperftools|'
                         r'xray|dcpi|folded|traceEvent|pprof)\b|ir::Format::[A-Z]')
# A format told by its name where its rule should be the registry's or its source's own.
FORMAT_BY_NAME = re.compile(r'[Ff]ormat\(\)\s*[!=]=\s*"[A-Za-z_-]+"')
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
NOT_FUNCTION = re.compile(r'^(?:namespace|struct|class|enum|union|using|typedef|extern|static_assert'
                          r'|#|//|/\*|\*|}|template\s*<[^>]*>\s*(?:struct|class))')
# Statements that open a block like a definition does (met in class bodies and in blocks that
# are not functions, such as a lambda's in an initializer), and access labels.
NOT_DEFINITION = re.compile(r'^(?:if|else|for|while|do|switch|case|default|try|catch|return|guard|'
                            r'defer|go|(?:public|private|protected)\s*:)\b')


def sources(root):
    for top in SCANNED:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
            for f in sorted(files):
                # Tests are exempt, wherever they live (Go's _test.go, SwiftPM's Tests/).
                if f.endswith(SOURCE_EXT) and not f.endswith('_test.go') and '/Tests' not in d:
                    path = os.path.join(d, f)
                    yield os.path.relpath(path, root), path


def strip_comment(line):
    i = line.find('//')
    return line if i < 0 else line[:i]


def functions(lines):
    """(name line, first line number, length) of each function defined at column 0, and of each
    defined indented (a member function in a class or struct body): its body ends at the first
    '}' line at its own indentation."""
    i = 0
    while i < len(lines):
        line = lines[i]
        code = line.lstrip()
        indent = line[:len(line) - len(code)]
        if (not code or not (code[0].isalpha() or code[0] in '_~') or NOT_FUNCTION.match(code)
                or (indent and NOT_DEFINITION.match(code))):
            i += 1
            continue
        # The declaration runs to the first '{' or ';' (at most 40 lines: a constructor's
        # initializer list included).
        head, j = '', i
        while j < len(lines) and j < i + 40:
            head += strip_comment(lines[j])
            if '{' in head or ';' in head:
                break
            j += 1
        brace, semi = head.find('{'), head.find(';')
        if brace < 0 or (0 <= semi < brace) or '(' not in head[:brace] or '=' in head[:head.find('(')]:
            i = j + 1
            continue
        end = j
        if not head.rstrip().endswith('}'):  # not a one-line body
            end = j + 1
            while end < len(lines) and lines[end].rstrip() != indent + '}':
                end += 1
            if indent and end == len(lines):  # no closing line at its indentation: not a body
                i = j + 1
                continue
        yield code.strip(), i + 1, end - i + 1
        i = end + 1


def exempt(lines):
    return any('size-exempt:' in l for l in lines[:5])


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    failures, notes = [], []
    seen_includes, seen_size = set(), set()
    for rel, path in sources(root):
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().split('\n')
        in_formats = rel.startswith('lib/formats/')
        # Layering: the layers include downwards only. lib/formats never includes symbolize/,
        # merge/ or the C API; the model, the IR and the container include none of those nor
        # the formats.
        below = in_formats or rel.startswith(('lib/model/', 'lib/ir/', 'lib/container/'))
        above = (r'(?:symbolize|merge|capi|profpack)/' if in_formats else
                 r'(?:formats|symbolize|merge|capi|profpack)/')
        if below:
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if m and re.match(above, m.group(1)):
                    if (rel, m.group(1)) in KNOWN_INCLUDES:
                        seen_includes.add((rel, m.group(1)))
                        notes.append(f'{rel}:{n}: includes {m.group(1)} (known, being removed)')
                    else:
                        failures.append(f'{rel}:{n}: includes {m.group(1)}, a layer above it')
        # Format rules above the formats.
        if not in_formats and rel.startswith(('lib/', 'capi/', 'tools/')):
            for n, line in enumerate(lines, 1):
                code = strip_comment(line)
                m = FORMAT_PARAM.search(code)
                if m:
                    failures.append(f'{rel}:{n}: names a format\'s write parameter ({m.group(0)})')
                if rel.startswith('tools/') and 'PROFPACK_READ_DEFER_IR' in code:
                    failures.append(f'{rel}:{n}: decides PROFPACK_READ_DEFER_IR (a format rule)')
                m = FORMAT_BY_NAME.search(code)
                if m:
                    failures.append(f'{rel}:{n}: tells a format by its name ({m.group(0)})')
                m = FORMAT_NAME.search(code)
                if m and rel.startswith(('capi/', 'tools/')):
                    failures.append(f'{rel}:{n}: names a format ({m.group(0)})')
                elif m:
                    notes.append(f'{rel}:{n}: names a format ({m.group(0)})')
        # Size.
        if exempt(lines):
            continue
        over = []
        if len(lines) - 1 > MAX_FILE_LINES:
            over.append(f'{rel}: {len(lines) - 1} lines (limit {MAX_FILE_LINES})')
        for name, first, length in functions(lines):
            if length > MAX_FUNCTION_LINES:
                over.append(f'{rel}:{first}: function of {length} lines (limit '
                            f'{MAX_FUNCTION_LINES}): {name[:60]}')
        if not over:
            continue
        if rel.startswith(STRICT_SIZE):
            failures += over
        elif rel in KNOWN_SIZE:
            seen_size.add(rel)
            notes += [o + ' (known, being split)' for o in over]
        else:
            failures += over
    for rel, inc in sorted(KNOWN_INCLUDES - seen_includes):
        notes.append(f'{rel}: no longer includes {inc}: remove it from KNOWN_INCLUDES')
    for rel in sorted(KNOWN_SIZE - seen_size):
        notes.append(f'{rel}: within the limits now: remove it from KNOWN_SIZE')
    for n in notes:
        print('note', n)
    for f in failures:
        print('FAIL', f)
    print(f'{0 if failures else 1} passed, {1 if failures else 0} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
