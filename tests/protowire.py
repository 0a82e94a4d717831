"""Protocol Buffers wire format, decoded independently of profpack, for the checks that read
the profile.proto messages profpack and go tool pprof write."""


def varint(b, i):
    """The varint at b[i]: (value, index after it)."""
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def encode_varint(v):
    """The varint of v (negative values as their 64-bit two's complement, as int64 fields)."""
    out = bytearray()
    v &= (1 << 64) - 1
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fields(b):
    """(field, wire type, value) of one message: ints for varints, bytes for the rest."""
    for f, w, v, _ in fields_with_bytes(b):
        yield f, w, v


def fields_with_bytes(b):
    """As fields(), with each field's own encoded bytes (key included) fourth."""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {w}")
        yield f, w, v, b[start:i]
