#!/usr/bin/env python3
"""How small an archive of a set of Callgrind files can be, whatever its coding: the sizes, at
zstd -19, of the parts every byte-exact coding must store (docs/benchmarks.md, "What the set
allows"). Each file is made canonical (compressed names written out, function blocks sorted),
then split into its text without numbers and its numbers.

  python3 bench/callgrind_set_bounds.py DIR          # DIR holds the set's Callgrind files

The set tests/check_archive.sh archives is made by
  for i in $(seq 1 40); do valgrind --tool=callgrind --callgrind-out-file=DIR/c$i.out \\
    ./workload $((1 + i % 2)) $((i % 4 + 1)); done
with workload built from tests/data/workload.c (gcc -g -O1 -pthread).
"""
import collections
import glob
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile

NAMEDEF = re.compile(r'^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=\((\d+)\)(?: (.*))?$')
SPACE = {'ob': 'ob', 'cob': 'ob', 'fl': 'fl', 'fi': 'fl', 'fe': 'fl', 'cfi': 'fl', 'cfl': 'fl',
         'fn': 'fn', 'cfn': 'fn'}
NUMBER = re.compile(r'(?<![\w.])\d+(?![\w.])')


def zstd19(data):
    return len(subprocess.run(['zstd', '-q', '-19', '-c'], input=data, capture_output=True,
                              check=True).stdout)


def canonical(path, order=None):
    """The file with every compressed name written out and its function blocks sorted by
    (object, file, function); `order`, if a list, receives the blocks' keys in file order."""
    names, header, blocks, block, ctx = {}, [], [], None, {'ob': '', 'fl': ''}
    for line in open(path, encoding='utf-8', errors='replace').read().split('\n'):
        m = NAMEDEF.match(line)
        if m:
            kind, ident, name = m.groups()
            key = (SPACE[kind], ident)
            if name is not None:
                names[key] = name
            full = names.get(key, '')
            line = kind + '=' + full
            if kind in ('ob', 'fl'):
                ctx[kind] = full
            if kind == 'fn':
                block = [(ctx['ob'], ctx['fl'], full), []]
                blocks.append(block)
                if order is not None:
                    order.append(block[0])
        (header if block is None else block[1]).append(line)
    blocks.sort(key=lambda b: b[0])
    return '\n'.join(header + [f'ob={k[0]}\nfl={k[1]}\n' + '\n'.join(b) for k, b in blocks])


def varints(values):
    out = bytearray()
    for v in values:
        v = v << 1 if v >= 0 else ((-v) << 1) - 1
        while True:
            b, v = v & 0x7f, v >> 7
            out.append(b | 0x80 if v else b)
            if not v:
                break
    return bytes(out)


def main():
    def is_callgrind(f):
        with open(f, 'rb') as fh:
            head = fh.read(64)
        return head.startswith(b'# callgrind format') or head.startswith(b'version:')
    files = sorted((f for f in glob.glob(os.path.join(sys.argv[1], '*'))
                    if os.path.isfile(f) and is_callgrind(f)),
                   key=lambda f: [int(x) for x in re.findall(r'\d+', os.path.basename(f))])
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode='w') as t:
        for f in files:
            t.add(f, arcname=os.path.basename(f))
    base = zstd19(tar.getvalue())
    texts, numbers, orders = {}, {}, {}
    for f in files:
        orders[f] = []
        c = canonical(f, orders[f])
        texts[f] = NUMBER.sub('#', c)
        numbers[f] = [int(x) for x in NUMBER.findall(c)]
    groups = collections.defaultdict(list)
    for f in files:
        groups[hashlib.sha256(texts[f].encode()).hexdigest()].append(f)
    print(f'{len(files)} files; tar | zstd -19: {base} B (0.5x: {base // 2} B)')
    print(f'distinct texts without numbers: {len(groups)} (members each: '
          f'{sorted((len(v) for v in groups.values()), reverse=True)})')
    one = files[0]
    print(f'one text: {zstd19(texts[one].encode())} B; all distinct: '
          f'{zstd19(chr(10).join(texts[v[0]] for v in groups.values()).encode())} B')
    print(f'one member numbers ({len(numbers[one])}): {zstd19(varints(numbers[one]))} B; '
          f'all members: {zstd19(b"".join(varints(numbers[f]) for f in files))} B')
    # Each member's block order, as indexes into the sorted keys of all members' blocks.
    keys = sorted({k for o in orders.values() for k in o})
    index = {k: i for i, k in enumerate(keys)}
    print(f'every member\'s block order: '
          f'{zstd19(b"".join(varints([index[k] for k in orders[f]]) for f in files))} B')
    if len(sys.argv) > 2:  # members that stand for the configurations, by index
        picked = [files[int(i)] for i in sys.argv[2].split(',')]
        print(f'those members ({len(picked)}): texts '
              f'{zstd19(chr(10).join(texts[f] for f in picked).encode())} B, numbers '
              f'{zstd19(b"".join(varints(numbers[f]) for f in picked))} B')


if __name__ == '__main__':
    main()
