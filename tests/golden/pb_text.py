#!/usr/bin/env python3
"""pb_text.py FILE: a protobuf message (gzipped or not) as text, without its schema, the
way `protoc --decode_raw` prints it: one field a line, "NUMBER: value", nested messages
indented. A length-delimited field is printed as a string when it is printable UTF-8,
else as a message when it parses as one whole, else as packed varints ("[1, 2]") when
it parses as those, else as hex. Packed repeated varints (pprof's location_id, value...)
that happen to parse as a message print as one: stable, which is all the golden test
needs."""
import gzip
import sys


def varint(b, i):
    v = s = 0
    while True:
        if i >= len(b):
            raise ValueError("varint past the end")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i
        if s > 63:
            raise ValueError("varint too long")


def fields(b):
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise ValueError("field 0")
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            if i + 8 > len(b):
                raise ValueError("fixed64 past the end")
            v, i = "0x" + b[i:i + 8][::-1].hex(), i + 8
        elif wt == 5:
            if i + 4 > len(b):
                raise ValueError("fixed32 past the end")
            v, i = "0x" + b[i:i + 4][::-1].hex(), i + 4
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("bytes past the end")
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, v))
    return out


def packed(b):
    """B as packed varints ("[1, 2]") when it parses as such, else as hex."""
    vals, i = [], 0
    try:
        while i < len(b):
            v, i = varint(b, i)
            vals.append(v)
    except ValueError:
        return "0x" + b.hex()
    return "[" + ", ".join(str(v) for v in vals) + "]"


def show(b, depth, out):
    pad = "  " * depth
    for num, v in fields(b):
        if not isinstance(v, bytes):
            out.append("%s%d: %s" % (pad, num, v))
            continue
        try:
            s = v.decode("utf-8")
            if s.isprintable():
                out.append('%s%d: "%s"' % (pad, num, s))
                continue
        except UnicodeDecodeError:
            pass
        sub = []
        try:
            show(v, depth + 1, sub)
        except ValueError:
            out.append("%s%d: %s" % (pad, num, packed(v)))
            continue
        out.append("%s%d {" % (pad, num))
        out.extend(sub)
        out.append("%s}" % pad)


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    out = []
    show(data, 0, out)
    print("\n".join(out))


main()
